"""A bot's matches for its author's own analysis: every match as CSV (one row per seat the bot
held) or JSON (one object per match, every seat), the rows from the arena
(``arena.road.match_export``), which applies the replay rule: no seed and no replay link before a
match is finished."""
from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from typing import Any

from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse

from arena.models import Bot
from arena.road.match_export import bot_match_rows

CSV_COLUMNS = ["match", "finished", "game", "variant", "options", "status", "rated", "ladder", "tournament",
               "seed", "seat", "version", "score", "rank", "seat_status", "players", "bots", "scores", "ranks",
               "match_url", "replay_url"]


def _links(request, row: dict[str, Any]) -> tuple[str, str]:
    page = request.build_absolute_uri(reverse("match", args=[row["match"]]))
    replay = request.build_absolute_uri(reverse("replay_download", args=[row["match"]])) if row["replay"] else ""
    return page, replay


def _when(value) -> str:
    return value.isoformat() if value else ""


def _attachment(response: StreamingHttpResponse, bot: Bot, suffix: str) -> StreamingHttpResponse:
    response["Content-Disposition"] = f'attachment; filename="{bot.name}-matches.{suffix}"'
    return response


class _Echo:
    """csv.writer's file: each row written is returned, to be streamed."""

    def write(self, text: str) -> str:
        return text


def matches_csv(request, bot_id: int):
    bot = get_object_or_404(Bot, pk=bot_id)

    def lines() -> Iterator[str]:
        writer = csv.writer(_Echo())
        yield writer.writerow(CSV_COLUMNS)
        for row in bot_match_rows(bot):
            page, replay = _links(request, row)
            seats = row["seats"]
            for seat in (s for s in seats if s["seat"] in row["mine"]):
                yield writer.writerow([
                    row["match"], _when(row["finished"]), row["game"], row["variant"],
                    json.dumps(row["options"], sort_keys=True), row["status"], row["rated"], row["ladder"],
                    row["tournament"] or "", "" if row["seed"] is None else row["seed"], seat["seat"],
                    seat["version"], _blank(seat["score"]), _blank(seat["rank"]), seat["status"], len(seats),
                    ";".join(f"{s['bot']} v{s['version']}" for s in seats),
                    ";".join(_blank(s["score"]) for s in seats), ";".join(_blank(s["rank"]) for s in seats),
                    page, replay])

    return _attachment(StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8"), bot, "csv")


def _blank(value) -> str:
    return "" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def matches_json(request, bot_id: int):
    bot = get_object_or_404(Bot, pk=bot_id)

    def parts() -> Iterator[str]:
        yield json.dumps({"bot": bot.pk, "name": bot.name, "game": bot.game})[:-1] + ', "matches": ['
        for index, row in enumerate(bot_match_rows(bot)):
            page, replay = _links(request, row)
            out = {key: value for key, value in row.items() if key != "replay"}
            out.update(created=_when(row["created"]), finished=_when(row["finished"]) or None, url=page,
                       replay_url=replay or None)
            yield ("," if index else "") + json.dumps(out)
        yield "]}"

    return _attachment(StreamingHttpResponse(parts(), content_type="application/json"), bot, "json")
