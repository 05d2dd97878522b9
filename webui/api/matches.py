"""Matches, their live frames and their replays, under the one rule of who sees what
(arena.road.replay_visibility), shipped by the same code as the match pages (webui.views.matches):
a replay goes out gzipped, as stored when the caller may see all of it."""
from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from ninja import Query, Router

from arena.models import Bot, Match

from ..views.bots import recent_matches
from ..views.common import seats_prefetch
from ..views.live import live_body, live_response
from ..views.matches import replay_gz
from .schemas import MatchDetail, MatchOut

router = Router(tags=["matches"])


def match_out(match: Match) -> dict:
    return {"id": match.pk, "game": match.game, "variant": match.variant, "options": match.options,
            "status": match.status, "rated": match.rated, "tournament": match.tournament_id, "round": match.round_id,
            "ladder": match.ladder, "check_of": match.check_of_id, "created": match.created,
            "finished": match.finished,
            "seats": [{"seat": s.seat, "bot": s.bot_version.bot_id, "name": s.bot_version.bot.name,
                       "version": s.bot_version.number,
                       "owner": s.bot_version.bot.owner.username if s.bot_version.bot.owner else None,
                       "status": s.status, "score": s.score, "rank": s.rank} for s in match.seats.all()]}


@router.get("/matches", response=list[MatchOut], summary="Matches, newest first: all, or one bot's")
def list_matches(request, bot: int | None = None, status: str | None = None, offset: int = 0, limit: int = 20):
    found = recent_matches(get_object_or_404(Bot, pk=bot)) if bot is not None else \
        seats_prefetch(Match.objects.order_by("-created"))
    if status:
        found = found.filter(status=status)
    offset, limit = max(0, offset), max(1, min(limit, 100))
    return [match_out(m) for m in found[offset:offset + limit]]


@router.get("/matches/{match_id}", response=MatchDetail, summary="A match: seats, result, and its seed once finished")
def one_match(request, match_id: int):
    match = get_object_or_404(seats_prefetch(Match.objects.all()), pk=match_id)
    released = match.status == Match.FINISHED  # the seed reveals every hidden card (replay_visibility)
    return {**match_out(match), "seed": match.seed if released else None, "result": match.result}


@router.get("/matches/{match_id}/replay", summary="The replay, gzipped JSON, as the caller may see it",
            response={200: bytes})
def replay(request, match_id: int):
    """The bots' log lines are their owners' (and staff's): a token holder's copy holds their own
    bots' lines. While the match plays: its header without the seed, and the public frames so far."""
    match = get_object_or_404(Match, pk=match_id)
    response = HttpResponse(replay_gz(request, match), content_type="application/gzip")
    response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.replay.json.gz"'
    response["Cache-Control"] = "private, no-store"
    return response


@router.get("/matches/{match_id}/live", summary="A running match's public frames from step `from` on (long poll)")
async def live(request, match_id: int, start: int = Query(0, alias="from")):
    """Waits up to ``PARLOUR_LIVE_WAIT`` seconds for new frames while the match plays; once it is
    recorded, ``status`` says so and the whole replay is at ``/matches/{id}/replay``. An asynchronous
    endpoint: a waiting caller holds no thread (webui/views/live.py)."""
    return live_response(await live_body(match_id, max(0, start)))
