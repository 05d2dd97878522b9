"""The ladder runs itself: beat calls ``schedule_ladder_matches`` to keep active bots playing.

Each call tops up every game's standard ladder to ``PARLOUR_LADDER_OPEN`` open matches. A table starts
from a bot drawn with weight sigma (uncertain bots play more), then takes the bots of closest
rating, or, one time in five, random ones (exploration). Bots of one owner never share a table of
3+ seats; house bots have no owner. A remote bot plays only while it is connected to a referee of the fleet
(else every seat it got would forfeit after the join timeout), and a table's remote bots are all
connected to one referee (arena.fleet.routing creates the match there).
"""
from __future__ import annotations

import logging
import random

from django.conf import settings
from django.db import transaction

from referee.games import GAMES
from referee.games.seeding import draw_seed

from ..fleet.enqueue import enqueue_matches
from ..fleet.presence_board import Where, present_bots
from ..models import Bot, BotVersion, Match, MatchSeat, Rating
from . import ladder_editions
from .ratings import MODEL, ladder_game, ladder_key
from .stats import forfeit_last

EXPLORATION = 0.2
log = logging.getLogger("parlour.arena")


def active_versions(game: str) -> list[BotVersion]:
    """The newest active version of every active bot of a game."""
    latest: dict[int, BotVersion] = {}
    for version in (BotVersion.objects.select_related("bot")
                    .filter(bot__game=game, bot__active=True, state=BotVersion.ACTIVE).order_by("number")):
        latest[version.bot_id] = version
    return list(latest.values())


def connected_remote_bots() -> dict[str, Where]:
    """The remote bots connected to any referee of the fleet now, and where (their presence in
    Redis, arena.fleet.presence_board); none if Redis cannot be asked."""
    try:
        return present_bots()
    except Exception as exc:  # noqa: BLE001 - Redis down: this tick schedules house and uploaded bots
        log.warning("could not read which remote bots are connected: %s", exc)
        return {}


def playable(versions: list[BotVersion], connected: dict[str, Where]) -> list[BotVersion]:
    return [v for v in versions if v.bot.kind != Bot.REMOTE or f"bot-{v.bot_id}" in connected]


def one_referee(table: list[BotVersion], connected: dict[str, Where]) -> bool:
    """Whether the table's remote bots are all connected to one referee (a match lives on one)."""
    places = {connected[f"bot-{v.bot_id}"].referee_id for v in table
              if v.bot.kind == Bot.REMOTE and f"bot-{v.bot_id}" in connected}
    return len(places) <= 1


def table_size(game: str, available: int) -> int:
    counts = [c for c in GAMES[game].variant(None).player_counts if c <= available]
    return max(counts) if counts else 0


def choose_table(versions: list[BotVersion], ratings: dict[int, Rating], size: int, rng: random.Random) -> list[BotVersion]:
    default = MODEL.rating()

    def mu(v: BotVersion) -> float:
        return ratings[v.pk].mu if v.pk in ratings else default.mu

    def sigma(v: BotVersion) -> float:
        return ratings[v.pk].sigma if v.pk in ratings else default.sigma

    first = rng.choices(versions, weights=[sigma(v) for v in versions])[0]
    table = [first]
    others = [v for v in versions if v is not first]
    if rng.random() < EXPLORATION:
        rng.shuffle(others)
    else:
        others.sort(key=lambda v: abs(mu(v) - mu(first)))
    for candidate in others:
        if len(table) == size:
            break
        owner = candidate.bot.owner_id
        if size >= 3 and owner is not None and any(t.bot.owner_id == owner for t in table):
            continue
        table.append(candidate)
    rng.shuffle(table)  # seats at random: no bot keeps the first seat
    return table if len(table) == size else []


def standard_ladder(game: str) -> str:
    options = GAMES[game].configure(min(GAMES[game].variant(None).player_counts)).options
    return ladder_key(game, "standard", options)


def ladder_rankings(ladder: str) -> list[dict[int, int]]:
    """Every finished match that rated this ladder, as {bot version id: rank}, a forfeited seat
    ranked last (as the ratings rank it)."""
    game, variant, _ = ladder.split("/", 2)
    seats: dict[int, list[tuple[int, int, str]]] = {}
    for match_id, options, version, rank, status in (
            MatchSeat.objects.filter(match__status=Match.FINISHED, match__game=game, match__variant=variant,
                                     rank__isnull=False)
            .values_list("match_id", "match__options", "bot_version_id", "rank", "status").order_by("match_id")):
        if ladder_key(game, variant, options) == ladder:
            seats.setdefault(match_id, []).append((version, rank, status))
    rankings = []
    for rows in seats.values():
        ranks = forfeit_last([rank for _, rank, _ in rows], [status for _, _, status in rows])
        rankings.append({version: rank for (version, _, _), rank in zip(rows, ranks)})
    return rankings


def refit_ladder(ladder: str) -> int:
    """Store the batch Plackett–Luce fit of every rated version of the ladder
    (arena.competitions.stats.batch); returns how many matches it used."""
    from .stats.batch import fit_plackett_luce

    rankings = ladder_rankings(ladder)
    fit = fit_plackett_luce(rankings)
    ratings = list(Rating.objects.filter(ladder=ladder))
    for rating in ratings:
        found = fit.get(rating.bot_version_id)
        rating.fit_elo, rating.fit_low, rating.fit_high = (found.elo, found.low, found.high) if found else (None,) * 3
    Rating.objects.bulk_update(ratings, ["fit_elo", "fit_low", "fit_high"])
    ladder_editions.renew(ladder_game(ladder))  # a bulk write sends no signal: the ladder pages show the fit
    return len(rankings)


def refit_ladders() -> int:
    """Refit every ladder that has ratings (beat calls this every few minutes)."""
    ladders = Rating.objects.order_by().values_list("ladder", flat=True).distinct()
    return sum(refit_ladder(ladder) for ladder in ladders)


def schedule_ladder_matches(rng: random.Random | None = None) -> int:
    rng = rng or random.Random()
    scheduled = []
    games = [g for g in settings.PARLOUR_LADDER_GAMES or sorted(GAMES) if g in GAMES]  # default: every game
    connected: dict[str, Where] | None = None  # read once, and only when a remote bot is on a ladder
    for game in games:
        options = GAMES[game].configure(min(GAMES[game].variant(None).player_counts)).options
        ladder = standard_ladder(game)
        open_matches = Match.objects.filter(ladder=ladder, status__in=Match.UNRECORDED).count()
        versions = active_versions(game)
        if any(v.bot.kind == Bot.REMOTE for v in versions):
            connected = connected_remote_bots() if connected is None else connected
            versions = playable(versions, connected)
        size = table_size(game, len(versions))
        if not size:
            continue
        ratings = {r.bot_version_id: r for r in Rating.objects.filter(ladder=ladder)}
        for _ in range(max(0, settings.PARLOUR_LADDER_OPEN - open_matches)):
            table = choose_table(versions, ratings, size, rng)
            if not table:
                break
            if connected and not one_referee(table, connected):
                continue
            seed = draw_seed(rng)
            with transaction.atomic():
                match = Match.objects.create(key=f"ladder/{game}/{seed}", game=game, options=options,
                                             seed=seed, ladder=ladder)
                MatchSeat.objects.bulk_create([MatchSeat(match=match, seat=i, bot_version=v)
                                               for i, v in enumerate(table)])
            scheduled.append(match.pk)
    enqueue_matches(scheduled)
    return len(scheduled)
