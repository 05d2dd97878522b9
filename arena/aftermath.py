"""What follows a match's recording, whoever recorded it (a worker, or the reconciler aborting a
match at its cap): its live frames end, its tournament moves on, its upload gets its verdict."""
from __future__ import annotations

import logging

from . import checks, live, tournaments
from .models import Match

log = logging.getLogger("parlour.arena")


def finish(match_id: int, recorded: Match | None = None) -> None:
    """``recorded``: the match as its recording left it, when the caller has it (else read here)."""
    match = recorded or Match.objects.get(pk=match_id)
    try:
        live.recorded(match_id, match.status)
    except Exception as exc:  # noqa: BLE001 - Redis down: the live frames expire by themselves
        log.warning("match %s: could not end its live frames: %s", match_id, exc)
    after_match(match)


def after_match(match: Match) -> None:
    """What a recorded match moves on: its tournament's next round, its upload's verdict."""
    tournaments.after_match(match)
    checks.after_match(match)
