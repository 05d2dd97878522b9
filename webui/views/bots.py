"""A bot's page (versions, ratings and their history, recent matches; for its owner: its tools, its
tokens and its log lines) and its owner's switches: active, deleted, API tokens, a version's check
report and uploaded code."""
from __future__ import annotations

import io
import json
import zipfile
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Count, Max
from django.http import Http404, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from arena.bots.uploads import version_folder
from arena.competitions import ladder_editions
from arena.models import ApiToken, Bot, BotVersion, Match, Rating, RatingHistory
from arena.road.replay_visibility import bot_log_lines

from .challenges import challenge_context
from .common import game_names, match_rows, owned_bot_or_403, owner_only, owns, private_bot_or_404, seats_prefetch
from .comparisons import compare_choices
from .webhooks import webhook_context


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
    recent = recent_matches(bot)[:20]
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
        context["log_lines"] = bot_log_lines(bot)  # a seat's lines are its bot's owner's
        context.update(challenge_context(request.user, bot))
        context.update(webhook_context(bot))
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
