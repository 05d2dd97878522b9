"""New bots: an uploaded version (stored and checked by the arena, arena.bots.uploads: the upload
returns at once with the version pending) within an hourly quota, and a remote bot (it plays from
its author's machine with an API token)."""
from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import IntegrityError, transaction
from django.shortcuts import redirect, render

from arena.bots.uploads import CHECK_TIME_CONTROL, UploadError, recent_uploads, sandbox_support, upload_version
from arena.models import Bot, BotVersion

from ..forms import RemoteBotForm, UploadForm
from .common import quota_text

def uploads_allowed() -> bool:
    """Uploads open where the sandbox runs (or the operator allowed its weak mode)."""
    return sandbox_support()[0]


def upload_quota(user, per_hour: int) -> str | None:
    """Uploads of the last hour, rejected ones left out (arena.bots.uploads.recent_uploads)."""
    return quota_text(recent_uploads(user), per_hour, "uploads")


def store_upload(user, form: UploadForm) -> BotVersion:
    """A valid upload form's version, stored and its check scheduled (arena.bots.uploads): the
    page's and the HTTP API's one way in. Raises ``UploadError``."""
    package = form.package
    return upload_version(user, form.cleaned_data["game"], form.cleaned_data["name"], form.raw,
                          files=package.files, module=package.module, class_name=package.class_name)


@login_required
def upload(request):
    if not uploads_allowed():
        return render(request, "webui/upload.html", {"disabled": True})
    form = UploadForm(request.POST or None, request.FILES or None,
                      initial={k: request.GET[k] for k in ("name", "game") if k in request.GET})
    limited = upload_quota(request.user, settings.PARLOUR_UPLOADS_PER_HOUR)
    if request.method == "POST" and limited:
        form.is_valid()
        form.add_error(None, limited)
    elif request.method == "POST" and form.is_valid():
        try:
            version = store_upload(request.user, form)
        except UploadError as exc:
            form.add_error("name", str(exc))
            return render(request, "webui/upload.html", {"form": form}, status=400)
        messages.info(request, f"Version {version.number} is pending: its check match is being played. "
                               "This page shows the verdict when it is in.")
        return redirect("bot", bot_id=version.bot_id)
    status = 400 if request.method == "POST" else 200
    return render(request, "webui/upload.html", {"form": form, "limited": limited, "per_hour": settings.PARLOUR_UPLOADS_PER_HOUR,
                                                 "check_move_limit": CHECK_TIME_CONTROL["move_limit"],
                                                 "check_bank": CHECK_TIME_CONTROL["bank"],
                                                 "limit_kib": settings.PARLOUR_UPLOAD_LIMIT // 1024},
                  status=status)


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
