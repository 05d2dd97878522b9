"""Putting matches on the road: their tasks sent by name (so the modules that schedule matches —
tournaments, ladder, challenges, checks — never import the tasks that play them).

Sending never raises: a match whose task could not be sent (Redis down) stays ``scheduled`` in the
database, and the reconciler (arena.fleet.reconcile) sends it again once Redis is back. A match with
remote seats goes to the queue of the referee its bots are connected to (arena.fleet.routing)."""
from __future__ import annotations

import logging

from .celery_app import RUN_COMPARISON, RUN_MATCH, app

log = logging.getLogger("parlour.arena")


def enqueue_matches(match_ids: list[int]) -> None:
    for pk in match_ids:
        enqueue_match_later(pk, 0.0)


def enqueue_match_later(match_id: int, delay: float) -> None:
    from .routing import queue_for  # imported here: routing reads the models, which the app loads first

    try:
        app.send_task(RUN_MATCH, args=[match_id], countdown=delay or None, queue=queue_for(match_id))
    except Exception as exc:  # noqa: BLE001 - the broker down: the reconciler sends it later
        log.warning("match %s: its task could not be sent (%s); the reconciler will", match_id, exc)


def enqueue_comparison(comparison_id: int) -> None:
    app.send_task(RUN_COMPARISON, args=[comparison_id])
