"""The home page: the games, the tournaments under way, the matches being played and the latest."""
from __future__ import annotations

from django.shortcuts import render

from arena.games import game_choices
from arena.models import Match, Tournament

from .common import REFRESH_SECONDS, listed_publicly, match_rows, playing_now, seats_prefetch


def home(request):
    current = Tournament.objects.filter(status__in=[Tournament.CREATED, Tournament.RUNNING]).order_by("-created")[:10]
    listed = listed_publicly(Match.objects.all())  # an owner's challenges and comparisons stay on their pages
    recent = seats_prefetch(listed.filter(status=Match.FINISHED).order_by("-finished"))[:10]
    return render(request, "webui/home.html", {
        "games": game_choices(), "tournaments": current, "recent": match_rows(recent),
        "playing": match_rows(playing_now(listed)), "refresh_seconds": REFRESH_SECONDS,
    })
