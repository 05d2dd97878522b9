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
from django.views.decorators.http import require_POST

from arena.competitions.tournaments import (TournamentError, create_tournament, crosstable, enter_tournament, standings,
                                            start_tournament)
from arena.models import Bot, BotVersion, Match, Tournament

from ..forms import TournamentForm
from ..templatetags.parlour import in_words
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
        starts_at = timezone.now() + timedelta(minutes=data["starts_in"]) if data.get("open_entry") else None
        try:
            tournament = create_tournament(data["game"], data["format"], data["entrants"], variant=data["variant"],
                                           options=data["rule_options"],
                                           rounds=data["rounds"] if data["format"] == Tournament.SWISS else None,
                                           name=data["name"] or None, starts_at=starts_at)
        except TournamentError as exc:
            form.add_error(None, str(exc))
        else:
            Tournament.objects.filter(pk=tournament.pk).update(created_by=request.user)
            if starts_at is None:
                start_tournament(tournament)  # schedules its first round; the workers play it
                messages.info(request, f"{tournament.name} has started: this page follows it.")
            else:
                messages.info(request, f"{tournament.name} is open for entries for {in_words(starts_at - timezone.now())}: "
                                       "share this page; it starts by itself then.")
            return redirect("tournament", tournament_id=tournament.pk)
    return render(request, "webui/tournament_new.html", {"form": form, "limited": limited},
                  status=400 if request.method == "POST" else 200)


@login_required
@require_POST
def tournament_enter(request, tournament_id: int):
    """Enter one of the signed-in person's bots in an open tournament."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    bot = Bot.objects.filter(pk=request.POST.get("bot", "") if request.POST.get("bot", "").isdigit() else 0,
                             owner=request.user).first()
    if bot is None:
        messages.error(request, "Pick one of your bots to enter.")
    else:
        try:
            enter_tournament(tournament, bot)
        except TournamentError as exc:
            messages.error(request, f"Not entered: {exc}.")
        else:
            messages.info(request, f"{bot.name} is entered.")
    return redirect("tournament", tournament_id=tournament.pk)


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
        "open_entry": tournament.open_for_entries(), "entries": tournament.entries.count(),
        "can_enter": can_enter(request.user, tournament),
    })


def can_enter(user, tournament: Tournament) -> list[Bot]:
    """The signed-in person's bots they may still enter in an open tournament."""
    if not user.is_authenticated or not tournament.open_for_entries():
        return []
    entered = set(tournament.entries.values_list("bot_version__bot_id", flat=True))
    return [b for b in Bot.objects.filter(owner=user, game=tournament.game, active=True, deleted=None,
                                          versions__state=BotVersion.ACTIVE).distinct().order_by("name")
            if b.pk not in entered]
