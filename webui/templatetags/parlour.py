"""Template tags: what every page needs from the arena (the games, for the navigation)."""
from __future__ import annotations

from django import template

from arena.games import game_choices

register = template.Library()


@register.simple_tag
def nav_games() -> list[tuple[str, str]]:
    """(id, name) of every game, in the registry's order."""
    return game_choices()
