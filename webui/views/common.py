"""What several page families share: the games' names, who owns a bot, tables of matches, the
hourly quotas' message."""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone

from arena.games import game_choices
from arena.models import Bot, Match

PAGE_SIZE = 25
PLAYING_LIMIT = 20  # matches listed as being played now
REFRESH_SECONDS = 5  # how often the home and tournament pages refresh their parts (webui/static/webui/refresh.js)


def game_names() -> dict[str, str]:
    return dict(game_choices())


def game_or_404(game: str) -> str:
    if game not in game_names():
        raise Http404("unknown game")
    return game


def owns(user, bot: Bot) -> bool:
    return user.is_authenticated and bot.owner_id is not None and bot.owner_id == user.pk


def owned_bot_or_403(request, bot_id: int) -> Bot:
    """The bot, for its owner only (anybody else: 403; a missing bot: 404)."""
    bot = get_object_or_404(Bot, pk=bot_id)
    if not owns(request.user, bot):
        raise PermissionDenied("only the bot's owner may do this")
    return bot


def private_bot_or_404(request, bot_id: int) -> Bot:
    """The bot, for reading what only its owner sees (its reports, code, comparisons): anybody
    else gets 404, as if there were nothing there (the HTTP API answers the same, webui/api/)."""
    bot = get_object_or_404(Bot, pk=bot_id)
    if not owns(request.user, bot):
        raise Http404("no such bot of yours")
    return bot


def owner_only(view):
    """Owner-only views: login required (anonymous visitors go to the login page); the view then
    calls ``owned_bot_or_403``."""
    return login_required(view)


def match_rows(matches) -> list[dict[str, Any]]:
    """Matches with their seats (prefetched) for a table of matches."""
    rows = []
    for match in matches:
        seats = list(match.seats.all())
        # the people at the table, by name ("vs @alice" on the bots' lists)
        people = [s.bot_version.bot.owner.username for s in seats if s.bot_version.bot.kind == Bot.PERSON]
        rows.append({"match": match, "seats": seats, "people": people,
                     "game_name": game_names().get(match.game, match.game)})
    return rows


def listed_publicly(matches, prefix: str = ""):
    """The matches a public list shows: rated ones, tournaments' and upload checks; not the unrated
    games an owner asked for (challenges, comparisons' games), which only their owner's pages list.
    ``prefix``: the path to the match from the queryset's model ("match__" from seats)."""
    return matches.exclude(**{f"{prefix}rated": False, f"{prefix}check_of__isnull": True,
                              f"{prefix}tournament__isnull": True})


def seats_prefetch(queryset):
    return queryset.prefetch_related("seats__bot_version__bot__owner")


def playing_now(matches) -> list[Match]:
    """The matches being played now (their worker set them running), latest first."""
    return list(seats_prefetch(matches.filter(status=Match.RUNNING).order_by("-created"))[:PLAYING_LIMIT])


def quota_text(used: list[datetime], per_hour: int, what: str) -> str | None:
    """None while under the quota; else the message, saying when the next one is allowed
    (an hour after the oldest counted within the last hour)."""
    if len(used) < per_hour:
        return None
    resets = min(used) + timedelta(hours=1)
    minutes = max(1, round((resets - timezone.now()).total_seconds() / 60))
    local = timezone.localtime(resets).strftime("%H:%M")
    return f"at most {per_hour} {what} per hour: the next one is allowed at {local} (in {minutes} min)"
