"""Celery tasks: a task is a whole match (never a move), recorded exactly once by ``record``."""
from __future__ import annotations

import logging

from bots_sdk.sandbox import SandboxUnavailable

from . import checks, live, tournaments
from .celery import app
from .ladder import schedule_ladder_matches
from .models import Match
from .recording import record
from .runner import play

log = logging.getLogger("parlour.arena")


MAX_RETRIES = 3


@app.task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=MAX_RETRIES)
def run_match(self, match_id: int) -> str:
    """Play one scheduled match and record it once: a redelivered or duplicated task finds the
    match recorded and does nothing; a worker killed mid-match leaves it to be played again; a
    referee that cannot be reached is retried, then the match is recorded as aborted."""
    match = Match.objects.get(pk=match_id)
    if match.status in (Match.FINISHED, Match.ABORTED):
        return "already recorded"
    Match.objects.filter(pk=match_id, status=Match.SCHEDULED).update(status=Match.RUNNING)
    try:
        recorded = record(match_id, play(match))
    except SandboxUnavailable as exc:  # this machine runs no uploaded bot: retrying cannot help
        log.warning("match %s not played: %s", match.key, exc)
        recorded = record(match_id, None, f"aborted: {str(exc)[:200]}")
    except Exception as exc:  # the referee is down, the database busy: play it again later
        log.warning("match %s failed: %s", match.key, exc)
        if self.request.retries < MAX_RETRIES:
            raise self.retry(countdown=2 ** self.request.retries, exc=RuntimeError(str(exc)[:500])) from None
        recorded = record(match_id, None, f"aborted: {str(exc)[:200]}")
    try:
        live.recorded(match_id, Match.objects.values_list("status", flat=True).get(pk=match_id))
    except Exception as exc:  # noqa: BLE001 - Redis down: the live frames expire by themselves
        log.warning("match %s: could not end its live frames: %s", match_id, exc)
    if recorded:
        after_match(Match.objects.get(pk=match_id))
    return "recorded" if recorded else "already recorded"


def after_match(match: Match) -> None:
    """What a recorded match moves on: its tournament's next round, its upload's verdict."""
    tournaments.after_match(match)
    checks.after_match(match)


@app.task
def ladder_tick() -> int:
    """Keep the ladders playing (Celery beat calls this)."""
    return schedule_ladder_matches()


@app.task
def refit_ladders() -> int:
    """The batch Plackett–Luce fit of every ladder, stored beside the live ratings (beat calls this)."""
    from .ladder import refit_ladders as refit

    return refit()


@app.task(acks_late=True)
def run_comparison(comparison_id: int) -> str:
    """Play a comparison an owner asked for from a bot page (arena.comparisons)."""
    from .comparisons import run_recorded

    return run_recorded(comparison_id)
