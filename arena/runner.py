"""Running one recorded match through a referee, every bot in its own SDK process."""
from __future__ import annotations

import atexit
import gzip
import json
import os
from pathlib import Path
from typing import Any

from django.conf import settings

from bots_sdk.via_referee import LocalReferee, RefereeClient, play_via_referee
from referee.timecontrol import TimeControl

from .models import Bot, Match

_referee: RefereeClient | None = None


def referee() -> RefereeClient:
    """The referee this process uses: ``REFEREE_ADDRESS`` (with ``PARLOUR_OPERATOR_TOKEN``), or a
    private one started on first use and stopped at exit."""
    global _referee
    if _referee is None:
        address = os.environ.get("REFEREE_ADDRESS")
        if address:
            _referee = RefereeClient(address, os.environ.get("PARLOUR_OPERATOR_TOKEN", ""))
        else:
            _referee = LocalReferee(["--token-verifier", "arena.tokens:verify"])
            atexit.register(_referee.close)
    return _referee


def seat_plan(match: Match) -> tuple[list[str | None], list[str], list[str], list[dict[str, Any]]]:
    specs, names, remote, attributes = [], [], [], []
    for seat in match.seats.select_related("bot_version__bot").order_by("seat"):
        version = seat.bot_version
        bot = version.bot
        names.append(bot.name)
        attributes.append(dict(seat.attributes))
        if bot.kind == Bot.REMOTE:
            specs.append(None)
            remote.append(f"bot-{bot.pk}")
        else:
            specs.append(version.spec)
            remote.append("")
    return specs, names, remote, attributes


def play(match: Match) -> dict[str, Any]:
    """Play the match; returns its replay, also stored gzipped under REPLAY_DIR."""
    specs, names, remote, attributes = seat_plan(match)
    replay = play_via_referee(referee(), match.game, match.variant, match.options, match.seed, TimeControl(),
                              specs, names, remote, attributes if any(attributes) else None,
                              timeout=settings.MATCH_TIME_LIMIT)
    directory = Path(settings.REPLAY_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{match.key.replace('/', '_')}.replay.json.gz"
    path.write_bytes(gzip.compress(json.dumps(replay, separators=(",", ":")).encode(), mtime=0))
    replay["_path"] = str(path)
    return replay
