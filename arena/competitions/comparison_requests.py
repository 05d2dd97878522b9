"""Comparisons on the platform: a bot's owner asks whether A is stronger than B (docs/compare.md).

``start_comparison`` records the question and queues ``arena.tasks.run_comparison``
(arena.fleet.tasks), which calls ``run_recorded``: the driver (``sequential_comparison``) with a
player, its figures saved after every batch so the comparison's page follows it live.

In a comparison's specs, a house bot is named by its house label (``greedy``, ``random#2``) and any
other version as ``version:<pk>``; ``version_for`` turns a name back into its ``BotVersion``.
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from celery import current_task
from django.db import transaction
from django.utils import timezone

from referee.games.seeding import draw_seed

from ..fleet import webhooks
from ..fleet.enqueue import enqueue_comparison
from ..models import Bot, BotVersion, Comparison, Match, MatchSeat
from . import sequential_comparison as sequential


def version_name(version: BotVersion) -> str:
    return version.bot.name if version.bot.kind == Bot.HOUSE else f"version:{version.pk}"


def version_for(name: str, game: str) -> BotVersion:
    if name.startswith("version:"):
        return BotVersion.objects.select_related("bot").get(pk=int(name.split(":", 1)[1]))
    from ..bots.house_entrants import house_version

    return house_version(game, name)


def start_comparison(owner, bot: Bot, a: BotVersion, b: BotVersion, *, max_games: int = sequential.DEFAULT_MAX_GAMES,
                     elo0: float = sequential.DEFAULT_ELO0, elo1: float = sequential.DEFAULT_ELO1,
                     alpha: float = sequential.DEFAULT_ALPHA, beta: float = sequential.DEFAULT_BETA) -> Comparison:
    """Record a comparison of two versions of ``bot``'s game on its standard rules, and queue it.
    Raises ``ValueError`` on settings the driver refuses."""
    if a.pk == b.pk:
        raise ValueError("A and B are the same version")
    if a.bot.game != bot.game or b.bot.game != bot.game:
        raise ValueError(f"both versions must play {bot.game}")
    checked = sequential.prepare(version_name(a), version_name(b), bot.game, max_games=max_games, elo0=elo0,
                                 elo1=elo1, alpha=alpha, beta=beta, seed=draw_seed() % 1_000_000_000)
    comparison = Comparison.objects.create(
        owner=owner, bot=bot, a=a, b=b, game=checked.game, variant=checked.variant, options=checked.options,
        players=checked.players, max_games=max_games, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta,
        seed=checked.seed)
    transaction.on_commit(lambda: enqueue_comparison(comparison.pk))
    return comparison


class Cancelled(Exception):
    """The owner cancelled the comparison: it stops before its next game."""


def cancel_comparison(comparison: Comparison) -> bool:
    """Cancel a comparison that is still to play or playing (its owner's button): its driver stops
    before its next game, the figures so far kept. False when it had already ended."""
    return bool(Comparison.objects.filter(pk=comparison.pk, status__in=(Comparison.SCHEDULED, Comparison.RUNNING))
                .update(status=Comparison.CANCELLED, finished=timezone.now()))


def stop_if_cancelled(comparison_id: int) -> None:
    if Comparison.objects.filter(pk=comparison_id, status=Comparison.CANCELLED).exists():
        raise Cancelled


def run_recorded(comparison_id: int, player: sequential.PlayBatch | None = None) -> str:
    """Play a recorded comparison to its verdict, saving the figures after every batch (and
    stopping, its figures kept, once its owner cancels it)."""
    record = Comparison.objects.select_related("a__bot", "b__bot").get(pk=comparison_id)
    if record.status in (Comparison.FINISHED, Comparison.FAILED, Comparison.CANCELLED):
        return record.status
    Comparison.objects.filter(pk=record.pk, status=Comparison.SCHEDULED).update(status=Comparison.RUNNING)
    running = sequential.prepare(version_name(record.a), version_name(record.b), record.game, variant=record.variant,
                                 options=record.options, players=record.players, max_games=record.max_games,
                                 elo0=record.elo0, elo1=record.elo1, alpha=record.alpha, beta=record.beta,
                                 seed=record.seed)

    def save(progress: sequential.Comparison) -> None:
        Comparison.objects.filter(pk=record.pk).update(figures=progress.to_json())
        if progress.verdict is None:
            stop_if_cancelled(record.pk)

    ongoing = Comparison.objects.filter(pk=record.pk).exclude(status=Comparison.CANCELLED)
    try:
        done = sequential.play(running, player or RoadPlayer(record.pk), on_progress=save)
    except Cancelled:
        return Comparison.CANCELLED
    except Exception as exc:  # noqa: BLE001 - recorded on the comparison for its owner to read
        ongoing.update(status=Comparison.FAILED, error=str(exc)[:500], finished=timezone.now())
        webhooks.comparison_decided(Comparison.objects.select_related("a__bot", "b__bot").get(pk=record.pk))
        return Comparison.FAILED
    ongoing.update(status=Comparison.FINISHED, verdict=done.verdict, figures=done.to_json(), finished=timezone.now())
    webhooks.comparison_decided(Comparison.objects.select_related("a__bot", "b__bot").get(pk=record.pk))
    return Comparison.FINISHED


class RoadPlayer:
    """Plays a comparison's games on the one road: each game is a ``Match`` (unrated, keyed by the
    comparison and its deal, so a comparison that is run again finds its games already played),
    claimed, played by the arena's runner and recorded by the one recording function, as a worker
    plays any match (arena.road.lifecycle): when the platform fails a game it is handed back, played
    again by the workers after its back-off, and waited for here."""

    def __init__(self, comparison_id: int, poll: float = 1.0) -> None:
        self.comparison_id = comparison_id
        self.poll = poll

    def __call__(self, specs: Sequence[sequential.GameSpec]) -> list[Mapping[str, Any]]:
        results = []
        for spec in specs:
            stop_if_cancelled(self.comparison_id)  # a batch is up to 16 games: stop between games
            key = f"compare/{self.comparison_id}/{spec.seed}/{spec.a_seat}"
            match = Match.objects.filter(key=key).first()
            if match is None:
                with transaction.atomic():
                    match = Match.objects.create(key=key, game=spec.game, variant=spec.variant,
                                                 options=dict(spec.options), seed=spec.seed, rated=False)
                    MatchSeat.objects.bulk_create([MatchSeat(match=match, seat=i, bot_version=version_for(name, spec.game))
                                                   for i, name in enumerate(spec.bots)])
            match = self.played(match)
            if match.status != Match.FINISHED:
                raise RuntimeError(f"a game of the comparison was not played: {match.result}")
            results.append(match.result)
        return results

    def played(self, match: Match) -> Match:
        """The game once recorded: played here if it is free, else (handed back, or taken by a
        worker) waited for."""
        from ..fleet import heartbeats
        from ..road.lifecycle import play_once

        task = current_task
        play_once(match.pk, heartbeats.identity(task.request.hostname if task else None))
        match.refresh_from_db()
        while match.status not in (Match.FINISHED, Match.ABORTED):
            time.sleep(self.poll)
            match.refresh_from_db()
        return match
