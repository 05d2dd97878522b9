"""Tournaments on top of the pure pairing library: creating, pairing rounds, advancing, standings.

A round robin's rounds are all known at the start, so every match is scheduled at once. A Swiss
round is paired when the last result of the round before is recorded (inside the transaction that
locks the tournament, so two workers finishing at once pair it once).
"""
from __future__ import annotations

import math
from collections import defaultdict
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from referee.games import GAMES, ConfigError
from referee.games.seeding import derive_seed, draw_seed, keyed_seed

from ..bots.house_entrants import HOUSE_SPECS, UnknownBotError, house_version
from ..fleet.enqueue import enqueue_matches
from ..models import Bot, BotVersion, Entry, Match, MatchSeat, Round, Tournament
from . import pairing

SEED_MASK = (1 << 63) - 1


class TournamentError(ValueError):
    """Bad input for a tournament: one line for the user."""


# ---------------------------------------------------------------------- creating
def entrant_version(game: str, label: str) -> BotVersion:
    """A house bot by name ("greedy", "random#2") or a registered bot by name or ``bot-<id>``."""
    if label.split("#", 1)[0] in HOUSE_SPECS:
        return house_version(game, label)
    query = Bot.objects.filter(game=game, active=True)
    bot = query.filter(pk=int(label[4:])).first() if label.startswith("bot-") and label[4:].isdigit() else \
        query.filter(name=label).first()
    version = bot.versions.filter(state=BotVersion.ACTIVE).order_by("-number").first() if bot else None
    if version is None:
        raise TournamentError(f"no active {game} bot named {label!r} (house bots: {', '.join(HOUSE_SPECS)})")
    return version


def number_repeated_house_bots(labels: list[str]) -> list[str]:
    """Each repeat of a house bot becomes its own entrant: random, random, random -> random, random#2,
    random#3 (skipping numbers named explicitly). A registered bot may be named once only."""
    given = set(labels)
    seen: set[str] = set()
    numbered = []
    for label in labels:
        base = label.split("#", 1)[0]
        if label in seen:
            if base not in HOUSE_SPECS:
                raise TournamentError(f"{label!r} is named twice: a registered bot enters a tournament once")
            label = next(f"{base}#{k}" for k in range(2, len(labels) + 2)
                         if f"{base}#{k}" not in given | seen)
        seen.add(label)
        numbered.append(label)
    return numbered


def create_tournament(game: str, format: str, bots: list[str], *, variant: str = "standard",
                      options: dict[str, Any] | None = None, rounds: int | None = None,
                      table_size: int | None = None, duplicate: bool = False, seed: int | None = None,
                      name: str | None = None, starts_at: datetime | None = None) -> Tournament:
    """A tournament with these entrants; with ``starts_at``, open for entries until then (it may
    start with none: others enter with ``enter_tournament``; the beat starts it at that time)."""
    if game not in GAMES:
        raise TournamentError(f"unknown game {game!r} (allowed: {', '.join(sorted(GAMES))})")
    if variant == "solo":
        raise TournamentError("the solo variant has a high-score table, not tournaments")
    description = GAMES[game]
    try:
        spec = description.variant(variant)
        # tables as large as the entrants allow (two Tussie Mussie entrants play 2-player tables)
        fits = [c for c in spec.player_counts if c <= len(bots)] if starts_at is None else []
        size = table_size or (max(fits) if fits else max(spec.player_counts))
        config = description.configure(size, variant, options or {})
    except ConfigError as exc:
        raise TournamentError(str(exc)) from None
    if starts_at is None and table_size is None and not fits and len(bots) >= 2:
        raise TournamentError(f"{description.name} needs at least {min(spec.player_counts)} entrants at a table")
    if format not in (Tournament.SWISS, Tournament.ROUND_ROBIN):
        raise TournamentError(f"unknown format {format!r} (allowed: swiss, round-robin)")
    bots = number_repeated_house_bots(bots)
    if len(bots) < 2 and starts_at is None:
        raise TournamentError("a tournament needs at least two entrants")
    try:
        versions = [entrant_version(game, label) for label in bots]
    except UnknownBotError as exc:
        raise TournamentError(str(exc)) from None
    if duplicate and any(v.bot.kind == Bot.REMOTE for v in versions):
        raise TournamentError("duplicate tournaments take no remote bots (they could remember a deal)")
    sizes = [size]
    if format == Tournament.SWISS and rounds is None and starts_at is None:
        rounds = swiss_rounds(len(bots))
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name or f"{description.name} {format} ({len(bots)} bots)", game=game, variant=config.variant,
            options=config.options, format=format, rounds=rounds or 0, table_size=size, table_sizes=sizes,
            duplicate=duplicate, seed=(seed if seed is not None else draw_seed()) & SEED_MASK, starts_at=starts_at)
        Entry.objects.bulk_create([Entry(tournament=tournament, bot_version=v, label=label)
                                   for label, v in zip(bots, versions)])
        if format == Tournament.ROUND_ROBIN and starts_at is None:  # open entry: at the start
            schedule = round_robin_schedule(tournament)
            tournament.rounds = len(schedule.rounds)
            tournament.save(update_fields=["rounds"])
    return tournament


