"""The games as the platform sees them, derived from ``referee.games`` (the only list of games):
the models' choices, the site's navigation, the check match's table size. A new game in the
registry appears here with no other change (and no migration: the choices are a callable)."""
from __future__ import annotations

from dataclasses import dataclass

from referee.games import GAMES


@dataclass(frozen=True)
class GameInfo:
    id: str
    name: str
    player_counts: tuple[int, ...]  # of the default variant

    @property
    def smallest_table(self) -> int:
        return min(self.player_counts)


def games() -> list[GameInfo]:
    """Every game, in the registry's order."""
    return [GameInfo(g.id, g.name, tuple(g.variant(None).player_counts)) for g in GAMES.values()]


def game_info(game_id: str) -> GameInfo | None:
    return next((g for g in games() if g.id == game_id), None)


def card_texts(game_id: str) -> dict[str, dict[str, str]]:
    """Every card of a game by id, its name and what it does (the replay viewer's tooltips); {} for
    an unknown game."""
    game = GAMES.get(game_id)
    return dict(game.card_texts) if game else {}


def game_choices() -> list[tuple[str, str]]:
    """For the models' ``game`` fields and the site's forms."""
    return [(g.id, g.name) for g in games()]
