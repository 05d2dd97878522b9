"""OpenSkill (Plackett-Luce) ratings per ladder: game, variant and rule options.

A new version starts from its predecessor's mu with sigma reset; a forfeited seat is rated last,
and never counted as a win (its autopilot's result is not its own).
The solo variant has a high-score table instead (its seat plays an automaton, not rivals).
"""
from __future__ import annotations

from typing import Any

from openskill.models import PlackettLuce

from ..models import BotVersion, Match, MatchSeat, Rating, RatingHistory
from ..road.batch_updates import update_rows
from .stats import forfeit_last

MODEL = PlackettLuce()


def ladder_key(game: str, variant: str, options: dict[str, Any]) -> str:
    rules = ",".join(f"{k}={options[k]}" for k in sorted(options))
    return f"{game}/{variant}/{rules}"


def ladder_game(key: str) -> str:
    """The game of a ladder key (``ladder_key``'s first part)."""
    return key.split("/", 1)[0]


def first_rating(ladder: str, version: BotVersion) -> Rating:
    """A version's first rating on a ladder: its predecessor's mu, a fresh sigma."""
    previous = (Rating.objects.filter(ladder=ladder, bot_version__bot=version.bot_id,
                                      bot_version__number__lt=version.number)
                .order_by("-bot_version__number").first())
    fresh = MODEL.rating()
    mu = previous.mu if previous else fresh.mu
    return Rating.objects.create(ladder=ladder, bot_version=version, mu=mu, sigma=fresh.sigma)


def ratings_of(ladder: str, version_ids: list[int]) -> list[Rating]:
    """The ladder's ratings of these versions, in their order, in one query (a version's first
    match on the ladder creates its rating)."""
    found = {r.bot_version_id: r for r in Rating.objects.filter(ladder=ladder, bot_version_id__in=version_ids)}
    missing = [pk for pk in version_ids if pk not in found]
    if missing:  # a version's first match on this ladder
        for version in BotVersion.objects.filter(pk__in=missing):
            found[version.pk] = first_rating(ladder, version)
    return [found[pk] for pk in version_ids]


def rate_match(match: Match, seats: list[MatchSeat] | None = None) -> bool:
    """Update the ratings of every seat of a recorded match (call inside its transaction);
    ``seats``: its seats as the recording just wrote them (else read here). True when it rated:
    the ratings are bulk-written, so the caller renews the game's ladder edition
    (arena.competitions.ladder_editions)."""
    if match.variant == "solo" or match.status != Match.FINISHED:
        return False
    if seats is None:
        seats = list(match.seats.all())
    version_ids = [s.bot_version_id for s in seats]
    # matches sharing a version are recorded at once by several workers: lock the versions (in one
    # order, so two recordings never wait on each other) before reading their ratings, else one
    # update is lost (PostgreSQL's read committed)
    list(BotVersion.objects.select_for_update().filter(pk__in=version_ids).order_by("pk")
         .values_list("pk", flat=True))
    ladder = ladder_key(match.game, match.variant, match.options)
    ratings = ratings_of(ladder, version_ids)
    ranks = forfeit_last([s.rank for s in seats], [s.status for s in seats])
    teams = [[MODEL.create_rating([r.mu, r.sigma])] for r in ratings]
    updated = MODEL.rate(teams, ranks=ranks)
    for rank, rating, team in zip(ranks, ratings, updated):
        rating.mu, rating.sigma = team[0].mu, team[0].sigma
        rating.conservative = rating.mu - 3 * rating.sigma  # what Rating.save keeps; update_rows skips save
        rating.games += 1
        rating.wins += rank == 1
    # one UPDATE and one INSERT for all seats; only the live rating's columns (a refit writes the fit's)
    update_rows(ratings, ["mu", "sigma", "conservative", "games", "wins"])
    RatingHistory.objects.bulk_create([RatingHistory(rating=r, match=match, mu=r.mu, sigma=r.sigma) for r in ratings])
    return True
