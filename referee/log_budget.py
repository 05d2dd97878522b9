"""A seat's log lines are bounded in rate as well as in bytes (``Match.add_bot_log``): at most
``PARLOUR_LOG_LINES_PER_SECOND`` a second, with a burst of five seconds' worth; lines beyond are
dropped as they arrive (counted, not parsed further, not kept), and a seat sending ten times the
rate within one second has its stream closed (``RESOURCE_EXHAUSTED``): a flood costs the
referee's event loop a bounded number of messages, then nothing. The owner reads both in the
bot's log: ``[N log lines dropped: ...]`` and ``[the referee closed this bot's stream: ...]``.
The Python SDK keeps to the default rate before sending (``within``): its bots drop lines, with the
same note, and are never cut off for printing."""
from __future__ import annotations

KEEP, DROP, FLOOD = "keep", "drop", "flood"
RATE = 100.0  # the default of PARLOUR_LOG_LINES_PER_SECOND, which the SDK keeps to before sending
BURST_SECONDS = 5.0
FLOOD_FACTOR = 10


class LogBudget:
    """One seat's log-line budget: a token bucket (``rate`` a second, ``BURST_SECONDS`` of it),
    and a one-second window counting the lines dropped, for the flood."""

    def __init__(self, rate: float) -> None:
        self.rate = max(rate, 0.001)
        self.tokens = self.capacity = self.rate * BURST_SECONDS
        self.last: float | None = None
        self.dropped = 0  # since the last note
        self.noted = float("-inf")  # when the last note was written
        self.window_start, self.window_dropped = 0.0, 0

    def take(self, now: float) -> str:
        """``KEEP`` this line, ``DROP`` it, or ``FLOOD``: close the stream."""
        if self.last is not None:
            self.tokens = min(self.capacity, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return KEEP
        self.dropped += 1
        if now - self.window_start >= 1.0:
            self.window_start, self.window_dropped = now, 0
        self.window_dropped += 1
        return FLOOD if self.window_dropped > FLOOD_FACTOR * self.rate else DROP

    def within(self, lines: list[str], now: float) -> list[str]:
        """The lines this budget keeps, then the note of those it dropped (the SDK's side: a chatty
        bot loses lines, never its stream)."""
        kept = [line for line in lines if self.take(now) == KEEP]
        note = self.dropped_note(now)
        return kept + [note] if note else kept

    def dropped_note(self, now: float, last: bool = False) -> str | None:
        """The line that tells the owner how many were dropped since the last note, and why: at most
        one a second (a note per kept line would be a flood of its own), or now when ``last``."""
        if not self.dropped or (not last and now - self.noted < 1.0):
            return None
        self.noted = now
        note = (f"[{self.dropped} log lines dropped: more than {self.rate:g} a second "
                f"(PARLOUR_LOG_LINES_PER_SECOND, a burst of {self.capacity:g})]")
        self.dropped = 0
        return note

    def flood_reason(self) -> str:
        return (f"log flood: more than {FLOOD_FACTOR * self.rate:g} log lines in a second, "
                f"beyond the {self.rate:g} a second allowed")
