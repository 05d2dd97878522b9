"""One greedy house bot per game, found by game id."""
from __future__ import annotations

import importlib

from ..bot import Bot


def greedy_bot_class(game_id: str) -> type[Bot]:
    """The ``GreedyBot`` of ``bots_sdk.greedy.<game module>``."""
    module = importlib.import_module(f"{__name__}.{game_id.replace('-', '_')}")
    return module.GreedyBot
