"""A bot's page (versions, ratings and their history, recent matches; for its owner: its tools, its
tokens and its log lines) and its owner's switches: active, deleted, API tokens, a version's check
report and uploaded code."""
from __future__ import annotations

import io
import json
import zipfile
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Count, Max
from django.http import Http404, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from arena.bots.uploads import version_folder
from arena.fleet.presence_seen import seen
from arena.people.tables import may_be_played, table_choices
from arena.competitions import ladder_editions
from arena.competitions.bot_record import fares, rating_mark, rating_points
from arena.models import ApiToken, Bot, BotVersion, Match, MatchSeat, Rating
from arena.road.replay_visibility import bot_log_lines

from .challenges import challenge_context
from .common import game_names, listed_publicly, match_rows, owned_bot_or_403, owner_only, private_bot_or_404, seats_prefetch
from .bot_record_cache import cached_record, page_stamp
from .comparisons import compare_choices
from .webhooks import webhook_context


def rating_chart(points: list[dict[str, Any]], width: int = 640, height: int = 220) -> dict | None:
    """The rating over the matches as inline SVG parts: μ as a line with a dot per rated match (its
    numbers on hover), its σ band (μ ± σ) shaded, μ − 3σ dashed, and a mark where the version changed.
    ``points``: ``arena.competitions.bot_record.rating_points``."""
    if not points:
        return None
    pad = 34
    values = [p["mu"] + p["sigma"] for p in points] + [p["mu"] - 3 * p["sigma"] for p in points]
    low, high = min(values), max(values)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    n = len(points)

    def x(i: int) -> float:
        return pad + (width - 2 * pad) * (i / (n - 1) if n > 1 else 0.5)

    def y(v: float) -> float:
        return height - pad - (height - 2 * pad) * (v - low) / (high - low)

    upper = [f"{x(i):.1f},{y(p['mu'] + p['sigma']):.1f}" for i, p in enumerate(points)]
    lower = [f"{x(i):.1f},{y(p['mu'] - p['sigma']):.1f}" for i, p in enumerate(points)]
    dots = [{"x": f"{x(i):.1f}", "y": f"{y(p['mu']):.1f}", "match": p["match"], "mu": round(p["mu"], 2),
             "sigma": round(p["sigma"], 2), "version": p["version"], "when": p["created"]}
            for i, p in enumerate(points)]
    # the dots as markup made here: numbers and dates only (nothing to escape), and a template loop
    # over 500 dots cost the page more than everything else on it
    dots_svg = mark_safe("".join(
        f'<circle cx="{d["x"]}" cy="{d["y"]}" r="2.5" class="point" data-match="{int(d["match"])}" '
        f'data-mu="{d["mu"]}" data-sigma="{d["sigma"]}"><title>match {int(d["match"])} (v{int(d["version"])}, '
        f'{timezone.localtime(d["when"]):%Y-%m-%d %H:%M}): μ {d["mu"]} ± {d["sigma"]}</title></circle>'
        for d in dots))
    versions = [{"x": f"{x(i):.1f}", "version": p["version"]} for i, p in enumerate(points)
                if i and p["version"] != points[i - 1]["version"]]
    return {"width": width, "height": height, "band": " ".join(upper + lower[::-1]),
            "mu": " ".join(f"{d['x']},{d['y']}" for d in dots),
            "conservative": " ".join(f"{x(i):.1f},{y(p['mu'] - 3 * p['sigma']):.1f}" for i, p in enumerate(points)),
            "dots": dots, "dots_svg": dots_svg, "versions": versions,
            "low": round(low, 1), "high": round(high, 1), "y_low": height - pad, "y_high": pad,
            "x_left": pad, "x_right": width - pad, "count": n, "last_mu": round(points[-1]["mu"], 2),
            "last_conservative": round(points[-1]["mu"] - 3 * points[-1]["sigma"], 2)}


def rating_chart_cached(bot: Bot, ladder: str) -> dict | None:
    """The rating chart, drawn again only when the bot has a new rating row on the ladder."""
    key = f"rating-chart:{bot.pk}:{ladder}:{rating_mark(bot, ladder)}"
    chart = cache.get(key)
    if chart is None:
        chart = rating_chart(rating_points(bot, ladder))
        cache.set(key, chart, 3600)
    return chart


