"""Pure rules engines: standard library only, no I/O, no grpc, no Django."""
from .interface import (
    Action,
    ConfigError,
    GameDescription,
    GameError,
    GameState,
    IllegalActionError,
    MatchConfig,
    OptionSpec,
    PositionError,
    Variant,
)
from .registry import GAMES, get_game
from .seeding import derive_seed, draw_seed, stream

__all__ = [
    "Action", "ConfigError", "GameDescription", "GameError", "GameState", "IllegalActionError",
    "MatchConfig", "OptionSpec", "PositionError", "Variant", "GAMES", "get_game",
    "derive_seed", "draw_seed", "stream",
]
