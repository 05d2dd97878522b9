"""Celery tasks: a task is a whole match (never a move), recorded exactly once by the road
(arena.road.lifecycle). Their names (arena.fleet.celery_app) are those of the broker's messages."""
from __future__ import annotations

from ..competitions.ladder import schedule_ladder_matches
from ..road.lifecycle import play_once
from . import heartbeats, worker_upkeep
from .celery_app import (DELIVER_WEBHOOK, LADDER_TICK, RECONCILE, REFIT_LADDERS, RUN_COMPARISON, RUN_MATCH,
                         START_DUE_TOURNAMENTS, app)

__all__ = ["run_match", "worker_upkeep"]  # worker_upkeep: its signals start each worker's upkeep


@app.task(name=RUN_MATCH, bind=True, acks_late=True, reject_on_worker_lost=True)
def run_match(self, match_id: int) -> str:
    """Play one scheduled match and record it once (arena.road.lifecycle): a redelivered or duplicated
    task finds the match claimed or recorded and does nothing; when the platform fails (the
    referee unreachable, Redis or the database down) the match goes back to the queue with a
    growing back-off; a worker killed mid-match leaves it to the reconciler (arena.fleet.reconcile)."""
    return play_once(match_id, heartbeats.identity(self.request.hostname))


@app.task(name=LADDER_TICK)
def ladder_tick() -> int:
    """Keep the ladders playing (Celery beat calls this)."""
    return schedule_ladder_matches()


@app.task(name=RECONCILE)
def reconcile() -> dict:
    """Mend the queue from the database (beat calls this; the workers also do, in turn)."""
    from .reconcile import reconcile as mend

    return mend()


@app.task(name=START_DUE_TOURNAMENTS)
def start_due_tournaments() -> list[int]:
    """Start the open tournaments whose start time has come, or cancel those short of entrants."""
    from ..competitions.tournaments import start_due_tournaments as start_due

    return start_due()


@app.task(name=REFIT_LADDERS)
def refit_ladders() -> int:
    """The batch Plackett–Luce fit of every ladder, stored beside the live ratings (beat calls this)."""
    from ..competitions.ladder import refit_ladders as refit

    return refit()


@app.task(name=RUN_COMPARISON, acks_late=True)
def run_comparison(comparison_id: int) -> str:
    """Play a comparison an owner asked for from a bot page (arena.competitions.comparison_requests)."""
    from ..competitions.comparison_requests import run_recorded

    return run_recorded(comparison_id)


@app.task(name=DELIVER_WEBHOOK)
def deliver_webhook(delivery_id: int) -> str:
    """One attempt at delivering a webhook event (arena.fleet.webhooks), the next one sent on failure."""
    from .webhooks import deliver

    return deliver(delivery_id)
