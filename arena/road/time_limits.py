"""How long a match may take, from its time control and the referee's decision cap: the broker's
visibility timeout and the reconciler's patience follow it (never a fixed hour).

The longest possible match: every decision up to the cap at its move limit, every seat's bank
spent, the wait for the first seat and then for the others before play. A match running past that (plus a margin) is stuck.
"""
from __future__ import annotations

from typing import Any

from django.conf import settings

from referee.timecontrol import TimeControl

MARGIN = 120.0  # seconds for creating the match, the replay's transfer, a busy machine
LARGEST_TABLE = 6  # the most seats any game seats (a check: tests/test_operations.py)


def longest_match(time_control: dict[str, Any] | None = None, seats: int = LARGEST_TABLE) -> float:
    """Seconds the longest possible match under this time control takes (without the margin): the
    referee's decision cap and join timeouts are its settings (``referee/settings.py``), which the
    platform's processes read as theirs."""
    control = TimeControl(**(time_control or {}))
    joining = settings.PARLOUR_FIRST_JOIN_TIMEOUT + settings.PARLOUR_JOIN_TIMEOUT
    return settings.PARLOUR_DECISION_CAP * control.move_limit + seats * control.bank + joining


def match_time_limit(time_control: dict[str, Any] | None, seats: int) -> float:
    """How long the worker follows a match before it gives up on it (the reconciler adds MARGIN)."""
    limit = longest_match(time_control, seats) + MARGIN
    cap = settings.PARLOUR_MATCH_TIME_LIMIT  # an operator's shorter limit on any match
    return min(limit, cap) if cap else limit


def visibility_timeout() -> int:
    """The broker's visibility timeout: above the longest possible match at the default time
    control on the largest table (``PARLOUR_VISIBILITY_TIMEOUT`` overrides it)."""
    if settings.PARLOUR_VISIBILITY_TIMEOUT:
        return settings.PARLOUR_VISIBILITY_TIMEOUT
    return int(match_time_limit(None, LARGEST_TABLE) + MARGIN)
