"""The house bots: random, greedy and mcts of every game that has them, entered by name."""
from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, transaction

from referee.games import GAMES
from referee.games.registry import package

from ..models import Bot, BotVersion

HOUSE_SPECS = ("random", "greedy", "mcts")  # bots_sdk.loading.HOUSE_BOTS, by the same names


class UnknownBotError(ValueError):
    pass


def house_specs(game: str) -> tuple[str, ...]:
    """The house bots that play ``game``: ``random``, and ``greedy`` and ``mcts`` where its package
    gives a greedy policy and search hooks (``GamePackage.house_bots``)."""
    return package(game).house_bots


def house_version(game: str, label: str) -> BotVersion:
    """The house bot ``label`` of ``game`` ("random", "greedy", or "random#2": a repeated house bot
    is a separate entrant with its own rating), created on first use."""
    spec = label.split("#", 1)[0]
    if spec not in HOUSE_SPECS:
        raise UnknownBotError(f"unknown house bot {label!r} (allowed: {', '.join(HOUSE_SPECS)}, or NAME#N)")
    if spec not in house_specs(game):
        raise UnknownBotError(f"{game} has no {spec} house bot (its house bots: {', '.join(house_specs(game))})")
    bot, _ = Bot.objects.get_or_create(owner=None, game=game, name=label, defaults={"kind": Bot.HOUSE})
    version = bot.versions.order_by("-number").first()
    if version is None:
        try:
            with transaction.atomic():
                version = BotVersion.objects.create(bot=bot, number=1, spec=spec)
        except IntegrityError:  # another first use made it meanwhile
            version = bot.versions.get(number=1)
    return version


def ladder_house_specs() -> list[str]:
    """The house bots put on the ladders: ``PARLOUR_LADDER_HOUSE_BOTS`` (comma-separated, default all;
    an operator on small machines may leave ``mcts``, the slowest, out)."""
    chosen = settings.PARLOUR_LADDER_HOUSE_BOTS or list(HOUSE_SPECS)
    unknown = [s for s in chosen if s not in HOUSE_SPECS]
    if unknown:
        raise UnknownBotError(f"PARLOUR_LADDER_HOUSE_BOTS: unknown house bot(s) {', '.join(unknown)} "
                              f"(allowed: {', '.join(HOUSE_SPECS)})")
    return chosen


def ensure_house_bots() -> list[BotVersion]:
    """Every game's ladder house bots (those it has), created on first use."""
    return [house_version(game, spec) for game in sorted(GAMES) for spec in ladder_house_specs()
            if spec in house_specs(game)]
