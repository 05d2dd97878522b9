"""The site's pages. Server-rendered; every owner-only view checks ``bot.owner == request.user``."""
from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.cache import cache
from django.core.paginator import Paginator
from django.db import IntegrityError, transaction
from django.db.models import Case, Count, F, FloatField, Max, OuterRef, Q, Subquery, Value, When
from django.db.models.functions import Cast, Coalesce
from django.http import Http404, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from arena import editions
from arena.checks import sandbox_support, start_check
from arena.games import card_texts, game_choices, solo_games
from arena.live import live_frames
from arena.models import (ApiToken, Bot, BotVersion, Comparison, Match, MatchSeat, Rating, RatingHistory,
                          Tournament)

from .forms import RemoteBotForm, SignUpForm, UploadForm

PAGE_SIZE = 25
PLAYING_LIMIT = 20  # matches listed as being played now
REFRESH_SECONDS = 5  # how often the home and tournament pages refresh their parts (webui/static/webui/refresh.js)
UPLOADS_PER_HOUR = 10
LOG_LINES_LIMIT = 500
LOG_MATCHES = 10


def game_names() -> dict[str, str]:
    return dict(game_choices())


def uploads_allowed() -> bool:
    """Uploads open where the sandbox runs (or the operator allowed its weak mode)."""
    return sandbox_support()[0]


def uploads_per_hour() -> int:
    return int(getattr(settings, "PARLOUR_UPLOADS_PER_HOUR", UPLOADS_PER_HOUR))


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


def owner_only(view):
    """Owner-only views: login required (anonymous visitors go to the login page); the view then
    calls ``owned_bot_or_403``."""
    return login_required(view)


def match_rows(matches) -> list[dict[str, Any]]:
    """Matches with their seats (prefetched) for a table of matches."""
    rows = []
    for match in matches:
        seats = list(match.seats.all())
        rows.append({"match": match, "seats": seats, "game_name": game_names().get(match.game, match.game)})
    return rows


def seats_prefetch(queryset):
    return queryset.prefetch_related("seats__bot_version__bot__owner")


# ---------------------------------------------------------------------- home
def home(request):
    current = Tournament.objects.filter(status__in=[Tournament.CREATED, Tournament.RUNNING]).order_by("-created")[:10]
    recent = seats_prefetch(Match.objects.filter(status=Match.FINISHED).order_by("-finished"))[:10]
    return render(request, "webui/home.html", {
        "games": game_choices(), "tournaments": current, "recent": match_rows(recent),
        "playing": match_rows(playing_now(Match.objects.all())), "refresh_seconds": REFRESH_SECONDS,
    })


def playing_now(matches) -> list[Match]:
    """The matches being played now (their worker set them running), latest first."""
    return list(seats_prefetch(matches.filter(status=Match.RUNNING).order_by("-created"))[:PLAYING_LIMIT])


# ---------------------------------------------------------------------- ladder
LADDER_SORTS = {
    "rank": ("-conservative_rating", "bot_version__bot__name"),
    "bot": ("bot_version__bot__name", "bot_version__number"),
    "owner": ("bot_version__bot__owner__username", "rank"),
    "conservative": ("-conservative_rating", "bot_version__bot__name"),
    "mu": ("-mu", "rank"),
    "sigma": ("sigma", "rank"),
    "fit": ("-fit_elo", "rank"),
    "games": ("-games", "rank"),
    "win_rate": ("-win_rate", "rank"),
}


def _standard_ladder(game: str) -> str:
    from arena.ladder import standard_ladder

    return standard_ladder(game)


def ladder_keys(game: str) -> list[str]:
    """The game's ladders with ratings, by a skip scan of the (ladder, ...) index: one seek per
    ladder, where a DISTINCT would read every rating of the game."""
    keys: list[str] = []
    after = f"{game}/"
    while True:
        key = (Rating.objects.filter(ladder__gt=after, ladder__lt=f"{game}0").order_by("ladder")
               .values_list("ladder", flat=True).first())  # "0" follows "/": the end of the prefix
        if key is None:
            return keys
        keys.append(key)
        after = key


