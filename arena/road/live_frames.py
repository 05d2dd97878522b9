"""Live matches in Redis: where any web process reads a running match without speaking gRPC.

For each match being played, the runner appends the public replay frames as the referee streams
them (``{"k": view}`` keyframes and ``{"d": delta}`` deltas, exactly the replay's ``public`` list)
to a capped list, and announces each batch on a channel:

- ``parlour:live:<match id>:frames`` — a list of JSON frames, frame i is step i (while the list
  holds fewer than ``PARLOUR_LIVE_FRAME_CAP``; past that the oldest are trimmed and ``:first`` says which step
  the list starts at);
- ``parlour:live:<match id>`` — a pub/sub channel: ``{"first": step, "count": n}`` per batch, then
  ``{"end": status}``;
- ``parlour:live`` — a set of the matches being played now;
- ``parlour:live:<match id>:referee`` — the id of the referee of the fleet that holds it.

Once the match is recorded (its replay on disk), the keys expire after ``PARLOUR_LIVE_KEEP_SECONDS``
seconds: long enough for a page that was following it to switch to the stored replay.

The web's viewers wait for the next batch in an event loop (``await_frames``), all those of one
process on one subscription (``Announcements``), holding no thread while they wait.
"""
from __future__ import annotations

import asyncio
import json
import logging
import weakref
from typing import Any

import redis
import redis.asyncio as aioredis
from django.conf import settings

from ..fleet.broker import connection, socket_path

EXPIRE_RUNNING = 6 * 3600  # a safety net: a worker that died mid-match leaves nothing for ever
PLAYING = "parlour:live"
log = logging.getLogger("parlour.arena")


def frames_key(match_id: int) -> str:
    return f"parlour:live:{match_id}:frames"


def first_key(match_id: int) -> str:
    return f"parlour:live:{match_id}:first"


def referee_key(match_id: int) -> str:
    return f"parlour:live:{match_id}:referee"


def channel(match_id: int) -> str:
    return f"parlour:live:{match_id}"


class LiveMatch:
    """The runner's side: publish one match's frames as they come. Live frames are for watching:
    when Redis cannot take them the match is played and recorded all the same (a warning)."""

    def __init__(self, match_id: int, client: redis.Redis | None = None, referee_id: str = "") -> None:
        """``referee_id``: the referee of the fleet that plays the match, said in the same round trip
        (for operators, ``held_by``: what a dead referee took with it)."""
        self.match_id = match_id
        self.working = True
        try:
            self.redis = client or connection()
            pipe = self.redis.pipeline(transaction=False)
            pipe.delete(frames_key(match_id), first_key(match_id))  # a replayed task starts afresh
            pipe.sadd(PLAYING, match_id)
            if referee_id:
                pipe.set(referee_key(match_id), referee_id, ex=EXPIRE_RUNNING)
            pipe.execute()
        except (redis.RedisError, ValueError) as exc:
            self.failed(exc)

    def failed(self, exc: Exception) -> None:
        log.warning("match %s: no live frames (Redis: %s)", self.match_id, exc)
        self.working = False

    def add(self, first_step: int, frames: list[str]) -> None:
        if not self.working:
            return
        try:
            self._add(first_step, frames)
        except redis.RedisError as exc:
            self.failed(exc)

    def _add(self, first_step: int, frames: list[str]) -> None:
        key = frames_key(self.match_id)
        pipe = self.redis.pipeline(transaction=False)  # one round trip, no MULTI/EXEC
        pipe.rpush(key, *frames)
        end, cap = first_step + len(frames), settings.PARLOUR_LIVE_FRAME_CAP
        if end > cap:
            pipe.ltrim(key, -cap, -1)
            pipe.set(first_key(self.match_id), end - cap)
        pipe.expire(key, EXPIRE_RUNNING)
        pipe.publish(channel(self.match_id), json.dumps({"first": first_step, "count": len(frames)}))
        pipe.execute()


def recorded(match_id: int, status: str, client: redis.Redis | None = None) -> None:
    """The match is recorded (its replay stored): announce it, and let its frames expire soon."""
    pipe = (client or connection()).pipeline(transaction=False)
    pipe.publish(channel(match_id), json.dumps({"end": status}))
    # long enough for a viewer that was following to switch to the replay
    pipe.expire(frames_key(match_id), settings.PARLOUR_LIVE_KEEP_SECONDS)
    pipe.expire(first_key(match_id), settings.PARLOUR_LIVE_KEEP_SECONDS)
    pipe.delete(referee_key(match_id))
    pipe.srem(PLAYING, match_id)
    pipe.execute()


