"""People at the table (arena.people): "play against" the house bots from a game's page or a bot
from its page, the person's tables ("My tables"), and the person's table — their seat's view, the
legal actions as labelled choices, their answer posted. The page polls ``state.json``; a reload
resumes the seat (the decision waits in Redis)."""
from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from arena.games import card_texts, game_choices
from arena.models import Bot, Match
from arena.people.bridge import AnswerRefused, news_channel
from arena.people.tables import TableError, answer, person_seat, person_tables, start_table, table_state

from arena.road.live_frames import announcements, async_connection, channel

from .common import PAGE_SIZE, game_names, seats_prefetch

log = logging.getLogger("parlour.web")

OPTION_FIELD = "option-"  # a rule option's form field: option-<name>; left empty: the variant's default


def posted_options(post) -> dict[str, str]:
    """The rule options the form set (those left at the default are not sent on)."""
    return {name[len(OPTION_FIELD):]: value for name, value in post.items() if name.startswith(OPTION_FIELD) and value}


def sit_down(request, game: str, opponents: list[str], back: str) -> HttpResponse:
    """Start the person's table from the posted form (variant, options, seat) against ``opponents``:
    to the table, or back to ``back`` with the reason it was refused."""
    try:
        seat = int(request.POST.get("seat") or 1) - 1
        match = start_table(request.user, game, request.POST.get("variant", ""), opponents, seat,
                            posted_options(request.POST))
    except (TableError, ValueError) as exc:
        messages.error(request, f"Match not started: {exc}")
        return redirect(back)
    return redirect("table", match_id=match.pk)


@login_required
@require_POST
def play_against(request, game: str):
    """Seat the person against the house bots picked (``opponent``, repeated), from the game's page."""
    if game not in dict(game_choices()):
        raise Http404("unknown game")
    picks = [o for o in request.POST.getlist("opponent") if o]
    return sit_down(request, game, picks, reverse("learn_game", args=[game]) + "#play")


@login_required
@require_POST
def play_against_bot(request, bot_id: int):
    """Seat the person against this bot and the house bots picked (``opponent``), from its page."""
    bot = get_object_or_404(Bot, pk=bot_id)
    picks = [f"bot-{bot.pk}"] + [o for o in request.POST.getlist("opponent") if o]
    return sit_down(request, bot.game, picks, reverse("bot", args=[bot.pk]) + "#play")


def table_row(match: Match, user) -> dict[str, Any]:
    """One of the person's tables as "My tables" lists it: their seat, the others, their result."""
    seats = list(match.seats.all())
    mine = next((s for s in seats if s.bot_version.bot.kind == Bot.PERSON and s.bot_version.bot.owner_id == user.pk),
                None)
    return {"match": match, "game_name": game_names().get(match.game, match.game), "mine": mine,
            "others": [s for s in seats if s is not mine], "players": len(seats)}


@login_required
def my_tables(request):
    """The matches the person played themselves, newest first: status, result, the replay."""
    page = Paginator(seats_prefetch(person_tables(request.user)), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "webui/my_tables.html",
                  {"page": page, "rows": [table_row(m, request.user) for m in page.object_list]})


def _match_of_person(request, match_id: int) -> Match:
    match = get_object_or_404(Match, pk=match_id)
    if person_seat(match, request.user) is None:
        raise Http404("you have no seat at this table")
    return match


@login_required
def table(request, match_id: int):
    """The person's table: their seat's view drawn by the game's renderer (as the replay viewer draws
    a step), the legal actions as labelled buttons, the clock; ``table.js`` keeps it current."""
    match = _match_of_person(request, match_id)
    seats = [{"bot": s.bot_version.bot.name} for s in match.seats.select_related("bot_version__bot").order_by("seat")]
    return render(request, "webui/table.html", {
        "match": match, "seat": person_seat(match, request.user), "seats": seats, "card_texts": card_texts(match.game),
        "decision_seconds": settings.PARLOUR_PERSON_DECISION_SECONDS, "bank_seconds": settings.PARLOUR_PERSON_BANK_SECONDS})


def state_now(match_id: int, user) -> dict[str, Any]:
    """``table_state`` of the user's table (Http404 when they have no seat at it), its seat looked up once."""
    state = table_state(get_object_or_404(Match, pk=match_id), user)
    if state["seat"] is None:
        raise Http404("you have no seat at this table")
    return state


def shows(state: dict[str, Any], after: str, status: str) -> bool:
    """Whether ``state`` is what the page shows already: the same decision (``after``: its id, empty
    for none) and the same match status."""
    decision = state["decision"]
    return state["status"] == status and (str(decision["decision_id"]) if decision else "") == after


@login_required
async def table_state_json(request, match_id: int):
    """The seat's state (``table_state``). With ``?after=<decision id, or empty>&status=<status>``, what
    the page shows, a long poll: the answer waits, at most ``PARLOUR_LIVE_WAIT`` seconds, until the
    decision waiting or the match's status differs. The page waits as a coroutine, woken by the
    relay's news of the seat (``arena.people.bridge.news_channel``) or the match's end announced on
    its live channel, sharing the process's one Redis subscription with the live viewers."""
    user = await request.auser()
    state = await sync_to_async(state_now)(match_id, user)
    after, status = request.GET.get("after"), request.GET.get("status")
    if after is None or status is None or not shows(state, after, status):
        return JsonResponse(state)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + settings.PARLOUR_LIVE_WAIT
    hub, inbox = announcements(async_connection()), asyncio.Queue()
    names = [news_channel(match_id, state["seat"]), channel(match_id)]
    try:
        for name in names:
            await asyncio.wait_for(hub.join(name, inbox), settings.PARLOUR_LIVE_WAIT)
        # read again once subscribed: a change between the first read and now is not missed
        state = await sync_to_async(state_now)(match_id, user)
        while shows(state, after, status) and (left := deadline - loop.time()) > 0:
            try:
                news, _ = await asyncio.wait_for(inbox.get(), left)
            except asyncio.TimeoutError:
                break
            if "first" not in news:  # the seat's news or the match's end, not a frame of the others' play
                state = await sync_to_async(state_now)(match_id, user)
    except Exception as exc:  # noqa: BLE001 - Redis away: the page asks again a moment later
        log.warning("table %s: no long poll (%s)", match_id, exc)
    finally:
        for name in names:
            hub.leave(name, inbox)
    return JsonResponse(state)


@login_required
@require_POST
def table_answer(request, match_id: int):
    """The person's answer: ``{"decision_id", "index"}`` (JSON or form). 200 with the action played,
    else 400 (403: not their table) with a message that says why; nothing changes."""
    match = get_object_or_404(Match, pk=match_id)
    try:
        body = json.loads(request.body) if request.content_type == "application/json" else request.POST
    except ValueError:
        return JsonResponse({"error": "the answer is not JSON"}, status=400)
    if person_seat(match, request.user) is None:
        return JsonResponse({"error": "you have no seat at this table"}, status=403)
    try:
        action = answer(match, request.user, body.get("decision_id"), body.get("index"))
    except AnswerRefused as exc:
        return JsonResponse({"error": str(exc)}, status=400)
    return JsonResponse({"played": action})