def ladder(request, game: str):
    game = game_or_404(game)
    # a page is cached under its game's edition (arena.editions), read before anything else: what is
    # cached under it is at least as new; any change the page shows makes a new edition
    edition = editions.current(game)
    asked = (request.GET.get("ladder", ""), request.GET.get("sort", ""), request.GET.get("page", ""))
    key = "ladder:" + hashlib.sha256(repr((game, edition, asked)).encode()).hexdigest()
    context = cache.get(key)
    if context is None:
        context = ladder_context(game, *asked)
        cache.set(key, context)
    page = Paginator(range(context["count"]), PAGE_SIZE).page(context["number"])  # rebuilt: a pickled Page is slow
    page.object_list = context["rows"]
    return render(request, "webui/ladder.html", {
        **context, "page": page, "game": game, "game_name": game_names()[game],
        "has_solo": game in solo_games() or Match.objects.filter(game=game, variant="solo").exists(),
    })


def ladder_context(game: str, asked_ladder: str, asked_sort: str, asked_page: str) -> dict[str, Any]:
    """What a ladder page shows, its table rendered: plain values, to be cached (pickled)."""
    standard = _standard_ladder(game)
    keys = sorted(set(ladder_keys(game)) | {standard})
    key = asked_ladder or standard
    if key not in keys:
        key = standard
    sort = asked_sort or "rank"
    descending = sort.startswith("-")
    column = sort.lstrip("-")
    if column not in LADDER_SORTS:
        column, descending = "rank", False
    order = list(LADDER_SORTS[column])
    if descending:
        first = order[0]
        order[0] = first[1:] if first.startswith("-") else f"-{first}"
    # rank = 1 + the ratings strictly above: an index range count per row of the page, never a
    # sort of the whole ladder
    shown = Q(ladder=key, bot_version__bot__active=True, bot_version__bot__deleted=None)  # off the ladder when off
    above = (Rating.objects.filter(shown, conservative__gt=OuterRef("conservative")).order_by()
             .values("ladder").annotate(n=Count("pk")).values("n"))
    rows = (Rating.objects.filter(shown)
            .annotate(conservative_rating=F("conservative"),
                      win_rate=Case(When(games=0, then=Value(0.0)),
                                    default=Cast("wins", FloatField()) / Cast("games", FloatField()),
                                    output_field=FloatField()),
                      rank=Coalesce(Subquery(above), 0) + 1)
            .order_by(*order, "pk")
            # plain values, formatted here: model instances and template filters cost more than
            # the queries on a page of 25
            .values("rank", "conservative_rating", "mu", "sigma", "fit_elo", "fit_low", "fit_high", "games", "win_rate",
                    "bot_version__number",
                    "bot_version__bot_id", "bot_version__bot__name", "bot_version__bot__owner__username"))
    # the paginator counts the ladder's ratings alone (a count over the rows' joins costs 10x more)
    page = Paginator(range(Rating.objects.filter(shown).count()), PAGE_SIZE).get_page(asked_page)
    bot_prefix = reverse("bot", args=[0])[:-len("0/")]  # one reverse() for the page, not one per row
    offset = (page.number - 1) * PAGE_SIZE
    page.object_list = [ladder_row(r, bot_prefix) for r in rows[offset:offset + PAGE_SIZE]]
    sort_text = ("-" if descending else "") + column
    columns = []
    for key_name, label in [("rank", "Rank"), ("bot", "Bot"), ("owner", "Owner"), ("conservative", "Rating (μ − 3σ)"),
                            ("mu", "μ ± σ"), ("fit", "Batch fit (Elo, 95 %)"), ("games", "Games"),
                            ("win_rate", "Win rate")]:
        flip = "-" if column == key_name and not descending else ""
        columns.append({"label": label, "href": "?" + urlencode({"ladder": key, "sort": flip + key_name}),
                        "mark": ("▲" if descending else "▼") if column == key_name else ""})
    query = urlencode({"ladder": key, "sort": sort_text}) + "&"
    # the table as HTML: rendering its rows costs more than the rest of the page together
    table = render_to_string("webui/_ladder_table.html", {"page": page, "columns": columns, "query": query})
    return {"ladder_key": key, "ladder_keys": keys, "standard": standard, "count": page.paginator.count,
            "number": page.number, "rows": page.object_list, "sort": sort_text, "table": table}