def live_frames(match_id: int, start: int = 0, client: redis.Redis | None = None,
                encoded: bool = False) -> tuple[int, list[Any]]:
    """The frames of a running match from step ``start`` on (or from the oldest kept one):
    (the step of the first frame returned, the frames; ``encoded``: each as the JSON bytes kept,
    for a writer that splices them into a document unparsed)."""
    r = client or connection()
    first = int(r.get(first_key(match_id)) or 0)
    offset = max(0, start - first)
    raw = r.lrange(frames_key(match_id), offset, -1)
    return first + offset, raw if encoded else [json.loads(frame) for frame in raw]


def held_by(match_ids: list[int], client: redis.Redis | None = None) -> dict[int, str]:
    """The referees playing these matches now (those known)."""
    if not match_ids:
        return {}
    found = (client or connection()).mget([referee_key(m) for m in match_ids])
    return {m: r.decode() for m, r in zip(match_ids, found) if r}


def playing_now(client: redis.Redis | None = None) -> set[int]:
    """The ids of the matches whose frames are being published now."""
    r = client or connection()
    return {int(m) for m in r.smembers(PLAYING)}


ASYNC_CONNECTIONS = 32  # per event loop: a thousand viewers reading at once take turns, not connections
_async_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, aioredis.Redis] = weakref.WeakKeyDictionary()


def async_connection() -> aioredis.Redis:
    """This event loop's client of the platform's Redis (an asyncio client's connections belong to the
    loop that opened them): the web's long polls wait with it without holding a thread."""
    loop = asyncio.get_running_loop()
    client = _async_clients.get(loop)
    if client is None:
        url, path = settings.REDIS_URL, socket_path(settings.REDIS_URL)
        if path:
            pool = aioredis.BlockingConnectionPool(connection_class=aioredis.UnixDomainSocketConnection,
                                                   path=path, max_connections=ASYNC_CONNECTIONS)
        else:
            pool = aioredis.BlockingConnectionPool.from_url(url, max_connections=ASYNC_CONNECTIONS)
        client = _async_clients[loop] = aioredis.Redis(connection_pool=pool)
    return client


async def encoded_frames(match_id: int, start: int, client: aioredis.Redis) -> tuple[int, list[bytes]]:
    """live_frames's read for an event loop, the frames as the JSON bytes kept."""
    first = int(await client.get(first_key(match_id)) or 0)
    offset = max(0, start - first)
    return first + offset, await client.lrange(frames_key(match_id), offset, -1)


