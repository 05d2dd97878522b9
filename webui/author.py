"""The bot author's pages beyond the upload: the hourly quotas, deleting a bot, downloading one's
own uploaded code. Every view here is for the bot's owner (``owned_bot_or_403``)."""
from __future__ import annotations

import io
import zipfile
from datetime import datetime, timedelta
from pathlib import Path

from django import forms
from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils import timezone
from django.views.decorators.http import require_POST

from arena import editions
from arena.models import Bot, BotVersion

from .views import owned_bot_or_403, owner_only


def quota_text(used: list[datetime], per_hour: int, what: str) -> str | None:
    """None while under the quota; else the message, saying when the next one is allowed
    (an hour after the oldest counted within the last hour)."""
    if len(used) < per_hour:
        return None
    resets = min(used) + timedelta(hours=1)
    minutes = max(1, round((resets - timezone.now()).total_seconds() / 60))
    local = timezone.localtime(resets).strftime("%H:%M")
    return f"at most {per_hour} {what} per hour: the next one is allowed at {local} (in {minutes} min)"


def upload_quota(user, per_hour: int) -> str | None:
    """Uploads of the last hour, rejected ones left out: a bot that failed its check costs its
    author nothing, so fixing it and uploading again is never held back by the failures."""
    since = timezone.now() - timedelta(hours=1)
    used = list(BotVersion.objects.filter(bot__owner=user, bot__kind=Bot.UPLOAD, created__gte=since)
                .exclude(state=BotVersion.REJECTED).values_list("created", flat=True))
    return quota_text(used, per_hour, "uploads")


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
        editions.renew(bot.game)  # an update() sends no signal: its ladder rows go
        bot.tokens.filter(revoked=None).update(revoked=now)
    messages.info(request, f"{bot.name} is deleted: its matches stay.")
    return redirect("my_bots")


def version_folder(version: BotVersion) -> Path:
    """Where an uploaded version's files are stored (``UPLOAD_DIR/<bot>/<number>``)."""
    folder = (Path(settings.UPLOAD_DIR) / str(version.bot_id) / str(version.number)).resolve()
    if not folder.is_dir():
        raise Http404("this version's files are not stored here")
    return folder


@owner_only
def version_download(request, bot_id: int, number: int):
    """The owner's own uploaded code, as a zip of the files stored for that version."""
    bot = owned_bot_or_403(request, bot_id)
    if bot.kind != Bot.UPLOAD:
        raise Http404("only uploaded bots have code here")
    version = get_object_or_404(BotVersion, bot=bot, number=number)
    folder = version_folder(version)
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink():
                archive.write(path, path.relative_to(folder).as_posix())
    response = HttpResponse(data.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{bot.name}-v{version.number}.zip"'
    response["Cache-Control"] = "private, no-store"
    return response


# ---------------------------------------------------------------------- challenges
CHALLENGES_PER_HOUR = 20


def challenges_per_hour() -> int:
    return int(getattr(settings, "PARLOUR_CHALLENGES_PER_HOUR", CHALLENGES_PER_HOUR))


class ChallengeForm(forms.Form):
    variant = forms.ChoiceField(label="Variant")
    opponents = forms.MultipleChoiceField(label="Opponents", widget=forms.SelectMultiple(attrs={"size": 6}))

    def __init__(self, user, bot: Bot, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        from arena.challenges import opponents, variants

        self.fields["variant"].choices = [(name, f"{name} ({', '.join(map(str, counts))} players)")
                                          for name, counts in variants(bot.game)]
        self.fields["opponents"].choices = [(o.key, o.label) for o in opponents(user, bot)]


def challenge_context(user, bot: Bot) -> dict:
    """What the bot page needs to offer a challenge (owner only)."""
    from arena.challenges import recent_challenges

    return {"challenge_form": ChallengeForm(user, bot, initial={"opponents": ["house:random"]}),
            "challenge_limited": quota_text(recent_challenges(user), challenges_per_hour(), "challenges")}


@owner_only
@require_POST
def challenge(request, bot_id: int):
    """Play the bot now against the opponents picked: an unrated match, opened live."""
    from arena.challenges import ChallengeError, recent_challenges, start_challenge

    bot = owned_bot_or_403(request, bot_id)
    limited = quota_text(recent_challenges(request.user), challenges_per_hour(), "challenges")
    form = ChallengeForm(request.user, bot, request.POST)
    if limited:
        messages.error(request, f"Challenge not started: {limited}.")
        return redirect("bot", bot_id=bot.pk)
    if not form.is_valid():
        problems = "; ".join(f"{field}: {' '.join(errors)}" for field, errors in form.errors.items())
        messages.error(request, f"Challenge not started: {problems}")
        return redirect("bot", bot_id=bot.pk)
    try:
        match = start_challenge(request.user, bot, form.cleaned_data["opponents"], form.cleaned_data["variant"])
    except ChallengeError as exc:
        messages.error(request, f"Challenge not started: {exc}")
        return redirect("bot", bot_id=bot.pk)
    return redirect("match", match_id=match.pk)