def ladder_row(values: dict[str, Any], bot_prefix: str) -> dict[str, Any]:
    return {
        "rank": values["rank"], "bot_id": values["bot_version__bot_id"], "name": values["bot_version__bot__name"],
        "href": f"{bot_prefix}{values['bot_version__bot_id']}/", "version": values["bot_version__number"],
        "owner": values["bot_version__bot__owner__username"], "conservative": values["conservative_rating"],
        "mu": values["mu"], "sigma": values["sigma"], "games": values["games"], "win_rate": values["win_rate"],
        "rating_text": f"{values['conservative_rating']:.2f}",
        "mu_text": f"{values['mu']:.2f} ± {values['sigma']:.2f}",
        "fit_text": "—" if values["fit_elo"] is None else
                    f"{values['fit_elo']:+.0f} [{values['fit_low']:+.0f}, {values['fit_high']:+.0f}]",
        "win_text": f"{round(values['win_rate'] * 100)}%",
    }


def solo_scores(request, game: str):
    game = game_or_404(game)
    seats = (MatchSeat.objects.filter(match__game=game, match__variant="solo", match__status=Match.FINISHED,
                                      score__isnull=False)
             .select_related("match", "bot_version__bot__owner").order_by("-score", "match__finished", "pk"))
    page = Paginator(seats, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "webui/solo.html", {"game": game, "game_name": game_names()[game], "page": page})


# ---------------------------------------------------------------------- bots
def rating_chart(points: list[tuple[Any, float, float]], width: int = 640, height: int = 200) -> dict | None:
    """An inline SVG line chart of mu and mu - 3 sigma over the matches (numbers only)."""
    if not points:
        return None
    pad = 30
    values = [mu for _, mu, _ in points] + [mu - 3 * sigma for _, mu, sigma in points]
    low, high = min(values), max(values)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    n = len(points)

    def x(i: int) -> float:
        return pad + (width - 2 * pad) * (i / (n - 1) if n > 1 else 0.5)

    def y(v: float) -> float:
        return height - pad - (height - 2 * pad) * (v - low) / (high - low)

    mu_line = " ".join(f"{x(i):.1f},{y(mu):.1f}" for i, (_, mu, _) in enumerate(points))
    cons_line = " ".join(f"{x(i):.1f},{y(mu - 3 * s):.1f}" for i, (_, mu, s) in enumerate(points))
    return {"width": width, "height": height, "mu": mu_line, "conservative": cons_line,
            "low": round(low, 1), "high": round(high, 1), "y_low": height - pad, "y_high": pad,
            "x_left": pad, "x_right": width - pad, "count": n, "last_mu": round(points[-1][1], 2),
            "last_conservative": round(points[-1][1] - 3 * points[-1][2], 2)}


def read_replay_file(path: str) -> dict | None:
    if not path:
        return None
    try:
        raw = Path(path).read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        replay = json.loads(raw)
    except (OSError, ValueError, EOFError):
        return None
    return replay if isinstance(replay, dict) and isinstance(replay.get("header"), dict) else None


