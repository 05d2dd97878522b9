"""Who may see what of a match's replay: the one rule (``replay_access``) the site's pages, and any
other reader, ask before they show a replay (``visible_replay``).

- While a match is not finished, anyone sees its header without the seed (the seed reveals every
  hidden card) and its public views: the frames so far while it plays (arena.road.live_frames).
- Once it is finished, anyone sees everything — the seed, the action log, every seat's own views —
  but the bots' log lines: those of a seat are its bot's owner's, and staff read every seat's (the
  sandboxes' verdicts on faulted bots, kept in the match's result, count as log lines).
- The bots' notes on their decisions follow the log lines, except that a bot whose owner made its
  notes public (``Bot.notes_public``) shows its seats' notes to everyone.
"""
from __future__ import annotations

import gzip
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ..models import Bot, Match, MatchSeat
from .live_frames import live_frames

LOG_LINES_LIMIT = 500  # of a bot's lines on its page
LOG_MATCHES = 10  # the bot's last matches whose lines its page shows


class NoReplay(LookupError):
    """The match has no replay to show (never played, or its file is gone)."""


@dataclass(frozen=True)
class ReplayAccess:
    """What one person may see of one match's replay."""

    released: bool  # finished: the seed, the action log and the seats' views are everyone's
    every_log: bool = False  # staff: every seat's log lines
    log_seats: frozenset[int] = frozenset()  # the seats whose bots' log lines are theirs
    note_seats: frozenset[int] = frozenset()  # the seats whose bots' notes they may read

    @property
    def reads_logs(self) -> bool:
        """Whether any log line or note is theirs (else what they see is the same for every visitor)."""
        return self.every_log or bool(self.log_seats) or bool(self.note_seats)


def released(status: str) -> bool:
    """Whether a match in this status shows everyone its seed, its action log and its views."""
    return status == Match.FINISHED


def replay_access(user, match: Match) -> ReplayAccess:
    """The rule, for ``user`` (a user or an anonymous visitor) and ``match``."""
    if not released(match.status):
        return ReplayAccess(released=False)
    if user.is_authenticated and user.is_staff:
        return ReplayAccess(released=True, every_log=True)
    mine: frozenset[int] = frozenset()
    if user.is_authenticated:
        mine = frozenset(match.seats.filter(bot_version__bot__owner=user).values_list("seat", flat=True))
    public = frozenset(match.seats.filter(bot_version__bot__notes_public=True).values_list("seat", flat=True))
    return ReplayAccess(released=True, log_seats=mine, note_seats=mine | public)


def visible_replay(match: Match, access: ReplayAccess) -> dict[str, Any]:
    """The replay as ``access`` (``replay_access(user, match)``) lets its holder see it (raises
    ``NoReplay``): the stored one, or for a match not recorded yet its header from the match's
    record and the public frames so far."""
    replay = read_replay_file(match.replay_path)
    live = match.status in Match.UNRECORDED
    if replay is None and live:  # nothing recorded yet: the header from the match record, the frames so far
        replay = {"header": live_header(match), "public": live_public_frames(match.pk)}
    if replay is None:
        raise NoReplay(f"no replay for match {match.pk}")
    if not access.released:
        header = {k: v for k, v in replay["header"].items() if k != "seed"}
        header["live"] = live
        return {"header": header, "public": replay.get("public", [])}
    visible = {k: v for k, v in replay.items() if k not in ("bot_logs", "notes")}
    logs = list(replay.get("bot_logs") or [])
    logs += [{"seat": e["seat"], "decision": None, "step": len(replay.get("log", [])), "line": e["line"]}
             for e in (match.result or {}).get("sandbox_logs", [])]  # the sandbox's verdicts
    visible["bot_logs"] = logs if access.every_log else \
        [e for e in logs if isinstance(e, dict) and e.get("seat") in access.log_seats]
    notes = list(replay.get("notes") or [])
    visible["notes"] = notes if access.every_log else \
        [e for e in notes if isinstance(e, dict) and e.get("seat") in access.note_seats]
    return visible


def read_replay_file(path: str) -> dict | None:
    """A stored replay (gzipped JSON, or plain), or None when there is none readable."""
    if not path:
        return None
    try:
        raw = Path(path).read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        replay = json.loads(raw)
    except (OSError, ValueError, EOFError):
        return None
    return replay if isinstance(replay, dict) and isinstance(replay.get("header"), dict) else None


def live_header(match: Match) -> dict:
    seats = match.seats.select_related("bot_version__bot").order_by("seat")
    return {"format": "parlour-replay", "game": match.game, "variant": match.variant, "options": match.options,
            "players": len(seats), "seats": [{"bot": s.bot_version.bot.name, "version": str(s.bot_version.number),
                                              "attributes": s.attributes} for s in seats]}


def live_public_frames(match_id: int) -> list:
    """A running match's public frames so far, as the arena keeps them in Redis (none if Redis
    cannot be reached or the oldest frames were trimmed). Each is its JSON as kept, unparsed
    (``orjson.Fragment``): the replay's writer (orjson) splices it in as it is, which is most of
    the time of a live match's first page."""
    try:
        first, frames = live_frames(match_id, encoded=True)
    except Exception:  # noqa: BLE001 - the page still shows the match, without its frames
        return []
    return [orjson.Fragment(frame) for frame in frames] if first == 0 else []


def bot_log_lines(bot: Bot) -> list[dict[str, Any]]:
    """A bot's own log lines from the replays of its last finished matches (its seats only): for
    its owner, as the rule above gives them a seat's lines."""
    seats = (MatchSeat.objects.filter(bot_version__bot=bot, match__status=Match.FINISHED)
             .exclude(match__replay_path="").select_related("match").order_by("-match__finished", "-pk"))
    mine: dict[int, set[int]] = defaultdict(set)
    matches: dict[int, Match] = {}
    for seat in seats[:LOG_MATCHES * 6]:
        if seat.match_id not in matches and len(matches) >= LOG_MATCHES:
            continue
        matches[seat.match_id] = seat.match
        mine[seat.match_id].add(seat.seat)
    lines = []
    for match_id, match in matches.items():
        replay = read_replay_file(match.replay_path)
        for entry in (replay or {}).get("bot_logs", []):
            if isinstance(entry, dict) and entry.get("seat") in mine[match_id]:
                lines.append({"match": match, "seat": entry.get("seat"), "step": entry.get("step"),
                              "decision": entry.get("decision"), "line": str(entry.get("line", ""))})
                if len(lines) >= LOG_LINES_LIMIT:
                    return lines
    return lines
