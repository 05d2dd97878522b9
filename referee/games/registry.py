"""Every game by its id."""
from __future__ import annotations

from .interface import ConfigError, GameDescription
from .tricky_twist.engine import GAME as TRICKY_TWIST
from .misty.engine import GAME as MISTY
from .tussie_mussie.engine import GAME as TUSSIE_MUSSIE
from .bszzzz.engine import GAME as BSZZZZ

GAMES: dict[str, GameDescription] = {game.id: game for game in (TUSSIE_MUSSIE, MISTY, BSZZZZ, TRICKY_TWIST)}


def get_game(game_id: str) -> GameDescription:
    try:
        return GAMES[game_id]
    except KeyError:
        raise ConfigError(
            f"unknown game {game_id!r} (allowed: {', '.join(sorted(GAMES))})"
        ) from None
