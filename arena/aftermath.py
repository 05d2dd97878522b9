"""What follows a match's recording, whoever recorded it (a worker, or the reconciler aborting a
match at its cap): its live frames end, its tournament moves on, its upload gets its verdict."""
from __future__ import annotations

import logging

from . import checks, live, tournaments
from .models import Match

log = logging.getLogger("parlour.arena")


def finish(match_id: int) -> None:
    try:
        live.recorded(match_id, Match.objects.values_list("status", flat=True).get(pk=match_id))
    except Exception as exc:  # noqa: BLE001 - Redis down: the live frames expire by themselves
        log.warning("match %s: could not end its live frames: %s", match_id, exc)
    after_match(Match.objects.get(pk=match_id))


def after_match(match: Match) -> None:
    """What a recorded match moves on: its tournament's next round, its upload's verdict."""
    tournaments.after_match(match)
    checks.after_match(match)
