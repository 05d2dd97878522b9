"""The platform's one fault policy, used by the referee and by in-process play alike.

A bot that times out, crashes, or answers with something that is not one of its legal actions gets
the game's default action played for it and a strike. At ``MAX_STRIKES`` strikes, or at once when
its connection is lost and not resumed within the referee's grace period, the seat is forfeited to a random autopilot (seeded from the match seed) for the rest of the match; the
match always goes on for the others.
"""
from __future__ import annotations

from dataclasses import dataclass

MAX_STRIKES = 3


@dataclass(frozen=True)
class Fault:
    seat: int
    decision: int
    reason: str  # "timeout", "crash: ...", "illegal: ...", "disconnected"
    returned: str  # what the bot returned, for the warning
    forfeited: bool  # this fault was the last strike

    def message(self, bot_name: str) -> str:
        tail = "; seat forfeited to the random autopilot" if self.forfeited else ""
        return (f"bot {bot_name!r} (seat {self.seat}) faulted on decision {self.decision}: "
                f"{self.reason}; returned {self.returned}; default action played{tail}")


class FaultPolicy:
    def __init__(self, seats: int, max_strikes: int = MAX_STRIKES) -> None:
        self.max_strikes = max_strikes
        self.strikes = [0] * seats
        self.forfeited = [False] * seats
        self.counts: list[dict[str, int]] = [{} for _ in range(seats)]
        self.last_kind: list[str | None] = [None] * seats

    def strike(self, seat: int, reason: str = "") -> bool:
        """Count a strike; True when it forfeits the seat."""
        self.strikes[seat] += 1
        kind = fault_kind(reason)
        self.counts[seat][kind] = self.counts[seat].get(kind, 0) + 1
        self.last_kind[seat] = kind
        lost = reason.startswith("disconnected")  # not resumed within the grace period
        if (lost or self.strikes[seat] >= self.max_strikes) and not self.forfeited[seat]:
            self.forfeited[seat] = True
            return True
        return False

    def statuses(self) -> list[str]:
        """Per seat: forfeited, else the kind of its last fault (timeout, error, invalid), else ok."""
        return ["forfeited" if f else (k or "ok") for f, k in zip(self.forfeited, self.last_kind)]


def fault_kind(reason: str) -> str:
    """timeout (too slow), invalid (an answer that is not a legal action for this decision),
    error (a crash or a lost connection)."""
    if reason.startswith("timeout"):
        return "timeout"
    if reason.startswith(("illegal", "invalid", "malformed", "wrong decision")):
        return "invalid"
    return "error"
