"""A bot's matches as plain rows, for its author's own analysis (the bot page's CSV and JSON
exports): each match's seed, seats, scores, ranks and whether its replay may be downloaded.

What a row shows follows the replay rule (``replay_visibility.replay_access``): a match that is not
finished shows no seed (it reveals every hidden card) and offers no replay; the rows hold nothing
else of a replay (no log lines), so they are the same for every visitor.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..models import Bot, Match, MatchSeat
from .replay_visibility import released

BATCH = 2000  # matches read per query: a bot with many thousands of matches is exported in pieces


def bot_match_rows(bot: Bot) -> Iterator[dict[str, Any]]:
    """The bot's matches, latest first: one dict per match with every seat, and ``mine``, the seats
    its versions held (a house bot may hold several seats of one match)."""
    matches = (Match.objects.filter(seats__bot_version__bot=bot).distinct().order_by("-created", "-pk")
               .values("pk", "created", "finished", "game", "variant", "options", "seed", "status", "rated",
                       "ladder", "tournament_id", "replay_path"))
    page: list[dict[str, Any]] = []
    for match in matches.iterator(chunk_size=BATCH):
        page.append(match)
        if len(page) >= BATCH:
            yield from _rows(bot, page)
            page = []
    yield from _rows(bot, page)


def _rows(bot: Bot, matches: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    seats: dict[int, list[dict[str, Any]]] = {m["pk"]: [] for m in matches}
    for seat in (MatchSeat.objects.filter(match_id__in=list(seats)).order_by("match_id", "seat")
                 .values("match_id", "seat", "bot_version__bot_id", "bot_version__bot__name",
                         "bot_version__number", "score", "rank", "status")):
        seats[seat["match_id"]].append({
            "seat": seat["seat"], "bot_id": seat["bot_version__bot_id"], "bot": seat["bot_version__bot__name"],
            "version": seat["bot_version__number"], "score": seat["score"], "rank": seat["rank"],
            "status": seat["status"]})
    for match in matches:
        public = released(match["status"])  # the seed and the replay are everyone's
        table = seats[match["pk"]]
        yield {
            "match": match["pk"], "created": match["created"], "finished": match["finished"],
            "game": match["game"], "variant": match["variant"], "options": match["options"],
            "status": match["status"], "rated": match["rated"], "ladder": match["ladder"],
            "tournament": match["tournament_id"], "seed": match["seed"] if public else None,
            "seats": table, "mine": [s["seat"] for s in table if s["bot_id"] == bot.pk],
            "replay": public and bool(match["replay_path"]),
        }
