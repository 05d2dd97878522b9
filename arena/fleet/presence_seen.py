"""Whether a remote bot is connected now, and when it last was: what its page says instead of
"active" whether or not anything is listening. The referees' presence board
(``presence_board.py``) writes it; the site reads it (without importing the referee).

- ``parlour:presence:<bot id>``: the bot's presence, while it is connected (it expires);
- ``parlour:presence-seen``: a hash, bot id -> the last time (Unix seconds) a referee said it held
  the bot (kept: "last seen" outlives the connection).
"""
from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone

from .broker import connection

BOT_PREFIX = "parlour:presence:"
SEEN = "parlour:presence-seen"


@dataclass(frozen=True)
class Seen:
    online: bool
    last_seen: datetime | None  # None: never connected (or Redis has forgotten)


def mark_seen(client, bot_ids: Iterable[str]) -> None:
    """These bots are held by a referee now (``client``: the caller's Redis connection)."""
    now = time.time()
    mapping = {bot_id: now for bot_id in bot_ids}
    if mapping:
        client.hset(SEEN, mapping=mapping)


def seen(bot_id: str) -> Seen | None:
    """The remote bot's presence (``bot_id`` as the referee names it: ``bot-<pk>``); None when Redis
    cannot be asked (the page then says nothing rather than something wrong)."""
    try:
        client = connection()
        online = bool(client.exists(BOT_PREFIX + bot_id))
        stamp = client.hget(SEEN, bot_id)
    except Exception:  # noqa: BLE001 - Redis down: the page still renders
        return None
    last = datetime.fromtimestamp(float(stamp), timezone.utc) if stamp else None
    return Seen(online, last)
