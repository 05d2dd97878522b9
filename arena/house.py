"""The house bots: random, greedy and mcts of every game, entered by name."""
from __future__ import annotations

from referee.games import GAMES

from .models import Bot, BotVersion

HOUSE_SPECS = ("random", "greedy", "mcts")  # bots_sdk.loading.HOUSE_BOTS, by the same names


class UnknownBotError(ValueError):
    pass


def house_version(game: str, label: str) -> BotVersion:
    """The house bot ``label`` of ``game`` ("random", "greedy", or "random#2": a repeated house bot
    is a separate entrant with its own rating), created on first use."""
    spec = label.split("#", 1)[0]
    if spec not in HOUSE_SPECS:
        raise UnknownBotError(f"unknown house bot {label!r} (allowed: {', '.join(HOUSE_SPECS)}, or NAME#N)")
    bot, _ = Bot.objects.get_or_create(owner=None, game=game, name=label, defaults={"kind": Bot.HOUSE})
    version = bot.versions.order_by("-number").first()
    if version is None:
        version = BotVersion.objects.create(bot=bot, number=1, spec=spec)
    return version


def ensure_house_bots() -> list[BotVersion]:
    return [house_version(game, spec) for game in sorted(GAMES) for spec in HOUSE_SPECS]