def bot_log_lines(bot: Bot) -> list[dict[str, Any]]:
    """The bot's own log lines from the replays of its last finished matches (its seats only)."""
    seats = (MatchSeat.objects.filter(bot_version__bot=bot, match__status=Match.FINISHED)
             .exclude(match__replay_path="").select_related("match").order_by("-match__finished", "-pk"))
    mine: dict[int, set[int]] = defaultdict(set)
    matches: dict[int, Match] = {}
    for seat in seats[:LOG_MATCHES * 6]:
        if seat.match_id not in matches and len(matches) >= LOG_MATCHES:
            continue
        matches[seat.match_id] = seat.match
        mine[seat.match_id].add(seat.seat)
    lines = []
    for match_id, match in matches.items():
        replay = read_replay_file(match.replay_path)
        for entry in (replay or {}).get("bot_logs", []):
            if isinstance(entry, dict) and entry.get("seat") in mine[match_id]:
                lines.append({"match": match, "seat": entry.get("seat"), "step": entry.get("step"),
                              "decision": entry.get("decision"), "line": str(entry.get("line", ""))})
                if len(lines) >= LOG_LINES_LIMIT:
                    return lines
    return lines


def bot_page(request, bot_id: int):
    bot = get_object_or_404(Bot.objects.select_related("owner"), pk=bot_id)
    versions = list(bot.versions.order_by("-number"))
    checks = {m.check_of_id: m.pk for m in Match.objects.filter(check_of__bot=bot).only("pk", "check_of_id").order_by("pk")}
    for version in versions:  # the latest check match of each version, to follow it
        version.check_match = checks.get(version.pk)
    ratings = list(Rating.objects.filter(bot_version__bot=bot).select_related("bot_version")
                   .annotate(points=Count("history")).order_by("-points", "ladder"))
    ladders = sorted({r.ladder for r in ratings})
    chosen = request.GET.get("ladder")
    if chosen not in ladders:
        chosen = ratings[0].ladder if ratings else None
    history = (RatingHistory.objects.filter(rating__bot_version__bot=bot, rating__ladder=chosen)
               .order_by("created", "pk").values_list("created", "mu", "sigma")) if chosen else []
    points = list(history)[-500:]
    current = [r for r in ratings if r.ladder == chosen]
    recent = seats_prefetch(Match.objects.filter(seats__bot_version__bot=bot).distinct().order_by("-created"))[:20]
    is_owner = owns(request.user, bot)
    context = {
        "bot": bot, "versions": versions, "game_name": game_names().get(bot.game, bot.game), "ladders": ladders,
        "ladder_key": chosen, "chart": rating_chart(points), "ratings": ratings, "current": current,
        "recent": match_rows(recent), "is_owner": is_owner,
        "checking": any(v.state == BotVersion.PENDING for v in versions), "bot_state": bot.state(),
    }
    if is_owner:
        context["comparisons"] = list(bot.comparisons.select_related("a__bot", "b__bot").order_by("-created")[:10])
        context["compare_choices"] = compare_choices(bot)
        context["tokens"] = list(bot.tokens.order_by("-created"))
        context["log_lines"] = bot_log_lines(bot)
        from .author import challenge_context  # the author's tools: challenge, delete

        context.update(challenge_context(request.user, bot))
        context["referee_address"] = settings.PARLOUR_PUBLIC_REFEREE
    return render(request, "webui/bot.html", context)


@login_required
def my_bots(request):
    bots = (Bot.objects.filter(owner=request.user, deleted=None).annotate(version_count=Count("versions"), last=Max("versions__number"))
            .order_by("game", "name"))
    return render(request, "webui/my_bots.html", {"bots": bots, "games": game_names()})


@owner_only
@require_POST
def bot_active(request, bot_id: int):
    bot = owned_bot_or_403(request, bot_id)
    bot.active = request.POST.get("active") == "1"
    bot.save(update_fields=["active"])
    messages.info(request, f"{bot.name} is now {'active' if bot.active else 'inactive'}.")
    return redirect("bot", bot_id=bot.pk)


