"""Template tags: what pages need from the arena about the games (the navigation, the solo tables,
the viewer's assets of a game), and a duration in words."""
from __future__ import annotations

from datetime import timedelta

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


@register.filter
def in_words(duration: timedelta | float | int) -> str:
    """A duration as people say it: "15 minutes", "1 hour 30 minutes", "45 seconds" (never "0:15:00")."""
    seconds = round(duration.total_seconds() if isinstance(duration, timedelta) else float(duration))
    parts = []
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {unit}{'' if count == 1 else 's'}")
    return " ".join(parts[:2]) or "0 seconds"