class Announcements:
    """One subscription to Redis per event loop, shared by every viewer waiting in it: each match's
    channel is subscribed once, for as long as someone waits on it (dropped by a sweep once nobody has
    for ``LINGER`` seconds). Each batch announced is read once, from its first step on, and handed
    with its announcement to that match's waiting viewers: a crowd at the head reads Redis once."""

    LINGER = 30.0

    def __init__(self, client: aioredis.Redis) -> None:
        self.client = client
        self.pubsub = client.pubsub()
        self.reads: set[asyncio.Task] = set()  # the batches being read (held: a task is otherwise lost)
        self.inboxes: dict[str, set[asyncio.Queue]] = {}
        self.confirmed: dict[str, asyncio.Future] = {}  # a channel's subscription, done once Redis said so
        self.idle_since: dict[str, float] = {}
        self.reader: asyncio.Task | None = None
        self.broken = False  # the subscription failed: the next wait starts a new one
        # one (un)subscribe at a time: two at once on a fresh PubSub would each open a connection
        self.commands = asyncio.Lock()

    async def join(self, name: str, inbox: asyncio.Queue) -> None:
        """Hand ``name``'s announcements to ``inbox`` from now on: returns once Redis confirmed the
        subscription, so that no batch announced after this returns is missed."""
        self.inboxes.setdefault(name, set()).add(inbox)
        self.idle_since.pop(name, None)
        if name not in self.confirmed:
            self.confirmed[name] = asyncio.get_running_loop().create_future()
            try:
                async with self.commands:
                    await self.pubsub.subscribe(name)
            except Exception as exc:
                await self.fail(exc)
                raise
        if self.reader is None or self.reader.done():
            self.reader = asyncio.get_running_loop().create_task(self.read())
        await asyncio.shield(self.confirmed[name])

    def leave(self, name: str, inbox: asyncio.Queue) -> None:
        inboxes = self.inboxes.get(name, set())
        inboxes.discard(inbox)
        if not inboxes:
            self.idle_since[name] = asyncio.get_running_loop().time()

    async def read(self) -> None:
        try:
            while self.pubsub.subscribed:
                message = await self.pubsub.get_message(timeout=1.0)
                if message is not None:
                    self.hand_out(message)
                await self.sweep()
        except Exception as exc:  # noqa: BLE001 - Redis gone: the waiting viewers' polls end empty at their deadline
            log.warning("live frames: the subscription failed (%s)", exc)
            await self.fail(exc)

    async def fail(self, exc: Exception) -> None:
        """Redis failed this subscription: the next wait starts a new one; this one's connection is let go."""
        self.broken = True
        for future in self.confirmed.values():
            if not future.done():
                future.set_exception(exc)
                future.exception()  # said: whoever waits for it gets it, nobody else is warned
        try:
            await self.pubsub.aclose()
        except Exception:  # noqa: BLE001 - already gone with the connection
            pass

    def hand_out(self, message: dict) -> None:
        name = message["channel"].decode()
        if message["type"] == "subscribe":
            future = self.confirmed.get(name)
            if future is not None and not future.done():
                future.set_result(None)
        elif message["type"] == "message" and self.inboxes.get(name):
            read = asyncio.get_running_loop().create_task(
                self.read_batch(name, json.loads(message["data"]), list(self.inboxes[name])))
            self.reads.add(read)
            read.add_done_callback(self.reads.discard)

    async def read_batch(self, name: str, news: dict, inboxes: list[asyncio.Queue]) -> None:
        """(the announcement, the frames from the batch's first step on: (step, frames), or None)."""
        batch = None
        if "first" in news:
            try:
                batch = await encoded_frames(int(name.rsplit(":", 1)[1]), news["first"], self.client)
            except Exception as exc:  # noqa: BLE001 - each viewer reads for itself then
                log.warning("live frames: %s unread (%s)", name, exc)
        for inbox in inboxes:
            inbox.put_nowait((news, batch))

    async def sweep(self) -> None:
        now = asyncio.get_running_loop().time()
        gone = [name for name, since in self.idle_since.items() if now - since > self.LINGER]
        for name in gone:
            del self.idle_since[name]
            self.inboxes.pop(name, None)
            self.confirmed.pop(name, None)
        if gone:
            async with self.commands:
                await self.pubsub.unsubscribe(*gone)


_announcements: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Announcements] = weakref.WeakKeyDictionary()


def announcements(client: aioredis.Redis) -> Announcements:
    """This event loop's Announcements (a new one after a failure)."""
    loop = asyncio.get_running_loop()
    held = _announcements.get(loop)
    if held is None or held.broken:
        held = _announcements[loop] = Announcements(client)
    return held


async def await_frames(match_id: int, start: int, timeout: float,
                       client: aioredis.Redis | None = None) -> tuple[int, list[bytes], bool]:
    """Long polling's wait, in an event loop (no thread held while it waits): the frames from step
    ``start`` on (the JSON bytes kept) as soon as there are any, waiting at most ``timeout`` seconds
    for the next batch; (the step of the first frame, the frames, whether the match's end was
    announced meanwhile). The viewers waiting in one process share one subscription (Announcements);
    the frames are read once it is confirmed: no batch is lost."""
    r = client or async_connection()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    hub, name, inbox = announcements(r), channel(match_id), asyncio.Queue()
    try:
        try:
            await asyncio.wait_for(hub.join(name, inbox), timeout)
        except asyncio.TimeoutError:
            return start, [], False
        first, frames = await encoded_frames(match_id, start, r)
        while not frames:
            left = deadline - loop.time()
            if left <= 0:
                return first, frames, False
            try:
                news, batch = await asyncio.wait_for(inbox.get(), left)
            except asyncio.TimeoutError:
                return first, frames, False
            if batch is not None and batch[0] == start:
                first, frames = batch  # what this viewer would read: the batch the others read
            else:
                first, frames = await encoded_frames(match_id, start, r)
            if "end" in news:
                return first, frames, True
        return first, frames, False
    finally:
        hub.leave(name, inbox)