def bot_page(request, bot_id: int):
    asked = request.GET.get("ladder") or ""
    # the record (everything but the viewer's own parts) from the cache while nothing it shows changed
    stamped = page_stamp(bot_id, request.user.pk if request.user.is_authenticated else None, asked)
    if stamped is None:
        raise Http404("no such bot")
    stamp, is_owner = stamped

    def build() -> dict[str, Any]:
        bot = get_object_or_404(Bot.objects.select_related("owner"), pk=bot_id)
        return record_context(bot, list(bot.versions.order_by("-number")), is_owner, asked)

    context = cached_record(stamp, build)
    bot, versions = context["bot"], context["versions"]
    context.update({"game_name": game_names().get(bot.game, bot.game), "is_owner": is_owner,
                    "checking": any(v.state == BotVersion.PENDING for v in versions),
                    "bot_state": bot_state(bot, versions)})
    if bot.kind == Bot.REMOTE:  # connected or not: said, not implied by "active"
        context["presence"] = seen(f"bot-{bot.pk}")
    context.update(play_context(request.user, bot, context["bot_state"]))
    if is_owner:
        context["comparisons"] = list(bot.comparisons.select_related("a__bot", "b__bot").order_by("-created")[:10])
        context["compare_choices"] = compare_choices(bot)
        context["tokens"] = list(bot.tokens.order_by("-created"))
        context["log_lines"] = bot_log_lines(bot)  # a seat's lines are its bot's owner's
        context.update(challenge_context(request.user, bot))
        context.update(webhook_context(bot))
        context["referee_address"] = settings.PARLOUR_PUBLIC_REFEREE
    return render(request, "webui/bot.html", context)


def play_context(user, bot: Bot, state: str) -> dict[str, Any]:
    """Whether the page offers "play against" (``play``: the form's choices) and, if not, why
    (``play_refused``). A stranger sees neither for a bot whose owner does not allow it."""
    if bot.kind == Bot.PERSON or state != "active":
        return {}
    if not user.is_authenticated:  # sign in to play: offered where anyone signed in may play it
        return {"play_sign_in": bot.kind == Bot.HOUSE or bot.people_may_play}
    if not (bot.kind == Bot.HOUSE or bot.owner_id == user.pk or bot.people_may_play):
        return {}
    refused = may_be_played(user, bot)  # a remote bot offline
    return {"play_refused": refused} if refused else {"play": table_choices(bot.game)}


def bot_state(bot: Bot, versions: list[BotVersion]) -> str:
    """``Bot.state()`` from the versions the page read already (one query fewer)."""
    if bot.deleted is not None or not bot.active:
        return bot.state()
    states = {v.state for v in versions}
    if BotVersion.ACTIVE in states:
        return "active"
    return "pending" if BotVersion.PENDING in states else "no active version"


def record_context(bot: Bot, versions: list[BotVersion], is_owner: bool, asked: str) -> dict[str, Any]:
    """What the page's record (webui/_bot_record.html) shows: its versions, ratings and rating chart
    on the asked ladder (else the one with most rated matches), head to head, results, recent matches."""
    checks = {m.check_of_id: m.pk for m in Match.objects.filter(check_of__bot=bot).only("pk", "check_of_id").order_by("pk")}
    for version in versions:  # the latest check match of each version, to follow it
        version.check_match = checks.get(version.pk)
    ratings = list(Rating.objects.filter(bot_version__bot=bot).select_related("bot_version")
                   .annotate(points=Count("history")).order_by("-points", "ladder"))
    ladders = sorted({r.ladder for r in ratings})
    chosen = asked if asked in ladders else (ratings[0].ladder if ratings else None)
    chart = rating_chart_cached(bot, chosen) if chosen else None
    current = [r for r in ratings if r.ladder == chosen]
    # its latest seats' matches by id (a join made distinct and sorted by date cost a bot with
    # thousands of matches ~15 ms), then those matches by date
    seats = MatchSeat.objects.filter(bot_version__bot=bot)
    if not is_owner:  # its owner's challenges and comparisons are theirs to see, not the public's
        seats = listed_publicly(seats, "match__")
    latest = seats.order_by("-match_id").values_list("match_id", flat=True)
    recent = seats_prefetch(Match.objects.filter(pk__in=list(dict.fromkeys(latest[:20 * 6]))[:20])  # <= 6 seats a match
                            .order_by("-created"))
    context = {"bot": bot, "versions": versions, "ladders": ladders, "ladder_key": chosen, "chart": chart,
               "ratings": ratings, "current": current, "recent": match_rows(recent), "is_owner": is_owner,
               **fares(bot)}
    context["results_tables"] = [(title, context["results_by"][key]) for key, title in
                                 (("seat", "seat"), ("players", "players"), ("variant", "variant"))]
    return context


