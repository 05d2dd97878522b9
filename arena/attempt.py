"""One attempt at a scheduled match: the way every player of matches (a worker's task, a
comparison's games) claims it, plays it on the one road and records it, or hands it back when the
platform failed (arena.lifecycle)."""
from __future__ import annotations

import logging

from sandbox import SandboxUnavailable

from . import lifecycle
from .aftermath import finish
from .cores import core_for
from .models import Match
from .recording import record
from .runner import play, seat_plan

log = logging.getLogger("parlour.arena")


def play_once(match_id: int, worker: str) -> str:
    """Claim, play and record the match as ``worker``: "recorded", "handed back" (the platform
    failed; it is played again after its back-off) or "not scheduled" (claimed or recorded already)."""
    match = lifecycle.claim(match_id, worker)
    if match is None:
        return "not scheduled"
    recorded: Match | bool | None
    try:
        plan = seat_plan(match)
        # a bot that thinks on this machine waits for a core of its own (arena.cores), held until
        # the match is recorded: a match's play never overlaps the next one's on that core
        with core_for(any(p.thinks_here for p in plan), lambda: lifecycle.renew_claim(match_id, match.attempts)):
            recorded = record(match, play(match, plan))
    except SandboxUnavailable as exc:  # the operator's switch or the machine: retrying cannot help
        log.warning("match %s not played: %s", match.key, exc)
        recorded = record(match, None, f"uploaded bots cannot run on this worker: {str(exc)[:300]}")
    except Exception as exc:  # noqa: BLE001 - the platform failed, never the bots (the referee judges them)
        log.warning("match %s failed: %s", match.key, exc)
        recorded = lifecycle.hand_back(match_id, match.attempts, f"{type(exc).__name__}: {str(exc)[:500]}")
    if recorded:
        # the row as this attempt recorded it (aborted at the cap by hand_back: read again)
        finish(match_id, recorded if isinstance(recorded, Match) else None)
    return "recorded" if recorded else "handed back"
