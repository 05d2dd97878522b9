"""How a bot fares over time, for its page: its rating after each rated match (with the version
that played it), its record against the bots it met most, and its results by seat position, player
count and variant. Every count puts a forfeited seat last (``stats.ranking.forfeit_last``), as the
ladder does."""
from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Max

from ..models import Bot, Match, MatchSeat, RatingHistory
from .stats.ranking import forfeit_last

RATING_POINTS = 500  # the latest rated matches a chart draws
HEAD_TO_HEAD_ROWS = 10  # the opponents met most


def rating_points(bot: Bot, ladder: str, limit: int = RATING_POINTS) -> list[dict[str, Any]]:
    """The bot's rating on ``ladder`` after each of its latest ``limit`` rated matches, oldest
    first: one row of RatingHistory each (the match, μ, σ, when, the version that played)."""
    rows = (RatingHistory.objects.filter(rating__bot_version__bot=bot, rating__ladder=ladder)
            .order_by("-created", "-pk")
            .values("match_id", "created", "mu", "sigma", "rating__bot_version__number")[:limit])
    return [{"match": r["match_id"], "created": r["created"], "mu": r["mu"], "sigma": r["sigma"],
             "version": r["rating__bot_version__number"]} for r in reversed(rows)]


def rating_mark(bot: Bot, ladder: str) -> str:
    """What changes whenever the bot gets a new rating row on ``ladder``: a cache key's part."""
    mark = (RatingHistory.objects.filter(rating__bot_version__bot=bot, rating__ladder=ladder)
            .aggregate(count=Count("pk"), latest=Max("pk")))
    return f"{mark['count']}:{mark['latest']}"


def _finished_tables(bot: Bot) -> Iterable[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each finished match the bot sat in, with its seats (ranks with forfeited seats last)."""
    matches = Match.objects.filter(seats__bot_version__bot=bot, status=Match.FINISHED)
    info = {m["pk"]: m for m in matches.values("pk", "variant").distinct()}
    tables: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for seat in (MatchSeat.objects.filter(match_id__in=matches.values("pk")).order_by("match_id", "seat")
                 .values("match_id", "seat", "bot_version__bot_id", "bot_version__bot__name", "score", "rank",
                         "status")):
        tables[seat["match_id"]].append(seat)
    for match_id, seats in tables.items():
        if any(s["rank"] is None for s in seats):
            continue  # a result without ranks (an old record): not counted
        for seat, rank in zip(seats, forfeit_last([s["rank"] for s in seats], [s["status"] for s in seats])):
            seat["rank"] = rank
        yield info[match_id], seats


def _interval(values: list[float]) -> tuple[float, float, float]:
    """The mean and its 95 % interval (normal approximation; a single value has none: 0 wide)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, mean, mean
    half = 1.96 * math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)
    return mean, mean - half, mean + half


def head_to_head(bot: Bot, tables: list | None = None, limit: int | None = HEAD_TO_HEAD_ROWS) -> list[dict[str, Any]]:
    """Against each bot met at a finished table (most met first): how often this bot ranked
    above it (wins), below (losses) or level, and the mean score difference with its 95 % interval.
    Each pair of seats at a table is one meeting; ``limit`` None: every bot met."""
    meetings: dict[int, dict[str, Any]] = {}
    for _, seats in (_finished_tables(bot) if tables is None else tables):
        for mine in (s for s in seats if s["bot_version__bot_id"] == bot.pk):
            for other in (s for s in seats if s["bot_version__bot_id"] != bot.pk):
                row = meetings.setdefault(other["bot_version__bot_id"], {
                    "bot": other["bot_version__bot_id"], "name": other["bot_version__bot__name"],
                    "wins": 0, "losses": 0, "level": 0, "differences": []})
                if mine["rank"] < other["rank"]:
                    row["wins"] += 1
                elif mine["rank"] > other["rank"]:
                    row["losses"] += 1
                else:
                    row["level"] += 1
                row["differences"].append((mine["score"] or 0.0) - (other["score"] or 0.0))
    rows = sorted(meetings.values(), key=lambda r: (-len(r["differences"]), r["name"]))[:limit]
    for row in rows:
        differences = row.pop("differences")
        row["met"] = len(differences)
        row["mean_difference"], row["low"], row["high"] = (round(v, 2) for v in _interval(differences))
    return rows


def results_by(bot: Bot, tables: list | None = None) -> dict[str, list[dict[str, Any]]]:
    """The bot's results at finished tables grouped three ways: by its seat position, by the
    number of players and by variant. Per group: its seats, wins (first place, shared included),
    the win rate, the mean rank and the mean score."""
    groups: dict[str, Callable[[dict, dict, list], Any]] = {
        "seat": lambda match, seat, seats: seat["seat"],
        "players": lambda match, seat, seats: len(seats),
        "variant": lambda match, seat, seats: match["variant"],
    }
    tallies: dict[str, dict[Any, list[dict]]] = {name: defaultdict(list) for name in groups}
    for match, seats in (_finished_tables(bot) if tables is None else tables):
        for seat in (s for s in seats if s["bot_version__bot_id"] == bot.pk):
            for name, key in groups.items():
                tallies[name][key(match, seat, seats)].append(seat)
    out = {}
    for name, tally in tallies.items():
        rows = []
        for key in sorted(tally, key=str):
            played = tally[key]
            wins = sum(s["rank"] == 1 for s in played)
            rows.append({"key": key, "seats": len(played), "wins": wins, "win_rate": round(wins / len(played), 3),
                         "mean_rank": round(sum(s["rank"] for s in played) / len(played), 2),
                         "mean_score": round(sum(s["score"] or 0.0 for s in played) / len(played), 2)})
        out[name] = rows
    return out


def fares(bot: Bot) -> dict[str, Any]:
    """``head_to_head`` and ``results_by`` of the bot, from one read of its matches, cached until
    it finishes another match (the key counts its finished seats and names the latest): a bot with
    thousands of matches is recounted once per new result, not once per visit. The opponents'
    names are read afresh (a rename changes no result), then the most met kept."""
    seats = MatchSeat.objects.filter(bot_version__bot=bot, match__status=Match.FINISHED)
    mark = seats.aggregate(count=Count("pk"), latest=Max("match_id"))
    key = f"bot-record:{bot.pk}:{mark['count']}:{mark['latest']}"
    found = cache.get(key)
    if found is None:
        tables = list(_finished_tables(bot))
        found = {"meetings": head_to_head(bot, tables, limit=None), "results_by": results_by(bot, tables)}
        cache.set(key, found, 3600)
    names = dict(Bot.objects.filter(pk__in=[row["bot"] for row in found["meetings"]]).values_list("pk", "name"))
    meetings = [{**row, "name": names.get(row["bot"], row["name"])} for row in found["meetings"]]
    return {"head_to_head": sorted(meetings, key=lambda r: (-r["met"], r["name"]))[:HEAD_TO_HEAD_ROWS],
            "results_by": found["results_by"]}
