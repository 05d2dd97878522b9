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
    """The referee this process uses: ``REFEREE_ADDRESS`` (with ``PARLOUR_OPERATOR_TOKEN``, and
    ``PARLOUR_REFEREE_SOCKET`` where the same referee has a Unix socket on this machine; without it
    sandboxed bots reach the referee through a relay), or a private one started on first use and
    stopped at exit."""
    global _referee
    if _referee is None:
        address = os.environ.get("REFEREE_ADDRESS")
        if address:
            _referee = RefereeClient(address, os.environ.get("PARLOUR_OPERATOR_TOKEN", ""),
                                     os.environ.get("PARLOUR_REFEREE_SOCKET") or None)
        else:
            _referee = LocalReferee(["--token-verifier", "arena.tokens:verify"])
            atexit.register(_referee.close)
    return _referee


def upload_root(version) -> str | None:
    """The folder of an uploaded version (what its sandbox gets at /bot)."""
    root = Path(settings.UPLOAD_DIR) / str(version.bot_id) / str(version.number)
    return str(root) if root.resolve() in Path(version.spec.rpartition(":")[0]).resolve().parents else None


def seat_plan(match: Match) -> tuple[list[str | None], list[str], list[str], list[dict[str, Any]], list[str | None]]:
    specs, names, remote, attributes, roots = [], [], [], [], []
    for seat in match.seats.select_related("bot_version__bot").order_by("seat"):
        version = seat.bot_version
        bot = version.bot
        names.append(bot.name)
        attributes.append(dict(seat.attributes))
        roots.append(upload_root(version) if bot.kind == Bot.UPLOAD else None)
        if bot.kind == Bot.REMOTE:
            specs.append(None)
            remote.append(f"bot-{bot.pk}")
        else:
            specs.append(version.spec)
            remote.append("")
    return specs, names, remote, attributes, roots


def play(match: Match) -> dict[str, Any]:
    """Play the match, every file bot (an upload) in its sandbox; returns its replay, also stored
    gzipped under REPLAY_DIR."""
    specs, names, remote, attributes, roots = seat_plan(match)
    replay = play_via_referee(referee(), match.game, match.variant, match.options, match.seed, TimeControl(),
                              specs, names, remote, attributes if any(attributes) else None,
                              timeout=settings.MATCH_TIME_LIMIT, sandboxed=True, bot_roots=roots)
    directory = Path(settings.REPLAY_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{match.key.replace('/', '_')}.replay.json.gz"
    path.write_bytes(gzip.compress(json.dumps(replay, separators=(",", ":")).encode(), mtime=0))
    replay["_path"] = str(path)
    return replay
