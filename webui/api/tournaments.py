"""Tournaments, their rounds and standings (arena.competitions.tournaments.standings, as the
tournament page shows them)."""
from __future__ import annotations

from django.db.models import Count, Q
from django.shortcuts import get_object_or_404
from ninja import Router

from arena.competitions.tournaments import standings
from arena.models import Match, Tournament

from .schemas import TournamentDetail, TournamentOut

router = Router(tags=["tournaments"])
DONE = [Match.FINISHED, Match.ABORTED]


def tournament_out(t: Tournament) -> dict:
    return {"id": t.pk, "name": t.name, "game": t.game, "variant": t.variant, "options": t.options,
            "format": t.format, "rounds": t.rounds, "table_size": t.table_size, "status": t.status,
            "created": t.created}


@router.get("/tournaments", response=list[TournamentOut], summary="Tournaments, newest first")
def list_tournaments(request, game: str | None = None, offset: int = 0, limit: int = 50):
    found = Tournament.objects.order_by("-created")
    if game:
        found = found.filter(game=game)
    offset, limit = max(0, offset), max(1, min(limit, 100))
    return [tournament_out(t) for t in found[offset:offset + limit]]


@router.get("/tournaments/{tournament_id}", response=TournamentDetail,
            summary="A tournament: its standings (points, Buchholz, Sonneborn–Berger) and rounds")
def one_tournament(request, tournament_id: int):
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    entries = {e.label: e.bot_version for e in tournament.entries.select_related("bot_version")}
    rows = [{**row, "bot": entries[row["label"]].bot_id if row["label"] in entries else None,
             "version": entries[row["label"]].number if row["label"] in entries else None}
            for row in standings(tournament)]
    rounds = (tournament.round_set.annotate(total=Count("matches"), done=Count("matches", filter=Q(matches__status__in=DONE)))
              .order_by("number"))
    finished = tournament.status == Tournament.FINISHED
    return {**tournament_out(tournament), "standings": rows,
            "round_list": [{"number": r.number, "matches": r.total, "done": r.done,
                            "status": "finished" if finished or (r.total and r.done == r.total) else "playing"}
                           for r in rounds]}