@owner_only
@require_POST
def token_create(request, bot_id: int):
    bot = owned_bot_or_403(request, bot_id)
    if bot.kind != Bot.REMOTE:
        return HttpResponseForbidden("API tokens are for remote bots")
    _, token = ApiToken.issue(bot)
    response = render(request, "webui/token_created.html", {
        "bot": bot, "token": token, "referee_address": settings.PARLOUR_PUBLIC_REFEREE})
    response["Cache-Control"] = "no-store"
    return response


@owner_only
@require_POST
def token_revoke(request, bot_id: int, token_id: int):
    bot = owned_bot_or_403(request, bot_id)
    token = get_object_or_404(ApiToken, pk=token_id, bot=bot)
    if token.revoked is None:
        token.revoked = timezone.now()
        token.save(update_fields=["revoked"])
    messages.info(request, "The token is revoked.")
    return redirect("bot", bot_id=bot.pk)


@login_required
def remote_new(request):
    form = RemoteBotForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                bot = Bot.objects.create(owner=request.user, name=form.cleaned_data["name"],
                                         game=form.cleaned_data["game"], kind=Bot.REMOTE)
                BotVersion.objects.create(bot=bot, number=1, spec=f"remote:bot-{bot.pk}", state=BotVersion.ACTIVE)
        except IntegrityError:
            form.add_error("name", "you already have a bot of that name for that game")
        else:
            messages.info(request, "Remote bot created: issue it an API token below.")
            return redirect("bot", bot_id=bot.pk)
    return render(request, "webui/remote_new.html", {"form": form, "referee_address": settings.PARLOUR_PUBLIC_REFEREE})


