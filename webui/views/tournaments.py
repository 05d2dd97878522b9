"""Tournaments: the list, a tournament's page (standings, crosstable, rounds, matches), and a new
one made by a signed-in person (created and started by the arena: its matches are queued for the
workers, the site plays nothing)."""
from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone

from arena.competitions.tournaments import TournamentError, create_tournament, crosstable, standings, start_tournament
from arena.models import Match, Tournament

from ..forms import TournamentForm
from .common import PAGE_SIZE, REFRESH_SECONDS, game_names, match_rows, playing_now, quota_text, seats_prefetch

TOURNAMENTS_PER_HOUR = 3  # each one keeps the workers busy for a while


def tournament_quota(user) -> str | None:
    made = list(Tournament.objects.filter(created_by=user, created__gte=timezone.now() - timedelta(hours=1))
                .values_list("created", flat=True))
    return quota_text(made, TOURNAMENTS_PER_HOUR, "tournaments")


@login_required
def tournament_new(request):
    """Make a tournament and start it: its page follows it as the workers play it."""
    limited = tournament_quota(request.user)
    form = TournamentForm(request.user, request.POST if request.method == "POST" else None)
    if request.method == "POST" and not limited and form.is_valid():
        data = form.cleaned_data
        try:
            tournament = create_tournament(data["game"], data["format"], data["entrants"], variant=data["variant"],
                                           rounds=data["rounds"] if data["format"] == Tournament.SWISS else None,
                                           name=data["name"] or None)
        except TournamentError as exc:
            form.add_error(None, str(exc))
        else:
            Tournament.objects.filter(pk=tournament.pk).update(created_by=request.user)
            start_tournament(tournament)  # schedules its first round; the workers play it
            messages.info(request, f"{tournament.name} has started: this page follows it.")
            return redirect("tournament", tournament_id=tournament.pk)
    return render(request, "webui/tournament_new.html", {"form": form, "limited": limited},
                  status=400 if request.method == "POST" else 200)


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
