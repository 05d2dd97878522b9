"""Challenges and comparisons, started by a bot's owner with a ``play``-scope token, as from the
bot's page (webui.views.challenges, webui.views.comparisons: the same checks and quota), and
followed: a challenge is a match (webui.api.matches), a comparison has its status, figures and verdict
(its owner only: anybody else's is 404)."""
from __future__ import annotations

import re

from django.conf import settings
from django.http import Http404
from django.shortcuts import get_object_or_404
from ninja import Router, Schema, Status
from ninja.errors import HttpError

from arena.competitions.challenges import ChallengeError, opponents, recent_challenges, start_challenge, variants
from arena.competitions.comparison_requests import start_comparison
from arena.models import AccessToken, BotVersion, Comparison

from ..views.common import quota_text
from ..views.comparisons import compare_choices
from .auth import caller
from .bots import owned
from .matches import match_out
from .schemas import MatchOut

router = Router(tags=["challenges and comparisons"])


class ChallengeIn(Schema):
    opponents: list[str] = ["house:random"]
    variant: str = ""


class ComparisonIn(Schema):
    a: str
    b: str
    max_games: int | None = None
    elo1: float | None = None


class ComparisonOut(Schema):
    id: int
    bot: int
    a: str
    b: str
    game: str
    status: str
    verdict: str
    max_games: int
    figures: dict | None
    error: str


def played_by(request, bot_id: int):
    """The caller's own bot, for a token with ``play`` (anybody else's: 404)."""
    bot = owned(request, bot_id)
    caller(request).require(AccessToken.PLAY)
    return bot


@router.get("/bots/{bot_id}/opponents", summary="Whom the bot may be challenged against, and the variants (owner only)")
def challenge_options(request, bot_id: int):
    bot = owned(request, bot_id)
    return {"opponents": [{"key": o.key, "label": o.label} for o in opponents(caller(request).user, bot)],
            "variants": [{"name": name, "player_counts": list(counts)} for name, counts in variants(bot.game)],
            "compare": [label for _, label in compare_choices(bot)]}


@router.post("/bots/{bot_id}/challenges", response={201: MatchOut},
             summary="Play the bot now against opponents: an unrated match (scope: play)")
def challenge(request, bot_id: int, data: ChallengeIn):
    """``opponents``: keys from ``GET /bots/{id}/opponents`` (``house:random``, ``version:<id>``);
    ``variant``: the game's default when empty."""
    bot = played_by(request, bot_id)
    user = caller(request).user
    limited = quota_text(recent_challenges(user), settings.PARLOUR_CHALLENGES_PER_HOUR, "challenges")
    if limited:
        raise HttpError(429, limited)
    try:
        match = start_challenge(user, bot, data.opponents, data.variant or variants(bot.game)[0][0])
    except ChallengeError as exc:
        raise HttpError(400, f"challenge not started: {exc}") from None
    return Status(201, match_out(match))


def comparison_side(bot, name: str) -> int:
    """``v3`` (the bot's version 3) or a house bot's name (``greedy``) as a version id the bot's
    page offers."""
    number = re.fullmatch(r"v(\d+)", name.strip())
    label = f"{bot.name} v{number.group(1)}" if number else f"house {name.strip()}"
    for pk, offered in compare_choices(bot):
        if offered.removesuffix(" (earlier)") == label:  # an earlier version is named as v<N> too
            return pk
    raise HttpError(400, f"{name!r} is not one of {', '.join(label for _, label in compare_choices(bot))} "
                         "(a version as v<N>, or a house bot by name)")


def comparison_out(c: Comparison) -> dict:
    return {"id": c.pk, "bot": c.bot_id, "a": str(c.a), "b": str(c.b), "game": c.game, "status": c.status,
            "verdict": c.verdict, "max_games": c.max_games, "figures": c.figures, "error": c.error}


@router.post("/bots/{bot_id}/comparisons", response={201: ComparisonOut},
             summary="Is A stronger than B? A sequential test on duplicate deals (scope: play)")
def compare(request, bot_id: int, data: ComparisonIn):
    bot = played_by(request, bot_id)
    a, b = comparison_side(bot, data.a), comparison_side(bot, data.b)
    versions = BotVersion.objects.select_related("bot").in_bulk([a, b])
    given = {k: v for k, v in (("max_games", data.max_games), ("elo1", data.elo1)) if v is not None}
    try:
        made = start_comparison(caller(request).user, bot, versions[a], versions[b], **given)
    except (ValueError, KeyError) as exc:
        raise HttpError(400, f"comparison not started: {exc}") from None
    return Status(201, comparison_out(Comparison.objects.select_related("a__bot", "b__bot").get(pk=made.pk)))


@router.get("/comparisons/{comparison_id}", response=ComparisonOut,
            summary="A comparison's status, figures and verdict (its owner only)")
def one_comparison(request, comparison_id: int):
    found = get_object_or_404(Comparison.objects.select_related("a__bot", "b__bot"), pk=comparison_id)
    try:
        owned(request, found.bot_id)
    except Http404:
        raise Http404(f"no comparison {comparison_id} of yours") from None
    return comparison_out(found)