# ---------------------------------------------------------------------- upload
def store_package(bot: Bot, number: int, package) -> Path:
    directory = (Path(settings.UPLOAD_DIR) / str(bot.pk) / str(number)).resolve()
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    for relative, content in package.files.items():
        target = (directory / relative).resolve()
        if directory not in target.parents:  # checked by the form already; belt and braces
            raise ValueError(f"unsafe path {relative!r}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    return directory / package.module


@login_required
def upload(request):
    if not uploads_allowed():
        return render(request, "webui/upload.html", {"disabled": True})
    form = UploadForm(request.POST or None, request.FILES or None,
                      initial={k: request.GET[k] for k in ("name", "game") if k in request.GET})
    from .author import upload_quota

    limited = upload_quota(request.user, uploads_per_hour())
    if request.method == "POST" and limited:
        form.is_valid()
        form.add_error(None, limited)
    elif request.method == "POST" and form.is_valid():
        name, game = form.cleaned_data["name"], form.cleaned_data["game"]
        with transaction.atomic():
            bot, created = Bot.objects.get_or_create(owner=request.user, game=game, name=name, deleted=None,
                                                     defaults={"kind": Bot.UPLOAD})
            if bot.kind != Bot.UPLOAD:
                form.add_error("name", "that name belongs to your remote bot")
                return render(request, "webui/upload.html", {"form": form}, status=400)
            bot = Bot.objects.select_for_update().get(pk=bot.pk)
            number = (bot.versions.aggregate(n=Max("number"))["n"] or 0) + 1
            path = store_package(bot, number, form.package)
            version = BotVersion.objects.create(
                bot=bot, number=number, spec=f"{path}:{form.package.class_name}",
                sha256=hashlib.sha256(form.raw).hexdigest(), state=BotVersion.PENDING)
            start_check(version)  # played by a worker once this commits: the upload returns at once
        messages.info(request, f"Version {number} is pending: its check match is being played. "
                               "This page shows the verdict when it is in.")
        return redirect("bot", bot_id=bot.pk)
    status = 400 if request.method == "POST" else 200
    return render(request, "webui/upload.html", {"form": form, "limited": limited, "per_hour": uploads_per_hour(),
                                                 "limit_kib": int(getattr(settings, "PARLOUR_UPLOAD_LIMIT", 256 * 1024)) // 1024},
                  status=status)


@login_required
def version_report(request, bot_id: int, number: int):
    bot = owned_bot_or_403(request, bot_id)
    version = get_object_or_404(BotVersion, bot=bot, number=number)
    try:
        report = json.loads(version.smoke_report) if version.smoke_report else None
    except ValueError:
        report = {"text": version.smoke_report}
    return render(request, "webui/report.html", {"bot": bot, "version": version, "report": report})


# ---------------------------------------------------------------------- tournaments
def tournament_list(request):
    tournaments = (Tournament.objects.annotate(total=Count("matches", distinct=True),
                                               done=Count("matches", distinct=True,
                                                          filter=Q(matches__status__in=[Match.FINISHED, Match.ABORTED])),
                                               entrants=Count("entries", distinct=True))
                   .order_by("-created"))
    page = Paginator(tournaments, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "webui/tournaments.html", {"page": page, "games": game_names()})


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


def tournament_page(request, tournament_id: int):
    from arena.tournaments import standings

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


# ---------------------------------------------------------------------- matches and replays
def match_page(request, match_id: int):
    match = get_object_or_404(Match.objects.select_related("tournament", "round"), pk=match_id)
    seats = list(match.seats.select_related("bot_version__bot__owner", "entry"))
    has_replay = (bool(match.replay_path) and Path(match.replay_path).is_file()) or \
        match.status in Match.UNRECORDED
    return render(request, "webui/match.html", {
        "match": match, "seats": seats, "game_name": game_names().get(match.game, match.game), "has_replay": has_replay,
        # the viewer's first part, then the seats' views when a seat's perspective is picked (webui/replays.py)
        "replay_url": reverse("replay_json", args=[match.pk]) + "?part=spectator",
        "seats_url": reverse("replay_json", args=[match.pk]) + "?part=seats",
        "download_url": reverse("replay_download", args=[match.pk]),
        "live_url": reverse("live_json", args=[match.pk]) if match.status in Match.UNRECORDED else "",
        "result_json": json.dumps(match.result, indent=1, sort_keys=True) if match.result else "",
        "card_texts": card_texts(match.game),
    })


def live_header(match: Match) -> dict:
    seats = match.seats.select_related("bot_version__bot").order_by("seat")
    return {"format": "parlour-replay", "game": match.game, "variant": match.variant, "options": match.options,
            "players": len(seats), "seats": [{"bot": s.bot_version.bot.name, "version": str(s.bot_version.number),
                                              "attributes": s.attributes} for s in seats]}


def live_public_frames(match_id: int) -> list:
    """A running match's public frames so far, as the arena keeps them in Redis (none if Redis
    cannot be reached or the oldest frames were trimmed)."""
    try:
        first, frames = live_frames(match_id)
    except Exception:  # noqa: BLE001 - the page still shows the match, without its frames
        return []
    return frames if first == 0 else []


def visible_replay(request, match: Match) -> dict:
    """What this user may see of a match's replay: while the match is not finished, the header
    (without the seed) and the public views; once finished, everything, with the bot logs of the
    seats whose bot the user owns (staff: all of them)."""
    replay = read_replay_file(match.replay_path)
    live = match.status in Match.UNRECORDED
    if replay is None and live:  # nothing recorded yet: the header from the match record, the frames so far
        replay = {"header": live_header(match), "public": live_public_frames(match.pk)}
    if replay is None:
        raise Http404("no replay for this match")
    if match.status != Match.FINISHED:
        header = {k: v for k, v in replay["header"].items() if k != "seed"}
        header["live"] = live
        return {"header": header, "public": replay.get("public", [])}
    visible = {k: v for k, v in replay.items() if k != "bot_logs"}
    logs = list(replay.get("bot_logs") or [])
    logs += [{"seat": e["seat"], "decision": None, "step": len(replay.get("log", [])), "line": e["line"]}
             for e in (match.result or {}).get("sandbox_logs", [])]  # the sandbox's verdicts
    if request.user.is_authenticated and request.user.is_staff:
        visible["bot_logs"] = logs
    else:
        mine = set()
        if request.user.is_authenticated:
            mine = set(match.seats.filter(bot_version__bot__owner=request.user).values_list("seat", flat=True))
        visible["bot_logs"] = [e for e in logs if isinstance(e, dict) and e.get("seat") in mine]
    return visible


# ---------------------------------------------------------------------- accounts
def signup(request):
    if request.user.is_authenticated:
        return redirect("home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("home")
    return render(request, "webui/signup.html", {"form": form})


# ---------------------------------------------------------------------- comparisons
def compare_choices(bot: Bot) -> list[tuple[int, str]]:
    """What an owner may compare: the bot's active versions and the game's house bots."""
    from arena.house import house_specs, house_version

    own = [(v.pk, f"{bot.name} v{v.number}") for v in bot.versions.filter(state=BotVersion.ACTIVE).order_by("-number")]
    return own + [(house_version(bot.game, spec).pk, f"house {spec}") for spec in house_specs(bot.game)]


@owner_only
@require_POST
def comparison_start(request, bot_id: int):
    from arena.comparisons import start_comparison

    bot = owned_bot_or_403(request, bot_id)
    allowed = {pk for pk, _ in compare_choices(bot)}
    try:
        a, b = (int(request.POST.get(side, "")) for side in ("a", "b"))
        if a not in allowed or b not in allowed:
            raise ValueError("choose A and B among this bot's versions and the house bots")
        versions = BotVersion.objects.select_related("bot").in_bulk([a, b])
        settings_given = {key: float(request.POST[key]) for key in ("elo1",) if request.POST.get(key)}
        if request.POST.get("max_games"):
            settings_given["max_games"] = int(request.POST["max_games"])
        comparison = start_comparison(request.user, bot, versions[a], versions[b], **settings_given)
    except (ValueError, KeyError) as exc:
        messages.error(request, f"Comparison not started: {exc}")
        return redirect("bot", bot_id=bot.pk)
    return redirect("comparison", comparison_id=comparison.pk)


@owner_only
def comparison_page(request, comparison_id: int):
    comparison = get_object_or_404(Comparison.objects.select_related("bot", "a__bot", "b__bot"), pk=comparison_id)
    owned_bot_or_403(request, comparison.bot_id)
    return render(request, "webui/comparison.html", {
        "comparison": comparison, "rows": comparison_rows(comparison.figures),
        "game_name": game_names().get(comparison.game, comparison.game),
        "live": comparison.status in (Comparison.SCHEDULED, Comparison.RUNNING),
    })


def comparison_rows(figures: dict | None) -> list[tuple[str, str]]:
    """The figures as (label, text); an Elo of null in the figures is infinite (one side won every game)."""
    if not figures:
        return []

    def elo(value: float | None, sign: str) -> str:
        return f"{value:+.1f}" if value is not None else f"{sign}∞"

    score, e, llr, bounds = figures["score"], figures["elo"], figures["llr"], figures["bounds"]
    return [
        ("Games", f"{figures['games']} ({figures['pairs']} pairs)"),
        ("A won / drew / lost", f"{figures['wins']} / {figures['draws']} / {figures['losses']}"),
        ("Pairs scoring 0, ¼, ½, ¾, 1 for A", " ".join(str(n) for n in figures["pentanomial"])),
        ("Score of A (95 % interval)", f"{score['value']:.3f} [{score['low']:.3f}, {score['high']:.3f}]"),
        ("Elo A − B (95 % interval)", f"{elo(e['value'], '+' if score['value'] > 0.5 else '−')} "
                                      f"[{elo(e['low'], '−')}, {elo(e['high'], '+')}]"),
        ("LLR A / B (bounds)", f"{llr['A']:+.3f} / {llr['B']:+.3f} [{bounds['lower']:.3f}, {bounds['upper']:.3f}]"),
    ]