def swiss_rounds(entrants: int) -> int:
    """A Swiss's rounds when none were asked for: enough to tell the entrants apart, at least 3."""
    return max(3, math.ceil(math.log(max(entrants, 2), 2)))


MAX_OPEN_ENTRANTS = 32  # an open tournament's entries, all comers together


def enter_tournament(tournament: Tournament, bot: Bot) -> Entry:
    """Enter ``bot``'s active version in an open tournament (raises ``TournamentError`` saying why not:
    entry closed, another game, no active version, entered already, full)."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if not tournament.open_for_entries():
            raise TournamentError("entries are closed: the tournament has started or was not open for entries")
        if bot.game != tournament.game or not bot.active or bot.deleted is not None:
            raise TournamentError(f"{bot.name} is not an active bot of this tournament's game")
        version = bot.versions.filter(state=BotVersion.ACTIVE).order_by("-number").first()
        if version is None:
            raise TournamentError(f"{bot.name} has no accepted version yet")
        if tournament.entries.filter(bot_version__bot=bot).exists():
            raise TournamentError(f"{bot.name} is entered already")
        if tournament.entries.count() >= MAX_OPEN_ENTRANTS:
            raise TournamentError(f"the tournament is full ({MAX_OPEN_ENTRANTS} entrants)")
        return Entry.objects.create(tournament=tournament, bot_version=version, label=f"bot-{bot.pk}")


def start_due_tournaments(now: datetime | None = None) -> list[int]:
    """Open tournaments whose start time has come (the beat calls this): started with what their
    entries are then, or cancelled with fewer than two. The ids of those started."""
    now = now or timezone.now()
    started = []
    for pk in Tournament.objects.filter(status=Tournament.CREATED, starts_at__lte=now).values_list("pk", flat=True):
        with transaction.atomic():
            tournament = Tournament.objects.select_for_update().get(pk=pk)
            if tournament.status != Tournament.CREATED:
                continue
            entries = tournament.entries.count()
            # tables as large as the entrants allow, up to the size asked for
            fits = [c for c in GAMES[tournament.game].variant(tournament.variant).player_counts
                    if 2 <= c <= min(entries, tournament.table_size)]
            if entries < 2 or not fits:
                tournament.status = Tournament.CANCELLED
                tournament.save(update_fields=["status"])
                continue
            tournament.table_size, tournament.table_sizes = max(fits), [max(fits)]
            if tournament.format == Tournament.SWISS and not tournament.rounds:
                tournament.rounds = swiss_rounds(entries)
            elif tournament.format == Tournament.ROUND_ROBIN:
                tournament.rounds = len(round_robin_schedule(tournament).rounds)
            tournament.save(update_fields=["rounds", "table_size", "table_sizes"])
        start_tournament(tournament)
        started.append(pk)
    return started


def entrants(tournament: Tournament) -> tuple[list[str], dict[str, Entry], dict[str, int | None]]:
    entries = list(tournament.entries.select_related("bot_version__bot").order_by("pk"))
    by_label = {e.label: e for e in entries}
    owners = {e.label: e.bot_version.bot.owner_id for e in entries}
    return [e.label for e in entries], by_label, owners


def round_robin_schedule(tournament: Tournament) -> pairing.RoundRobin:
    labels, _, owners = entrants(tournament)
    import random

    return pairing.round_robin(labels, table_size=tournament.table_size, owners=owners,
                               rng=random.Random(tournament.seed))


# ---------------------------------------------------------------------- rounds
def start_tournament(tournament: Tournament) -> None:
    """Schedule the first round (a round robin: every round); idempotent. Run again, it resumes:
    the scheduled matches are queued again and a halted tournament's unplayed matches played again."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if tournament.round_set.exists() or tournament.status == Tournament.FINISHED:
            play_unplayed_again(tournament)
            if tournament.status == Tournament.HALTED:
                tournament.status = Tournament.RUNNING
                tournament.save(update_fields=["status"])
            matches = list(tournament.matches.filter(status__in=[Match.SCHEDULED]).values_list("pk", flat=True))
            transaction.on_commit(lambda: advance(tournament.pk))  # a round over but not yet followed
        else:
            tournament.status = Tournament.RUNNING
            tournament.save(update_fields=["status"])
            if tournament.format == Tournament.ROUND_ROBIN:
                matches = []
                for number, planned in enumerate(round_robin_schedule(tournament).rounds, 1):
                    matches += create_round(tournament, number, planned.tables, planned.byes)
            else:
                matches = pair_swiss_round(tournament, 1)
    schedule(matches)


