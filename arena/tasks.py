"""Celery tasks: a task is a whole match (never a move), recorded exactly once by ``record``."""
from __future__ import annotations

from . import heartbeats, workers
from .aftermath import after_match
from .attempt import play_once
from .celery import app
from .ladder import schedule_ladder_matches


@app.task(bind=True, acks_late=True, reject_on_worker_lost=True)
def run_match(self, match_id: int) -> str:
    """Play one scheduled match and record it once (arena.lifecycle): a redelivered or duplicated
    task finds the match claimed or recorded and does nothing; when the platform fails (the
    referee unreachable, Redis or the database down) the match goes back to the queue with a
    growing back-off; a worker killed mid-match leaves it to the reconciler (arena.reconcile)."""
    return play_once(match_id, heartbeats.identity(self.request.hostname))


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
