"""Tournaments: the list, and a tournament's page (standings, crosstable, rounds, matches)."""
from __future__ import annotations

from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, render

from arena.competitions.tournaments import crosstable, standings
from arena.models import Match, Tournament

from .common import PAGE_SIZE, REFRESH_SECONDS, game_names, match_rows, playing_now, seats_prefetch


def tournament_list(request):
    tournaments = (Tournament.objects.annotate(total=Count("matches", distinct=True),
                                               done=Count("matches", distinct=True,
                                                          filter=Q(matches__status__in=[Match.FINISHED, Match.ABORTED])),
                                               entrants=Count("entries", distinct=True))
                   .order_by("-created"))
    page = Paginator(tournaments, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "webui/tournaments.html", {"page": page, "games": game_names()})


def tournament_page(request, tournament_id: int):
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    rows = standings(tournament)
    entries = {e.label: e for e in tournament.entries.select_related("bot_version__bot__owner")}
    for row in rows:
        entry = entries.get(row["label"])
        row["bot"] = entry.bot_version.bot if entry else None
        row["version"] = entry.bot_version.number if entry else None
    labels = [row["label"] for row in rows]
    rounds = (tournament.round_set.annotate(total=Count("matches"),
                                            done=Count("matches", filter=Q(matches__status__in=[Match.FINISHED, Match.ABORTED])))
              .order_by("number"))
    for r in rounds:  # a round is over when its matches are (the record keeps the status it was paired with)
        r.shown_status = "finished" if (r.total and r.done == r.total) or tournament.status == Tournament.FINISHED \
            else "playing"
    total = tournament.matches.count()
    done = tournament.matches.filter(status__in=[Match.FINISHED, Match.ABORTED]).count()
    matches = seats_prefetch(tournament.matches.select_related("round").order_by("round__number", "pk"))
    return render(request, "webui/tournament.html", {
        "tournament": tournament, "game_name": game_names().get(tournament.game, tournament.game), "standings": rows,
        "crosstable": crosstable(tournament, labels), "labels": labels, "rounds": rounds,
        "total": total, "done": done, "percent": round(100 * done / total) if total else 0,
        "matches": match_rows(matches[:200]), "playing": match_rows(playing_now(tournament.matches.all())),
        "refresh_seconds": REFRESH_SECONDS,
    })
