"""Time control: a per-move limit plus a time bank, the same in-process and through the referee.

Each decision may take ``move_limit`` seconds for free; time beyond it is drawn from the seat's
``bank``. A decision that would overdraw the bank is a timeout (a fault): its answer is discarded.
"""
from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MOVE_LIMIT = 1.0  # seconds
DEFAULT_BANK = 10.0  # seconds for the whole match


@dataclass(frozen=True)
class TimeControl:
    move_limit: float = DEFAULT_MOVE_LIMIT
    bank: float = DEFAULT_BANK

    def __post_init__(self) -> None:
        if self.move_limit <= 0 or self.bank < 0:
            raise ValueError("time control: the move limit must be > 0 and the bank >= 0")

    def to_json(self) -> dict[str, float]:
        return {"move_limit": self.move_limit, "bank": self.bank}


class SeatClock:
    """One seat's remaining bank."""

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.bank = control.bank

    def deadline(self) -> float:
        """Seconds the next decision may take in all."""
        return self.control.move_limit + self.bank

    def charge(self, think_time: float) -> bool:
        """Charge a decision's time; False when it overdrew the bank (a timeout)."""
        excess = think_time - self.control.move_limit
        if excess <= 0:
            return True
        self.bank -= excess
        if self.bank < 0:
            self.bank = 0.0
            return False
        return True
