"""A game's ladders, ranked as the ladder page ranks them (arena.competitions.ladder_tables)."""
from __future__ import annotations

from ninja import Router

from arena.competitions.ladder import standard_ladder
from arena.competitions.ladder_tables import ladder_keys, parse_sort, ranked_rows, shown_count

from ..views.common import game_or_404
from .schemas import Ladder

router = Router(tags=["ladders"])
LIMIT = 100  # rows per answer at most


@router.get("/ladders/{game}", response=Ladder,
            summary="A ladder's rows: rank, OpenSkill μ and σ, μ − 3σ, the batch fit (Elo, 95 %), games, win rate")
def ladder(request, game: str, ladder: str = "", sort: str = "rank", offset: int = 0, limit: int = 50):
    """``ladder``: one of ``ladders`` (the game's standard ladder by default); ``sort``: a column, ``-``
    first for the other way (``rank``, ``bot``, ``owner``, ``conservative``, ``mu``, ``sigma``, ``fit``,
    ``games``, ``win_rate``)."""
    game = game_or_404(game)
    standard = standard_ladder(game)
    keys = sorted(set(ladder_keys(game)) | {standard})
    key = ladder if ladder in keys else standard
    column, descending = parse_sort(sort)
    offset, limit = max(0, offset), max(1, min(limit, LIMIT))
    rows = ranked_rows(key, column, descending)[offset:offset + limit]
    return {"game": game, "ladder": key, "ladders": keys, "sort": ("-" if descending else "") + column,
            "count": shown_count(key), "offset": offset,
            "rows": [{"rank": r["rank"], "bot": r["bot_version__bot_id"], "name": r["bot_version__bot__name"],
                      "version": r["bot_version__number"], "owner": r["bot_version__bot__owner__username"],
                      "conservative": r["conservative_rating"], "mu": r["mu"], "sigma": r["sigma"],
                      "fit_elo": r["fit_elo"], "fit_low": r["fit_low"], "fit_high": r["fit_high"],
                      "games": r["games"], "win_rate": r["win_rate"]} for r in rows]}
