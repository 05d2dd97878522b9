"""Recording a played match: the one function every kind of match goes through (tournament,
ladder, check, challenge, comparison)."""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from . import editions
from .models import Match, MatchSeat
from .ratings import rate_match
from .rows import update_rows
from .runner import PlayedMatch
from .stats import forfeit_last


def record(match: Match | int, played: PlayedMatch | None, aborted: str = "") -> Match | None:
    """The one function that records a match of any kind: the seats' rows from the referee's
    result rows, the result, the replay's path and the ratings, in one transaction. ``match``: the
    row as its attempt claimed it (else its id: read here). Returns the match as this call recorded
    it (so what follows need not read it again), or None if the match was recorded already.
    ``played=None`` aborts the match unplayed, for ``aborted``'s reason."""
    if not isinstance(match, Match):
        match = Match.objects.get(pk=match)
    outcome = played.outcome if played else None
    with transaction.atomic():
        if outcome is None or not outcome.finished:
            # the referee's verdict on the play (a runaway match) is a result; no play at all (the
            # platform's cap, an operator's decision) leaves the match unplayed: its tournament halts
            ended = {"status": Match.ABORTED, "result": ({"aborted": outcome.status} if outcome else
                                                         {"aborted": aborted or "no result", "unplayed": True})}
        else:
            result = dict(outcome.result)
            if played.sandbox_lines:  # the sandboxes' verdicts on faulted bots, for their owners
                result["sandbox_logs"] = [{"seat": seat, "line": line}
                                          for seat, lines in sorted(played.sandbox_lines.items()) for line in lines]
            ended = {"status": Match.FINISHED, "result": result, "replay_path": played.replay_path}
        ended["finished"] = timezone.now()
        # recorded once: the UPDATE changes the row only while it is unrecorded, and holds its lock
        # to the commit, so a second recording of the match waits, then finds it recorded
        if not Match.objects.filter(pk=match.pk, status__in=Match.UNRECORDED).update(**ended):
            return None
        for name, value in ended.items():
            setattr(match, name, value)
        if match.status == Match.ABORTED:
            return match
        # a forfeited seat ranks last in every count the site keeps (standings, crosstables, lists);
        # what its autopilot scored stays in the result and the replay
        ranks = forfeit_last([row.rank for row in outcome.seats], [row.status for row in outcome.seats])
        seats = [MatchSeat(pk=pk, bot_version_id=version, score=row.score, rank=rank, status=row.status)
                 for (pk, version), row, rank in zip(seat_rows(match), outcome.seats, ranks)]
        update_rows(seats, ["score", "rank", "status"])
        if match.rated and rate_match(match, seats):
            editions.renew(match.game)  # the ratings were bulk-written: no signal renews the ladder pages
    return match


def seat_rows(match: Match) -> list[tuple[int, int]]:
    """The match's seats as (row id, version id), in seat order: what recording writes to (two
    columns, not the models: building those cost more than the query, issue 13)."""
    return list(match.seats.order_by("seat").values_list("pk", "bot_version_id"))
