"""Putting matches on the road: the Celery queue, by task name (so the modules that schedule
matches — tournaments, ladder, checks — never import the tasks that play them)."""
from __future__ import annotations

from .celery import app

RUN_MATCH = "arena.tasks.run_match"
RUN_COMPARISON = "arena.tasks.run_comparison"


def enqueue_matches(match_ids: list[int]) -> None:
    for pk in match_ids:
        app.send_task(RUN_MATCH, args=[pk])


def enqueue_comparison(comparison_id: int) -> None:
    app.send_task(RUN_COMPARISON, args=[comparison_id])
