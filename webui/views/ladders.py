"""A game's ladder page (its table ranked and sorted by the arena, arena.competitions.ladder_tables)
and its solo high-score table."""
from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import urlencode

from django.core.cache import cache
from django.core.paginator import Paginator
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse

from arena.games import solo_games, solo_variants
from arena.competitions import ladder_editions
from arena.competitions.ladder import standard_ladder
from arena.competitions.ladder_tables import ladder_keys, parse_sort, ranked_rows, shown_count
from arena.models import Match, MatchSeat

from .common import PAGE_SIZE, game_names, game_or_404

COLUMNS = [("rank", "Rank"), ("bot", "Bot"), ("owner", "Owner"), ("conservative", "Rating (μ − 3σ)"),
           ("mu", "μ ± σ"), ("fit", "Batch fit (Elo, 95 %)"), ("games", "Games"), ("win_rate", "Win rate")]


def ladder(request, game: str):
    game = game_or_404(game)
    # a page is cached under its game's edition (arena.competitions.ladder_editions), read before
    # anything else: what is cached under it is at least as new; any change the page shows makes a
    # new edition
    edition = ladder_editions.current(game)
    asked = (request.GET.get("ladder", ""), request.GET.get("sort", ""), request.GET.get("page", ""))
    key = "ladder:" + hashlib.sha256(repr((game, edition, asked)).encode()).hexdigest()
    context = cache.get(key)
    if context is None:
        context = ladder_context(game, *asked)
        cache.set(key, context)
    page = Paginator(range(context["count"]), PAGE_SIZE).page(context["number"])  # rebuilt: a pickled Page is slow
    page.object_list = context["rows"]
    return render(request, "webui/ladder.html", {
        **context, "page": page, "game": game, "game_name": game_names()[game],
        "has_solo": game in solo_games() or Match.objects.filter(game=game, variant="solo").exists(),
    })


def ladder_context(game: str, asked_ladder: str, asked_sort: str, asked_page: str) -> dict[str, Any]:
    """What a ladder page shows, its table rendered: plain values, to be cached (pickled)."""
    standard = standard_ladder(game)
    keys = sorted(set(ladder_keys(game)) | {standard})
    key = asked_ladder or standard
    if key not in keys:
        key = standard
    column, descending = parse_sort(asked_sort)
    page = Paginator(range(shown_count(key)), PAGE_SIZE).get_page(asked_page)
    bot_prefix = reverse("bot", args=[0])[:-len("0/")]  # one reverse() for the page, not one per row
    offset = (page.number - 1) * PAGE_SIZE
    rows = ranked_rows(key, column, descending)[offset:offset + PAGE_SIZE]
    page.object_list = [ladder_row(r, bot_prefix) for r in rows]
    sort_text = ("-" if descending else "") + column
    columns = []
    for key_name, label in COLUMNS:
        flip = "-" if column == key_name and not descending else ""
        columns.append({"label": label, "href": "?" + urlencode({"ladder": key, "sort": flip + key_name}),
                        "mark": ("▲" if descending else "▼") if column == key_name else ""})
    query = urlencode({"ladder": key, "sort": sort_text}) + "&"
    # the table as HTML: rendering its rows costs more than the rest of the page together
    table = render_to_string("webui/_ladder_table.html", {"page": page, "columns": columns, "query": query})
    return {"ladder_key": key, "ladder_keys": keys, "ladder_choices": [(k, ladder_label(k)) for k in keys],
            "standard": standard, "count": page.paginator.count,
            "number": page.number, "rows": page.object_list, "sort": sort_text, "table": table}


def ladder_label(key: str) -> str:
    """A ladder's key in words: ``tussie-mussie/standard/honeysuckle=any_row`` is "standard ·
    honeysuckle: any row" (the game is the page's)."""
    parts = key.split("/", 2)
    if len(parts) < 3:
        return key
    words = [parts[1].replace("_", " ")]
    for rule in filter(None, parts[2].split(",")):
        name, _, value = rule.partition("=")
        words.append(f"{name.replace('_', ' ')}: {value.replace('_', ' ')}")
    return " · ".join(words)


def ladder_row(values: dict[str, Any], bot_prefix: str) -> dict[str, Any]:
    return {
        "rank": values["rank"], "bot_id": values["bot_version__bot_id"], "name": values["bot_version__bot__name"],
        "href": f"{bot_prefix}{values['bot_version__bot_id']}/", "version": values["bot_version__number"],
        "owner": values["bot_version__bot__owner__username"], "conservative": values["conservative_rating"],
        "mu": values["mu"], "sigma": values["sigma"], "games": values["games"], "win_rate": values["win_rate"],
        "rating_text": f"{values['conservative_rating']:.2f}",
        "mu_text": f"{values['mu']:.2f} ± {values['sigma']:.2f}",
        "fit_text": "—" if values["fit_elo"] is None else
                    f"{values['fit_elo']:+.0f} [{values['fit_low']:+.0f}, {values['fit_high']:+.0f}]",
        "win_text": f"{round(values['win_rate'] * 100)}%",
    }


def solo_scores(request, game: str):
    game = game_or_404(game)
    seats = (MatchSeat.objects.filter(match__game=game, match__variant__in=solo_variants(game),
                                      match__status=Match.FINISHED,
                                      score__isnull=False)
             .select_related("match", "bot_version__bot__owner").order_by("-score", "match__finished", "pk"))
    page = Paginator(seats, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "webui/solo.html", {"game": game, "game_name": game_names()[game], "page": page})