def play_unplayed_again(tournament: Tournament) -> list[int]:
    """An operator's "play these again" (``tournament run ID``): the tournament's matches aborted
    unplayed (arena.road.lifecycle, at the platform's failure cap) go back to scheduled, their
    failures forgotten. Returns their ids."""
    again = [m.pk for m in tournament.matches.filter(status=Match.ABORTED) if m.unplayed]
    Match.objects.filter(pk__in=again).update(status=Match.SCHEDULED, result=None, finished=None, worker="",
                                              failures=0, due=timezone.now())
    return again


def schedule(match_ids: list[int]) -> None:
    transaction.on_commit(lambda: enqueue_matches(match_ids))


def played_tables(tournament: Tournament) -> tuple[list[pairing.PlayedTable], list[pairing.Bye]]:
    tables = []
    for match in tournament.matches.filter(status=Match.FINISHED).prefetch_related("seats__entry").order_by("pk"):
        seats = list(match.seats.all())
        deal = (match.round_id, match.seed) if tournament.duplicate else None
        tables.append(pairing.PlayedTable([s.entry.label for s in seats], [s.rank for s in seats], deal))
    byes = []
    for round_ in tournament.round_set.order_by("number"):
        points = (pairing.duplicate_bye_points(tournament.table_size, 1) if tournament.duplicate
                  else pairing.BYE_POINTS)
        byes += [pairing.Bye(label, points) for label in round_.byes]
    return tables, byes


def pair_swiss_round(tournament: Tournament, number: int) -> list[int]:
    labels, _, owners = entrants(tournament)
    tables, byes = played_tables(tournament)
    paired = pairing.swiss_round(labels, tables, byes, table_size=tournament.table_size,
                                 sizes=tournament.table_sizes or None, owners=owners)
    return create_round(tournament, number, paired.tables, paired.byes, paired.repeat_rate)


def create_round(tournament: Tournament, number: int, tables: list[list[str]], byes: list[str],
                 repeat_rate: float = 0.0) -> list[int]:
    """The round's matches (duplicate: each table's deal in every rotation of its seats)."""
    _, by_label, _ = entrants(tournament)
    round_ = Round.objects.create(tournament=tournament, number=number, byes=list(byes), repeat_rate=repeat_rate)
    created = []
    game = GAMES[tournament.game]
    colours = list(getattr(game.state_class, "DEFAULT_COLOURS", ()))
    # a tournament's seed may be chosen by a person: on the platform its match seeds are keyed
    # with the secret PARLOUR_SEED_KEY, so nobody can compute a match's deal from it
    key = settings.PARLOUR_SEED_KEY
    if tournament.duplicate:
        deal = keyed_seed(key, tournament.seed, "deal", number) if key else pairing.deal_seeds(tournament.seed, number, 1)[0]
        deal &= SEED_MASK
        plan = [(t.group, t.rotation, list(t.table), deal) for t in pairing.duplicate_round(tables, [deal])]
    else:
        derive = (lambda *labels: keyed_seed(key, *labels)) if key else derive_seed
        plan = [(board, 0, table, derive(tournament.seed, "table", number, board))
                for board, table in enumerate(tables)]
    for board, rotation, table, seed in plan:
        match = Match.objects.create(key=f"t{tournament.pk}/r{number}/b{board}/rot{rotation}",
                                     game=tournament.game, variant=tournament.variant, options=tournament.options,
                                     seed=seed, tournament=tournament, round=round_)
        seats = []
        for seat, label in enumerate(table):
            attributes = {}
            if tournament.duplicate and colours:  # colours rotate with the seats
                attributes = {"colour": pairing.rotate(colours[:len(table)], rotation)[seat]}
            seats.append(MatchSeat(match=match, seat=seat, bot_version=by_label[label].bot_version,
                                   entry=by_label[label], attributes=attributes))
        MatchSeat.objects.bulk_create(seats)
        created.append(match.pk)
    return created


def after_match(match: Match) -> None:
    """Called once a match is recorded: pair the next Swiss round, or finish the tournament, when
    the match was the last of its round. A round with a match aborted unplayed (the platform's
    cap, an operator) halts the tournament instead: no round is paired from incomplete results
    and no tournament finishes with a match unplayed."""
    if match.tournament_id is not None:
        advance(match.tournament_id)


