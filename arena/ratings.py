"""OpenSkill (Plackett-Luce) ratings per ladder: game, variant and rule options.

A new version starts from its predecessor's mu with sigma reset; a forfeited seat is rated last,
and never counted as a win (its autopilot's result is not its own).
The solo variant has a high-score table instead (its seat plays an automaton, not rivals).
"""
from __future__ import annotations

from typing import Any

from openskill.models import PlackettLuce

from .models import BotVersion, Match, Rating, RatingHistory
from .stats import forfeit_last

MODEL = PlackettLuce()


def ladder_key(game: str, variant: str, options: dict[str, Any]) -> str:
    rules = ",".join(f"{k}={options[k]}" for k in sorted(options))
    return f"{game}/{variant}/{rules}"


def ladder_game(key: str) -> str:
    """The game of a ladder key (``ladder_key``'s first part)."""
    return key.split("/", 1)[0]


def rating_for(ladder: str, version: BotVersion) -> Rating:
    existing = Rating.objects.filter(ladder=ladder, bot_version=version).first()
    if existing:
        return existing
    previous = (Rating.objects.filter(ladder=ladder, bot_version__bot=version.bot,
                                      bot_version__number__lt=version.number)
                .order_by("-bot_version__number").first())
    fresh = MODEL.rating()
    mu = previous.mu if previous else fresh.mu
    return Rating.objects.create(ladder=ladder, bot_version=version, mu=mu, sigma=fresh.sigma)


def rate_match(match: Match) -> None:
    """Update the ratings of every seat of a recorded match (call inside its transaction)."""
    if match.variant == "solo" or match.status != Match.FINISHED:
        return
    seats = list(match.seats.select_related("bot_version__bot"))
    # matches sharing a version are recorded at once by several workers: lock the versions (in one
    # order, so two recordings never wait on each other) before reading their ratings, else one
    # update is lost (PostgreSQL's read committed)
    list(BotVersion.objects.select_for_update().filter(pk__in=[s.bot_version_id for s in seats]).order_by("pk")
         .values_list("pk", flat=True))
    ladder = ladder_key(match.game, match.variant, match.options)
    ratings = [rating_for(ladder, s.bot_version) for s in seats]
    ranks = forfeit_last([s.rank for s in seats], [s.status for s in seats])
    teams = [[MODEL.create_rating([r.mu, r.sigma])] for r in ratings]
    updated = MODEL.rate(teams, ranks=ranks)
    for rank, rating, team in zip(ranks, ratings, updated):
        rating.mu, rating.sigma = team[0].mu, team[0].sigma
        rating.games += 1
        rating.wins += rank == 1
        rating.save()
        RatingHistory.objects.create(rating=rating, match=match, mu=rating.mu, sigma=rating.sigma)
