"""Celery tasks: a task is a whole match (never a move), recorded exactly once."""
from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from bots_sdk.sandbox import SandboxUnavailable

from .celery import app
from .models import Match

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
    from .runner import play

    try:
        replay = play(match)
        recorded = record(match_id, replay)
    except SandboxUnavailable as exc:  # this machine runs no uploaded bot: retrying cannot help
        log.warning("match %s not played: %s", match.key, exc)
        recorded = record(match_id, {"status": f"aborted: {str(exc)[:200]}"})
    except Exception as exc:  # the referee is down, the database busy: play it again later
        log.warning("match %s failed: %s", match.key, exc)
        if self.request.retries < MAX_RETRIES:
            raise self.retry(countdown=2 ** self.request.retries, exc=RuntimeError(str(exc)[:500])) from None
        recorded = record(match_id, {"status": f"aborted: {str(exc)[:200]}"})
    if recorded:
        from .tournaments import after_match

        after_match(Match.objects.get(pk=match_id))
    return "recorded" if recorded else "already recorded"


def record(match_id: int, replay: dict) -> bool:
    """Write the result, the seats and the ratings in one transaction; False if already done."""
    from .ratings import rate_match

    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status in (Match.FINISHED, Match.ABORTED):
            return False
        result = replay.get("result") or {}
        if "scores" not in result:  # the referee aborted it (a runaway match, a referee failure)
            match.status = Match.ABORTED
            match.result = {"aborted": replay.get("status", "no result")}
            match.finished = timezone.now()
            match.save()
            return True
        seats = list(match.seats.order_by("seat"))
        for seat in seats:
            seat.score = result["scores"][seat.seat]
            seat.rank = result["ranks"][seat.seat]
            seat.status = result["statuses"][seat.seat]
            seat.save(update_fields=["score", "rank", "status"])
        match.result = result
        match.replay_path = replay.get("_path", "")
        match.status = Match.FINISHED
        match.finished = timezone.now()
        match.save()
        rate_match(match)
    return True


@app.task
def ladder_tick() -> int:
    """Keep the ladders playing (Celery beat calls this)."""
    from .ladder import schedule_ladder_matches

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
