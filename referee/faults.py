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
    reason: str  # "timeout: ...", "crash: ...", "failed to import: ...", "illegal: returned ...", "disconnected"
    returned: str  # what the bot returned (its repr; named in the reason of an illegal answer)
    forfeited: bool  # this fault was the last strike
    own_decision: int = 0  # the seat's own count of the decisions it was asked, this one included

    def message(self, bot_name: str) -> str:
        """Counted the way the bot counts (its own decisions), the match's decision id beside it."""
        tail = "; seat forfeited to the random autopilot" if self.forfeited else ""
        return (f"bot {bot_name!r} (seat {self.seat}) faulted on its decision {self.own_decision} "
                f"(decision {self.decision} of the match): {self.reason}; default action played{tail}")


# The reasons, built here only, so local play and the referee word every fault alike.
def illegal_reason(returned: str, legal_count: int) -> str:
    """An answer that is neither an index into the legal actions nor one of them."""
    return (f"illegal: returned {returned}, not a legal action "
            f"(an index 0..{legal_count - 1} or one of the {legal_count} legal actions)")


def timeout_reason(move_limit: float, bank: float) -> str:
    """No answer within the decision's deadline: the move limit plus the bank left before it."""
    return (f"timeout: no answer within {move_limit + bank:.2f} s "
            f"(the {move_limit:g} s move limit + {bank:.2f} s of bank left)")


BOT_FAILURES = ("crash: ", "failed to import: ", "failed to start: ")


def bot_failure_reason(text: str) -> str:
    """A failure the bot's own side reported (an exception in ``decide``, a module that does not
    import): kept as said, under one of the known prefixes (so it never poses as another kind)."""
    text = " ".join(text.split())[:500]
    return text if text.startswith(BOT_FAILURES) else f"crash: {text}"


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
