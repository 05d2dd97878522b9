"""Bots, their versions, and what only a bot's owner sees of them (the check report, the uploaded
code, the log lines) — 404 to anybody else, as if it did not exist; and submitting a version (the
site's upload, webui.views.uploads.store_upload)."""
from __future__ import annotations

from django.conf import settings
from django.db.models import Count, Q
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from ninja import File, Form, Router, Schema, Status
from ninja.errors import HttpError
from ninja.files import UploadedFile

from arena.bots.uploads import UploadError
from arena.models import AccessToken, Bot, BotVersion, Match, Rating
from arena.road.replay_visibility import bot_log_lines

from ..forms import UploadForm
from ..views.bots import check_report, version_archive
from ..views.common import private_bot_or_404
from ..views.uploads import store_upload, upload_quota, uploads_allowed
from .auth import caller
from .schemas import BotDetail, BotOut, Submitted, VersionOut

router = Router(tags=["bots"])


def bot_out(bot: Bot) -> dict:
    return {"id": bot.pk, "name": bot.name, "game": bot.game, "kind": bot.kind,
            "owner": bot.owner.username if bot.owner else None, "state": bot.state(), "created": bot.created}


def version_out(version: BotVersion, check_match: int | None) -> dict:
    return {"number": version.number, "state": version.state, "created": version.created, "sha256": version.sha256,
            "check_match": check_match}


def check_matches(bot: Bot) -> dict[int, int]:
    """The latest check match of each of the bot's versions (as its page finds them)."""
    return {m.check_of_id: m.pk for m in Match.objects.filter(check_of__bot=bot).only("pk", "check_of_id").order_by("pk")}


def owned(request, bot_id: int) -> Bot:
    """The caller's own bot, read with a token holding ``read``; anybody else's is 404."""
    bot = private_bot_or_404(request, bot_id)  # the pages' rule (request.user is the token's owner)
    caller(request).require(AccessToken.READ)
    return bot


@router.get("/me", summary="Who the token acts as, its scopes, and their bots")
def me(request):
    who = caller(request)
    if who.token is None:
        return {"user": None, "scopes": [], "bots": []}
    bots = Bot.objects.filter(owner=who.user, deleted=None).exclude(kind=Bot.PERSON).select_related("owner").order_by("game", "name")
    return {"user": who.user.username, "token": who.token.name, "scopes": who.token.scopes,
            "bots": [bot_out(b) for b in bots]}


@router.get("/bots", response=list[BotOut], summary="Bots (not deleted), by game and owner")
def list_bots(request, game: str | None = None, owner: str | None = None, mine: bool = False):
    query = Q(deleted=None) & ~Q(kind=Bot.PERSON)  # a person's seat is no bot
    if game:
        query &= Q(game=game)
    if owner:
        query &= Q(owner__username=owner)
    if mine:
        who = caller(request)
        who.require(AccessToken.READ)
        query &= Q(owner=who.user)
    return [bot_out(b) for b in Bot.objects.filter(query).select_related("owner").order_by("game", "name")[:500]]


@router.get("/bots/{bot_id}", response=BotDetail, summary="A bot: its versions and ratings")
def one_bot(request, bot_id: int):
    bot = get_object_or_404(Bot.objects.select_related("owner"), pk=bot_id)
    checks = check_matches(bot)
    ratings = (Rating.objects.filter(bot_version__bot=bot).select_related("bot_version")
               .annotate(points=Count("history")).order_by("-points", "ladder"))
    return {**bot_out(bot), "versions": [version_out(v, checks.get(v.pk)) for v in bot.versions.order_by("-number")],
            "ratings": [{"ladder": r.ladder, "version": r.bot_version.number, "mu": r.mu, "sigma": r.sigma,
                         "conservative": r.conservative, "games": r.games, "wins": r.wins, "fit_elo": r.fit_elo,
                         "fit_low": r.fit_low, "fit_high": r.fit_high} for r in ratings]}


@router.get("/bots/{bot_id}/versions/{number}", response=VersionOut, summary="A version: its state and check match")
def one_version(request, bot_id: int, number: int):
    bot = get_object_or_404(Bot, pk=bot_id)
    version = get_object_or_404(BotVersion, bot=bot, number=number)
    return version_out(version, check_matches(bot).get(version.pk))


@router.get("/bots/{bot_id}/versions/{number}/report", summary="A version's check report (its owner only)",
            response={200: dict, 404: dict})
def version_report(request, bot_id: int, number: int):
    bot = owned(request, bot_id)
    version = get_object_or_404(BotVersion, bot=bot, number=number)
    return {"number": version.number, "state": version.state, "report": check_report(version)}


@router.get("/bots/{bot_id}/versions/{number}/code.zip", summary="An uploaded version's files (its owner only)",
            response={200: bytes})
def version_code(request, bot_id: int, number: int):
    bot = owned(request, bot_id)
    version = get_object_or_404(BotVersion, bot=bot, number=number)
    response = HttpResponse(version_archive(bot, version), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{bot.name}-v{version.number}.zip"'
    return response


@router.get("/bots/{bot_id}/logs", summary="The bot's log lines from its last matches (its owner only)")
def bot_logs(request, bot_id: int):
    bot = owned(request, bot_id)
    return [{"match": line["match"].pk, "seat": line["seat"], "step": line["step"], "decision": line["decision"],
             "line": line["line"]} for line in bot_log_lines(bot)]


class SubmitForm(Schema):
    name: str
    game: str


@router.post("/versions", response={201: Submitted}, summary="Submit a new version of a bot (scope: submit)")
def submit(request, data: Form[SubmitForm], file: File[UploadedFile]):
    """A ``.py`` file or a ``.zip`` holding one Bot subclass, as the site's upload page takes it: a
    new name creates the bot. The version comes back ``pending``: poll it until its check match
    makes it ``active`` or ``rejected``, then read its report."""
    who = caller(request)
    who.require(AccessToken.SUBMIT)
    if not uploads_allowed():
        raise HttpError(503, "uploads are disabled on this platform: its workers cannot run the bot sandbox")
    limited = upload_quota(who.user, settings.PARLOUR_UPLOADS_PER_HOUR)
    if limited:
        raise HttpError(429, limited)
    form = UploadForm({"name": data.name, "game": data.game}, {"file": file})
    if not form.is_valid():
        errors = "; ".join(f"{field}: {' '.join(map(str, messages))}" for field, messages in form.errors.items())
        raise HttpError(400, f"the upload was refused: {errors}")
    try:
        version = store_upload(who.user, form)
    except UploadError as exc:
        raise HttpError(400, f"the upload was refused: {exc}") from None
    bot = Bot.objects.select_related("owner").get(pk=version.bot_id)
    return Status(201, {"bot": bot_out(bot), "version": version_out(version, check_matches(bot).get(version.pk))})
