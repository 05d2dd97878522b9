"""The ``Bot`` base class and the uniformly random bot."""
from __future__ import annotations

import random
from typing import Any

from .decision import Decision


class Bot:
    """Subclass and implement :meth:`decide`. The hooks are optional.

    ``self.log(text)`` writes a line that lands in the replay, shown to the bot's owner only.
    """

    name: str = ""

    def __init__(self) -> None:
        self._log_lines: list[str] = []
        self.seat: int | None = None
        self.seed: int = 0
        self.rng = random.Random(0)

    # --- what a bot author writes --------------------------------------------------------
    def decide(self, decision: Decision) -> dict[str, Any]:
        """Return one of ``decision.legal_actions``."""
        raise NotImplementedError

    def on_match_start(self, game: str, seat: int, options: dict[str, Any], seed: int) -> None:
        """Called once before the first decision; ``seed`` is this bot's own (never the match's)."""

    def on_match_end(self, result: dict[str, Any]) -> None:
        """Called once with the match result."""

    # --- provided --------------------------------------------------------------------------
    def log(self, text: str) -> None:
        self._log_lines.append(str(text)[:2000])

    def take_log_lines(self) -> list[str]:
        lines, self._log_lines = self._log_lines, []
        return lines

    def start(self, game: str, seat: int, options: dict[str, Any], seed: int) -> None:
        """Platform entry point: seeds ``self.rng`` from the bot's seed, then calls the hook."""
        self.seat, self.seed = seat, seed
        self.rng = random.Random(seed)
        self.on_match_start(game, seat, options, seed)


class RandomBot(Bot):
    """Plays uniformly at random among the legal actions, from its own seed."""

    name = "random"

    def decide(self, decision: Decision) -> dict[str, Any]:
        return self.rng.choice(decision.legal_actions)
