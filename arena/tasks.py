"""Celery tasks: a task is a whole match (never a move), recorded exactly once by ``record``."""
from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from bots_sdk.sandbox import SandboxUnavailable

from . import checks, live, tournaments
from .celery import app
from .ladder import schedule_ladder_matches
from .models import Match, MatchSeat
from .ratings import rate_match
from .runner import PlayedMatch, play

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


def record(match_id: int, played: PlayedMatch | None, aborted: str = "") -> bool:
    """The one function that records a match of any kind: the seats' rows from the referee's
    result rows, the result, the replay's path and the ratings, in one transaction; False if the
    match was recorded already."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status in (Match.FINISHED, Match.ABORTED):
            return False
        match.finished = timezone.now()
        outcome = played.outcome if played else None
        if outcome is None or not outcome.finished:
            match.status = Match.ABORTED
            match.result = {"aborted": outcome.status if outcome else aborted or "no result"}
            match.save()
            return True
        seats = list(match.seats.order_by("seat"))
        for seat, row in zip(seats, outcome.seats):
            seat.score, seat.rank, seat.status = row.score, row.rank, row.status
        MatchSeat.objects.bulk_update(seats, ["score", "rank", "status"])
        match.result = dict(outcome.result)
        if played.sandbox_lines:  # the sandboxes' verdicts on faulted bots, for their owners
            match.result["sandbox_logs"] = [{"seat": seat, "line": line}
                                            for seat, lines in sorted(played.sandbox_lines.items()) for line in lines]
        match.replay_path = played.replay_path
        match.status = Match.FINISHED
        match.save()
        if match.rated:
            rate_match(match)
    return True


def after_match(match: Match) -> None:
    """What a recorded match moves on: its tournament's next round, its upload's verdict."""
    tournaments.after_match(match)
    checks.after_match(match)


@app.task
def ladder_tick() -> int:
    """Keep the ladders playing (Celery beat calls this)."""
    return schedule_ladder_matches()
