"""Games and their variants, from the arena's list of games (arena.games)."""
from __future__ import annotations

from django.http import Http404
from ninja import Router

from arena.games import game_info, game_variants, games

from .schemas import Game

router = Router(tags=["games"])


def game_out(info) -> dict:
    return {"id": info.id, "name": info.name, "player_counts": list(info.player_counts), "solo": info.solo,
            "variants": game_variants(info.id)}


@router.get("/games", response=list[Game], summary="Every game the platform plays, with its variants")
def list_games(request):
    return [game_out(g) for g in games()]


@router.get("/games/{game}", response=Game, summary="One game and its variants and options")
def one_game(request, game: str):
    info = game_info(game)
    if info is None:
        raise Http404(f"no game {game!r}: GET /api/v1/games lists them")
    return game_out(info)
