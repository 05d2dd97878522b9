"""A second random bot: as strong as ``random`` but drawing from another stream, so that on a
duplicate deal it does not copy the house random bot's moves (two house random bots in swapped
seats play identical games)."""
from __future__ import annotations

import random
from typing import Any

from bots_sdk import Bot, Decision


class OtherRandomBot(Bot):
    def on_match_start(self, game: str, seat: int, options: dict[str, Any], seed: int) -> None:
        self.rng = random.Random(f"other-{seed}")

    def decide(self, decision: Decision) -> dict[str, Any]:
        return self.rng.choice(decision.legal_actions)
