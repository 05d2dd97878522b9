"""Remote bots' presence in Redis: which referee of the fleet each connected bot holds a
``Connect`` stream to. Referees write it (``--presence arena.fleet.presence_board:PresenceBoard``, the
interface of ``referee/presence.py``); the ladder and the router read it.

- ``parlour:presence:<bot id>`` — ``{"referee": id, "address": host:port, "since": t}``: one key
  per bot, so a bot connected twice is one presence (the newest connection's); it expires
  ``PARLOUR_PRESENCE_TTL`` s after its referee last said it holds the bot.
- ``parlour:referee:<id>`` — ``{"id", "address", "bots", "seen"}``: a referee alive, expiring alike.

A referee that dies stops beating: its bots' presences are gone within ``PARLOUR_PRESENCE_TTL`` s
(default 6), and the bots reconnect wherever the service name sends them.
"""
from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings

from referee.identity import Identity

from .broker import connection
from .presence_seen import BOT_PREFIX, mark_seen

REFEREE_PREFIX = "parlour:referee:"

# Refresh the bots this referee still holds; a key a newer connection elsewhere took is left to
# it and named in the answer (this referee then closes its own, older connection).
BEAT = """
local taken = {}
for i, key in ipairs(KEYS) do
  local current = redis.call('GET', key)
  if current and cjson.decode(current)['referee'] ~= ARGV[1] then
    table.insert(taken, key)
  else
    redis.call('SET', key, ARGV[2], 'PX', ARGV[3])
  end
end
return taken
"""
# Drop a presence only while it is this referee's (the bot may have connected elsewhere since).
DROP = """
local current = redis.call('GET', KEYS[1])
if current and cjson.decode(current)['referee'] == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


@dataclass(frozen=True)
class Where:
    """The referee a remote bot is connected to."""

    referee_id: str
    address: str


def ttl_ms() -> int:
    return max(1, round(settings.PARLOUR_PRESENCE_TTL * 1000))


def value(identity: Identity) -> str:
    return json.dumps({"referee": identity.id, "address": identity.address, "since": time.time()})


class PresenceBoard:
    """The referee's side (``referee.presence.Presence``), in the platform's Redis."""

    def __init__(self) -> None:
        # the referee's process runs it: the platform's settings (its Redis), as the token verifier's
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour_site.settings")

    def connected(self, identity: Identity, bot_id: str) -> None:
        client = connection()
        client.set(BOT_PREFIX + bot_id, value(identity), px=ttl_ms())  # the newest connection wins
        mark_seen(client, [bot_id])

    def disconnected(self, identity: Identity, bot_id: str) -> None:
        client = connection()
        client.eval(DROP, 1, BOT_PREFIX + bot_id, identity.id)
        mark_seen(client, [bot_id])

    def beat(self, identity: Identity, bot_ids: Iterable[str]) -> set[str]:
        client = connection()
        bots = list(bot_ids)
        client.set(REFEREE_PREFIX + identity.id, json.dumps({"id": identity.id, "address": identity.address,
                                                             "bots": len(bots), "seen": time.time()}), px=ttl_ms())
        if not bots:
            return set()
        taken = client.eval(BEAT, len(bots), *(BOT_PREFIX + b for b in bots), identity.id, value(identity), ttl_ms())
        gone = {key.decode()[len(BOT_PREFIX):] for key in taken}
        mark_seen(client, [b for b in bots if b not in gone])
        return gone

    def address_of(self, referee_id: str) -> str | None:
        raw = connection().get(REFEREE_PREFIX + referee_id)
        return json.loads(raw)["address"] if raw else None


def present_bots() -> dict[str, Where]:
    """Every remote bot connected now, and where."""
    client = connection()
    keys = list(client.scan_iter(match=BOT_PREFIX + "*", count=500))
    found = {}
    for key, raw in zip(keys, client.mget(keys) if keys else []):
        if raw:
            info = json.loads(raw)
            found[key.decode()[len(BOT_PREFIX):]] = Where(info["referee"], info["address"])
    return found


def where(bot_ids: Iterable[str]) -> dict[str, Where]:
    """The referees of these bots (those connected now)."""
    bots = list(bot_ids)
    raws = connection().mget([BOT_PREFIX + b for b in bots]) if bots else []
    return {b: Where(json.loads(raw)["referee"], json.loads(raw)["address"]) for b, raw in zip(bots, raws) if raw}


def live_referees() -> dict[str, dict]:
    """The referees whose beat has not expired, by id."""
    client = connection()
    keys = list(client.scan_iter(match=REFEREE_PREFIX + "*", count=200))
    return {json.loads(raw)["id"]: json.loads(raw) for raw in (client.mget(keys) if keys else []) if raw}
