"""Comparisons on the platform: a bot's owner asks whether A is stronger than B (docs/compare.md).

``start_comparison`` records the question and queues ``arena.tasks.run_comparison``, which calls
``run_recorded``: the driver (``arena.compare``) with a player, its figures saved after every batch
so the comparison's page follows it live.

In a comparison's specs, a house bot is named by its house label (``greedy``, ``random#2``) and any
other version as ``version:<pk>``; ``version_for`` turns a name back into its ``BotVersion``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from referee.games.seeding import draw_seed

from . import compare
from .models import Bot, BotVersion, Comparison


def version_name(version: BotVersion) -> str:
    return version.bot.name if version.bot.kind == Bot.HOUSE else f"version:{version.pk}"


def version_for(name: str, game: str) -> BotVersion:
    if name.startswith("version:"):
        return BotVersion.objects.select_related("bot").get(pk=int(name.split(":", 1)[1]))
    from .house import house_version

    return house_version(game, name)


def start_comparison(owner, bot: Bot, a: BotVersion, b: BotVersion, *, max_games: int = compare.DEFAULT_MAX_GAMES,
                     elo0: float = compare.DEFAULT_ELO0, elo1: float = compare.DEFAULT_ELO1,
                     alpha: float = compare.DEFAULT_ALPHA, beta: float = compare.DEFAULT_BETA) -> Comparison:
    """Record a comparison of two versions of ``bot``'s game on its standard rules, and queue it.
    Raises ``ValueError`` on settings the driver refuses."""
    if a.pk == b.pk:
        raise ValueError("A and B are the same version")
    if a.bot.game != bot.game or b.bot.game != bot.game:
        raise ValueError(f"both versions must play {bot.game}")
    checked = compare.prepare(version_name(a), version_name(b), bot.game, max_games=max_games, elo0=elo0,
                              elo1=elo1, alpha=alpha, beta=beta, seed=draw_seed() % 1_000_000_000)
    comparison = Comparison.objects.create(
        owner=owner, bot=bot, a=a, b=b, game=checked.game, variant=checked.variant, options=checked.options,
        players=checked.players, max_games=max_games, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta,
        seed=checked.seed)
    from .tasks import run_comparison

    transaction.on_commit(lambda: run_comparison.delay(comparison.pk))
    return comparison


def run_recorded(comparison_id: int, player: compare.PlayBatch | None = None) -> str:
    """Play a recorded comparison to its verdict, saving the figures after every batch."""
    record = Comparison.objects.select_related("a__bot", "b__bot").get(pk=comparison_id)
    if record.status in (Comparison.FINISHED, Comparison.FAILED):
        return record.status
    Comparison.objects.filter(pk=record.pk).update(status=Comparison.RUNNING)
    running = compare.prepare(version_name(record.a), version_name(record.b), record.game, variant=record.variant,
                              options=record.options, players=record.players, max_games=record.max_games,
                              elo0=record.elo0, elo1=record.elo1, alpha=record.alpha, beta=record.beta,
                              seed=record.seed)

    def save(progress: compare.Comparison) -> None:
        Comparison.objects.filter(pk=record.pk).update(figures=progress.to_json())

    try:
        done = compare.play(running, player or RefereePlayer(), on_progress=save)
    except Exception as exc:  # noqa: BLE001 - recorded on the comparison for its owner to read
        Comparison.objects.filter(pk=record.pk).update(status=Comparison.FAILED, error=str(exc)[:500],
                                                       finished=timezone.now())
        return Comparison.FAILED
    Comparison.objects.filter(pk=record.pk).update(status=Comparison.FINISHED, verdict=done.verdict,
                                                   figures=done.to_json(), finished=timezone.now())
    return Comparison.FINISHED


class RefereePlayer:
    """Plays each spec through the referee, every bot in its own SDK process and every uploaded bot
    in its sandbox, as the arena plays a match (no ``Match`` row is written: a comparison's games are
    not rated). Until comparisons take the one road, this is the platform's player."""

    def __call__(self, specs: Sequence[compare.GameSpec]) -> list[Mapping[str, Any]]:
        from django.conf import settings

        from bots_sdk.via_referee import play_via_referee
        from referee.timecontrol import TimeControl

        from .runner import referee, upload_root

        results = []
        for spec in specs:
            versions = [version_for(name, spec.game) for name in spec.bots]
            remote = [f"bot-{v.bot_id}" if v.bot.kind == Bot.REMOTE else "" for v in versions]
            replay = play_via_referee(
                referee(), spec.game, spec.variant, dict(spec.options), spec.seed, TimeControl(),
                [None if v.bot.kind == Bot.REMOTE else v.spec for v in versions], [v.bot.name for v in versions],
                remote, timeout=settings.MATCH_TIME_LIMIT, sandboxed=True,
                bot_roots=[upload_root(v) if v.bot.kind == Bot.UPLOAD else None for v in versions])
            if "ranks" not in (replay.get("result") or {}):
                raise RuntimeError(f"a game of the comparison was aborted: {replay.get('status', 'no result')}")
            results.append(replay["result"])
        return results

