"""Recording a played match: the one function every kind of match goes through (tournament,
ladder, check, challenge, comparison)."""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from . import editions
from .models import Match
from .ratings import rate_match
from .rows import update_rows
from .runner import PlayedMatch
from .stats import forfeit_last


def record(match_id: int, played: PlayedMatch | None, aborted: str = "") -> Match | None:
    """The one function that records a match of any kind: the seats' rows from the referee's
    result rows, the result, the replay's path and the ratings, in one transaction. Returns the
    match as this call recorded it (so what follows need not read it again), or None if the match
    was recorded already. ``played=None`` aborts the match unplayed, for ``aborted``'s reason."""
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status in (Match.FINISHED, Match.ABORTED):
            return None
        match.finished = timezone.now()
        outcome = played.outcome if played else None
        if outcome is None or not outcome.finished:
            match.status = Match.ABORTED
            # the referee's verdict on the play (a runaway match) is a result; no play at all (the
            # platform's cap, an operator's decision) leaves the match unplayed: its tournament halts
            match.result = ({"aborted": outcome.status} if outcome else
                            {"aborted": aborted or "no result", "unplayed": True})
            match.save(update_fields=["finished", "status", "result"])
            return match
        seats = list(match.seats.order_by("seat"))
        # a forfeited seat ranks last in every count the site keeps (standings, crosstables, lists);
        # what its autopilot scored stays in the result and the replay
        ranks = forfeit_last([row.rank for row in outcome.seats], [row.status for row in outcome.seats])
        for seat, row, rank in zip(seats, outcome.seats, ranks):
            seat.score, seat.rank, seat.status = row.score, rank, row.status
        update_rows(seats, ["score", "rank", "status"])
        match.result = dict(outcome.result)
        if played.sandbox_lines:  # the sandboxes' verdicts on faulted bots, for their owners
            match.result["sandbox_logs"] = [{"seat": seat, "line": line}
                                            for seat, lines in sorted(played.sandbox_lines.items()) for line in lines]
        match.replay_path = played.replay_path
        match.status = Match.FINISHED
        # only what recording changes: the rest of the row is as the lock read it
        match.save(update_fields=["finished", "status", "result", "replay_path"])
        if match.rated and rate_match(match, seats):
            editions.renew(match.game)  # the ratings were bulk-written: no signal renews the ladder pages
    return match
