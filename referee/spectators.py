"""The three ways to follow a match, each over its room's one broadcast (``broadcast.py``):

- ``WatchMatch``: the live spectator stream, public views only (anyone, within limits);
- ``GetReplay``: the replay in chunks: the public part while the match runs, all of it once it is
  over (bot log lines only to the operator, or to a bot's API token for its own seats);
- ``FollowMatch``: the operator's one call per match: its frames, its end, its replay.

Who may hold how many WatchMatch and GetReplay calls (``limits.py``): the operator, any number; a
caller with a bot's API token (``authorization: Bearer <token>``, or GetReplay's ``api_token``), a
number per token wherever it connects from; anyone else, a number per match and per address. Every
call but the operator's counts towards one budget for the referee. So 200 anonymous watchers behind
one address fill that address's share, not an authenticated watcher's, and nobody fills the
referee. Anonymous watchers of a match share one stream of events, serialized once, and readers of a
finished replay share one copy per kind of reader (``Room.replay_for``): a flood of calls costs
sending, not building.
"""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import grpc

from parlour.v1 import referee_pb2

from . import wire
from .auth import bearer_token, check_version, is_operator, require_operator
from .limits import Quota, peer_of
from .room import Room, Rooms
from .settings import environment
from .tokens import Verifier

PV = wire.PROTOCOL_VERSION
REPLAY_CHUNK = 64 * 1024
FRAME_INTERVAL = 0.1  # seconds: FollowMatch sends the frames of a running match in batches this far apart


OPERATOR = object()  # who a call of the operator's is (``Spectators.slot``)


def own_seats(room: Room, caller: object) -> set[int] | None:
    """The seats whose log lines and notes this caller may read: all (None) for the operator, a
    bot's own seats for its API token, none for anyone else."""
    if caller is OPERATOR:
        return None
    return {s for s, remote in enumerate(room.remote_bots) if remote == caller} if caller else set()


class Spectators:
    def __init__(self, rooms: Rooms, operator_token: str, verifier: Verifier) -> None:
        self.rooms = rooms
        self.operator_token = operator_token
        self.verifier = verifier
        limits = environment()
        self.match_calls = Quota(limits.watchers_per_match)  # anonymous WatchMatch/GetReplay per match
        self.peer_calls = Quota(limits.spectator_calls_per_peer)  # the same, per peer
        self.identity_calls = Quota(limits.spectator_calls_per_identity)  # a bot API token's, wherever from
        self.all_calls = Quota(limits.spectator_calls)  # everyone's but the operator's, under one key

    async def room(self, match_id: str, context: grpc.aio.ServicerContext) -> Room:
        room = self.rooms.get(match_id)
        if room is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {match_id}")
        return room

    async def identity(self, context: grpc.aio.ServicerContext, api_token: str = "") -> str | None:
        """The bot whose API token the call carries (the request's, else the authorization
        metadata's), or None: an anonymous caller (no token, or one the verifier does not know)."""
        token = api_token or bearer_token(context)
        if not token or self.verifier is None:
            return None
        return await asyncio.to_thread(self.verifier, token) or None

    @asynccontextmanager
    async def slot(self, room: Room, context: grpc.aio.ServicerContext, api_token: str = ""):
        """A WatchMatch or GetReplay call's place within the limits (the module's docstring); it
        yields who is calling: OPERATOR, the bot whose API token the call carries, or None."""
        if is_operator(context, self.operator_token):
            yield OPERATOR
            return
        bot_id = await self.identity(context, api_token)
        if self.all_calls.full("all"):
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"{self.all_calls.limit} spectator calls already open on this referee: try again "
                                f"shortly")
        if bot_id is not None:
            if self.identity_calls.full(bot_id):
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                    f"{self.identity_calls.limit} spectator calls already open with this API token")
            with self.all_calls.held("all"), self.identity_calls.held(bot_id):
                yield bot_id
            return
        peer = peer_of(context)
        if self.match_calls.full(room.id):
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"this match already has {self.match_calls.limit} anonymous spectator calls open "
                                f"(an API token is counted apart)")
        if self.peer_calls.full(peer):
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"{self.peer_calls.limit} anonymous spectator calls already open from {peer} "
                                f"(an API token is counted apart)")
        with self.all_calls.held("all"), self.match_calls.held(room.id), self.peer_calls.held(peer):
            yield None

    # ------------------------------------------------------------------ WatchMatch
    async def watch(self, request: referee_pb2.WatchMatchRequest,
                    context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        """Raw-bytes responses: every watcher is sent the same events, serialized once. A slow
        reader waits on its own stream: nothing piles up here."""
        await check_version(request.protocol_version, context)
        room = await self.room(request.match_id, context)
        async with self.slot(room, context):
            feed, sent = room.broadcast.feed, 0
            while True:
                changed = room.broadcast.changed  # taken before looking, so no change between is missed
                while sent < len(feed.marks):
                    data = feed.event(sent)
                    sent += 1
                    yield data
                if feed.end is not None:
                    yield feed.end
                    return
                await changed.wait()

    # ------------------------------------------------------------------ GetReplay
    async def replay(self, request: referee_pb2.GetReplayRequest,
                     context: grpc.aio.ServicerContext) -> AsyncIterator[referee_pb2.ReplayChunk]:
        await check_version(request.protocol_version, context)
        room = await self.room(request.match_id, context)
        async with self.slot(room, context, request.api_token) as caller:
            if room.end_message is not None:  # over: the replay is being written, it is worth the wait
                await room.done.wait()
            if room.replay_gz is not None:
                seats = own_seats(room, caller)
                # the operator's: as built, every bot log line and note in it; anyone else's: the
                # lines and notes they may read (none, or their bot's), built once per kind of reader
                data = room.replay_gz if seats is None else await room.replay_for(frozenset(seats))
            else:  # live or aborted: the public part only, no seed, no seat views
                data = await room.broadcast.public_replay(room.public_header(), room.status, room.finished)
            for start in range(0, len(data), REPLAY_CHUNK):
                yield referee_pb2.ReplayChunk(protocol_version=PV, data=data[start:start + REPLAY_CHUNK],
                                              last=start + REPLAY_CHUNK >= len(data))

    # ------------------------------------------------------------------ FollowMatch
    async def follow(self, request: referee_pb2.FollowMatchRequest,
                     context: grpc.aio.ServicerContext) -> AsyncIterator[referee_pb2.MatchProgress]:
        await require_operator(context, self.operator_token, "FollowMatch")
        room = await self.room(request.match_id, context)
        frames, sent = room.broadcast.frames_for_creator(), 0
        while True:
            changed = room.broadcast.changed  # taken before looking, so no change between is missed
            if len(frames) > sent:
                batch = [frame.decode() for frame in frames[sent:]]  # the replay's own frames
                yield referee_pb2.MatchProgress(protocol_version=PV, first_step=sent, frames=batch)
                sent += len(batch)
            if room.finished:
                break
            if sent:  # coalesce: at most one batch per FRAME_INTERVAL, but the end at once
                try:
                    await asyncio.wait_for(room.done.wait(), FRAME_INTERVAL)
                except asyncio.TimeoutError:
                    pass
            if room.broadcast.changed is changed and not room.finished:
                await changed.wait()
        room.broadcast.handed_over()
        data = room.replay_gz or b""
        yield referee_pb2.MatchProgress(protocol_version=PV, end=room.end_message, last=not data)
        for start in range(0, len(data), REPLAY_CHUNK):
            yield referee_pb2.MatchProgress(protocol_version=PV, replay_chunk=data[start:start + REPLAY_CHUNK],
                                            last=start + REPLAY_CHUNK >= len(data))
