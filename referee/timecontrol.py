"""Time control: a per-move limit plus a time bank, the same in-process and through the referee.

Each decision may take ``move_limit`` seconds for free; time beyond it is drawn from the seat's
``bank``. A decision that would overdraw the bank is a timeout (a fault): its answer is discarded
and the bank is empty from then on, so a silent seat stalls its table for its bank once, not at
every decision. What the referee counts as a decision's time is in ``referee/clock.py``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

DEFAULT_MOVE_LIMIT = 1.0  # seconds
DEFAULT_BANK = 10.0  # seconds for the whole match
# the bounds a time control must respect (finite numbers only)
MIN_MOVE_LIMIT = 0.01
MAX_MOVE_LIMIT = 600.0
MAX_BANK = 3600.0


@dataclass(frozen=True)
class TimeControl:
    move_limit: float = DEFAULT_MOVE_LIMIT
    bank: float = DEFAULT_BANK

    def __post_init__(self) -> None:
        for value in (self.move_limit, self.bank):
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError("time control: the move limit and the bank must be finite numbers of seconds")
        if not MIN_MOVE_LIMIT <= self.move_limit <= MAX_MOVE_LIMIT:
            raise ValueError(f"time control: the move limit must be between {MIN_MOVE_LIMIT} and "
                             f"{MAX_MOVE_LIMIT:g} seconds, not {self.move_limit:g}")
        if not 0 <= self.bank <= MAX_BANK:
            raise ValueError(f"time control: the bank must be between 0 and {MAX_BANK:g} seconds, not {self.bank:g}")

    def to_json(self) -> dict[str, float]:
        return {"move_limit": self.move_limit, "bank": self.bank}


class SeatClock:
    """One seat's remaining bank; with ``lag_quota`` (a remote seat), its lag compensation."""

    def __init__(self, control: TimeControl, lag_quota=None) -> None:
        self.control = control
        self.bank = control.bank
        self.lag_quota = lag_quota  # a referee.clock.LagQuota, or None

    def deadline(self) -> float:
        """Seconds the next decision may take in all."""
        return self.control.move_limit + self.bank

    def lag_allowance(self) -> float:
        """Seconds a remote seat's next decision may be forgiven beyond its deadline."""
        if self.lag_quota is None or not self.lag_quota.recent:
            return 0.0
        return min(self.lag_quota.quota, min(self.lag_quota.recent))

    def exhaust(self) -> None:
        """A timeout: the bank is drawn."""
        self.bank = 0.0

    def charge(self, think_time: float) -> bool:
        """Charge a decision's time; False when it overdrew the bank (a timeout: the bank is drawn)."""
        excess = think_time - self.control.move_limit
        if self.lag_quota is not None:
            excess -= self.lag_quota.compensate(think_time, excess)
        if excess <= 0:
            return True
        self.bank -= excess
        if self.bank < 0:
            self.bank = 0.0
            return False
        return True
