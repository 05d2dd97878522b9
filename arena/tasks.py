"""Celery tasks: a task is a whole match (never a move), recorded exactly once by ``record``."""
from __future__ import annotations

import logging

from bots_sdk.sandbox import SandboxUnavailable

from . import heartbeats, lifecycle, workers
from .aftermath import after_match, finish
from .celery import app
from .ladder import schedule_ladder_matches
from .models import Match
from .recording import record
from .runner import play

log = logging.getLogger("parlour.arena")


@app.task(bind=True, acks_late=True, reject_on_worker_lost=True)
def run_match(self, match_id: int) -> str:
    """Play one scheduled match and record it once (arena.lifecycle): a redelivered or duplicated
    task finds the match claimed or recorded and does nothing; when the platform fails (the
    referee unreachable, Redis or the database down) the match goes back to the queue with a
    growing back-off; a worker killed mid-match leaves it to the reconciler (arena.reconcile)."""
    attempt = lifecycle.claim(match_id, heartbeats.identity(self.request.hostname))
    if attempt is None:
        return "not scheduled"
    match = Match.objects.get(pk=match_id)
    try:
        recorded = record(match_id, play(match))
    except SandboxUnavailable as exc:  # the operator's switch or the machine: retrying cannot help
        log.warning("match %s not played: %s", match.key, exc)
        recorded = record(match_id, None, f"uploaded bots cannot run on this worker: {str(exc)[:300]}")
    except Exception as exc:  # noqa: BLE001 - the platform failed, never the bots (the referee judges them)
        log.warning("match %s failed: %s", match.key, exc)
        recorded = lifecycle.hand_back(match_id, attempt, f"{type(exc).__name__}: {str(exc)[:500]}")
    if recorded:
        finish(match_id)
    return "recorded" if recorded else "handed back"


__all__ = ["after_match", "run_match", "workers"]  # workers: its signals start each worker's upkeep


@app.task
def ladder_tick() -> int:
    """Keep the ladders playing (Celery beat calls this)."""
    return schedule_ladder_matches()


@app.task
def reconcile() -> dict:
    """Mend the queue from the database (beat calls this; the workers also do, in turn)."""
    from .reconcile import reconcile as mend

    return mend()


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