def advance(tournament_id: int) -> None:
    """Move a tournament on if its round is over (idempotent: a resumed run and the reconciler call
    it too, for a worker killed between recording a round's last match and pairing the next)."""
    if has_unrecorded_matches(tournament_id):
        return
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        if not tournament.round_set.exists():
            return
        if tournament.status == Tournament.FINISHED:
            return
        if has_unrecorded_matches(tournament_id):  # again, under the lock
            return
        if any(m.unplayed for m in tournament.matches.filter(status=Match.ABORTED)):
            tournament.status = Tournament.HALTED
            tournament.save(update_fields=["status"])
            return
        played_rounds = tournament.round_set.count()
        if tournament.format == Tournament.SWISS and played_rounds < tournament.rounds:
            schedule(pair_swiss_round(tournament, played_rounds + 1))
        else:
            tournament.status = Tournament.FINISHED
            tournament.save(update_fields=["status"])


def has_unrecorded_matches(tournament_id: int) -> bool:
    """Whether a match of the tournament is still to be recorded: then there is nothing to move on,
    and no need to lock the tournament to see it (most recordings end here). Safe unlocked: each
    recording commits before it asks, so of the last matches recorded at once, the last to ask
    sees them all recorded and moves on under the lock."""
    return Match.objects.filter(tournament_id=tournament_id, status__in=Match.UNRECORDED).exists()


# ---------------------------------------------------------------------- progress
def progress(tournament: Tournament) -> dict[str, Any]:
    """How far a tournament is: its matches by state, and the unplayed ones with their reasons."""
    counts = {state: 0 for state in ("scheduled", "running", "finished", "aborted", "retried")}
    unplayed = []
    for match in tournament.matches.order_by("pk"):
        counts[match.status] += 1
        if match.status == Match.SCHEDULED and match.failures:
            counts["retried"] += 1
        if match.unplayed:
            unplayed.append({"key": match.key, "reason": match.result["aborted"]})
    return {"status": tournament.status, "matches": sum(counts[s] for s in Match.STATES), **counts,
            "unplayed": unplayed}


def progress_note(tournament: Tournament) -> str:
    """One line for the user when the standings are not final; "" when they are."""
    p = progress(tournament)
    if tournament.status == Tournament.FINISHED:
        return ""
    if tournament.status == Tournament.HALTED:
        reasons = "; ".join(f"{u['key']}: {u['reason']}" for u in p["unplayed"][:3])
        return (f"HALTED: {len(p['unplayed'])} match(es) aborted unplayed ({reasons}). The standings are "
                f"incomplete; `python -m arena tournament run {tournament.pk}` plays them again.")
    waiting = p["scheduled"] + p["running"]
    retried = f", {p['retried']} waiting for the platform (retried)" if p["retried"] else ""
    return (f"NOT FINISHED: {p['finished']} of {p['matches']} matches played so far, {waiting} unplayed{retried}; "
            f"{tournament.rounds} rounds planned. The standings are provisional.")


# ---------------------------------------------------------------------- standings
def standings(tournament: Tournament) -> list[dict[str, Any]]:
    labels, _, _ = entrants(tournament)
    tables, byes = played_tables(tournament)
    rows = pairing.standings(tables, byes, labels, duplicate=tournament.duplicate)
    return [{"rank": r.rank, "label": r.entrant, "points": float(r.points), "buchholz": float(r.buchholz),
             "sonneborn_berger": float(r.sonneborn_berger), "tables": r.tables, "byes": r.byes} for r in rows]


def crosstable(tournament: Tournament, labels: list[str]) -> list[dict[str, Any]]:
    """Points of each entrant against each other: at a table of k seats, rank r earns
    (k - r) / (k - 1), credited against every other entrant of the table."""
    points: dict[tuple[str, str], float] = defaultdict(float)
    met: set[tuple[str, str]] = set()
    for match in tournament.matches.filter(status=Match.FINISHED).prefetch_related("seats__entry"):
        seats = [s for s in match.seats.all() if s.entry_id is not None and s.rank is not None]
        k = len(seats)
        if k < 2:
            continue
        for a in seats:
            earned = (k - a.rank) / (k - 1)
            for b in seats:
                if a.entry_id != b.entry_id:
                    points[(a.entry.label, b.entry.label)] += earned
                    met.add((a.entry.label, b.entry.label))
    return [{"label": a, "cells": [None if a == b else (round(points[(a, b)], 2) if (a, b) in met else "")
                                    for b in labels]} for a in labels]
