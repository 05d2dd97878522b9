"""Template tags: what pages need from the arena about the games (the navigation, the solo tables,
the viewer's assets of a game)."""
from __future__ import annotations

from django import template

from arena.games import game_choices, solo_games, viewer_assets

register = template.Library()


@register.simple_tag
def nav_games() -> list[tuple[str, str]]:
    """(id, name) of every game, in the registry's order."""
    return game_choices()


@register.simple_tag
def games_with_solo() -> list[str]:
    """The ids of the games with a solo variant (a high-score table)."""
    return solo_games()


@register.simple_tag
def game_viewer_assets(game: str | None) -> dict[str, list[str]]:
    """The static paths of the game's renderer and styles (none: the viewer draws it generically)."""
    return viewer_assets(game or "")