@login_required
def my_bots(request):
    # a person's own seat (arena.people) is no bot of theirs: their tables are "My tables"
    bots = (Bot.objects.filter(owner=request.user, deleted=None).exclude(kind=Bot.PERSON).annotate(version_count=Count("versions"), last=Max("versions__number"))
            .order_by("game", "name"))
    return render(request, "webui/my_bots.html", {"bots": bots, "games": game_names()})


def owner_switch(request, bot_id: int, field: str, on: bool, said) -> HttpResponse:
    """Set one of the owner's switches on their bot (``field`` to ``on``), say so, back to its page."""
    bot = owned_bot_or_403(request, bot_id)
    setattr(bot, field, on)
    bot.save(update_fields=[field])
    messages.info(request, said(bot))
    return redirect("bot", bot_id=bot.pk)


@owner_only
@require_POST
def bot_active(request, bot_id: int):
    return owner_switch(request, bot_id, "active", request.POST.get("active") == "1",
                        lambda bot: f"{bot.name} is now {'active' if bot.active else 'inactive'}.")


@owner_only
@require_POST
def bot_notes_public(request, bot_id: int):
    """The owner's switch: the bot's decision notes shown to everyone in its replays, or to the owner only."""
    return owner_switch(request, bot_id, "notes_public", request.POST.get("public") == "1",
                        lambda bot: f"{bot.name}'s decision notes are now "
                                    f"{'public' if bot.notes_public else 'yours only'}.")


@owner_only
@require_POST
def bot_people_may_play(request, bot_id: int):
    """The owner's switch: signed-in people may play against the bot in the browser, or only its owner."""
    return owner_switch(request, bot_id, "people_may_play", request.POST.get("allowed") == "1",
                        lambda bot: f"{bot.name} may now be played by "
                                    f"{'anyone signed in' if bot.people_may_play else 'you only'}.")


@owner_only
@require_POST
def bot_delete(request, bot_id: int):
    """Delete a bot: it plays nothing more, its tokens are revoked, its name is free again; its
    matches and their replays stay (its name shown greyed)."""
    bot = owned_bot_or_403(request, bot_id)
    if request.POST.get("confirm") != bot.name:
        messages.error(request, "Type the bot's name to delete it.")
        return redirect("bot", bot_id=bot.pk)
    now = timezone.now()
    with transaction.atomic():
        Bot.objects.filter(pk=bot.pk).update(deleted=now, active=False)
        ladder_editions.renew(bot.game)  # an update() sends no signal: its ladder rows go
        bot.tokens.filter(revoked=None).update(revoked=now)
    messages.info(request, f"{bot.name} is deleted: its matches stay.")
    return redirect("my_bots")


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
def version_report(request, bot_id: int, number: int):
    bot = private_bot_or_404(request, bot_id)
    version = get_object_or_404(BotVersion, bot=bot, number=number)
    return render(request, "webui/report.html", {"bot": bot, "version": version, "report": check_report(version)})


def check_report(version: BotVersion) -> dict | None:
    """A version's check report (arena.bots.uploads.verdict), None before its verdict."""
    try:
        return json.loads(version.smoke_report) if version.smoke_report else None
    except ValueError:
        return {"text": version.smoke_report}


def recent_matches(bot: Bot):
    """A bot's matches, latest first, their seats prefetched (its page's, the API's)."""
    return seats_prefetch(Match.objects.filter(seats__bot_version__bot=bot).distinct().order_by("-created"))


def version_archive(bot: Bot, version: BotVersion) -> bytes:
    """An uploaded version's stored files as a zip (Http404 when there are none)."""
    if bot.kind != Bot.UPLOAD:
        raise Http404("only uploaded bots have code here")
    folder = version_folder(version.bot_id, version.number)
    if not folder.is_dir():
        raise Http404("this version's files are not stored here")
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink():
                archive.write(path, path.relative_to(folder).as_posix())
    return data.getvalue()




@owner_only
def version_download(request, bot_id: int, number: int):
    """The owner's own uploaded code, as a zip of the files stored for that version."""
    bot = private_bot_or_404(request, bot_id)
    if bot.kind != Bot.UPLOAD:
        raise Http404("only uploaded bots have code here")
    version = get_object_or_404(BotVersion, bot=bot, number=number)
    response = HttpResponse(version_archive(bot, version), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{bot.name}-v{version.number}.zip"'
    response["Cache-Control"] = "private, no-store"
    return response
