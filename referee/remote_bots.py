"""Remote bots on this referee: their standing ``Connect`` streams, the seats offered on them, and
their presence told to the platform (``presence.py``).

One live connection per remote bot: a new one replaces the one before (here, or on another referee
of the fleet: the presence board says so), and the replaced stream closes with ABORTED saying why.
Its API token is checked again every ``PARLOUR_TOKEN_RECHECK`` seconds: once revoked (or its bot
switched off) the stream closes with UNAUTHENTICATED.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import grpc

from parlour.v1 import referee_pb2

from . import wire
from .auth import check_version
from .identity import Identity
from .presence import Presence, tell
from .room import Room, Rooms
from .settings import environment
from .tokens import Verifier

REPLACED, REVOKED = object(), object()  # what a Connect stream's queue may hold besides offers
PV = wire.PROTOCOL_VERSION
log = logging.getLogger("parlour.referee")


class RemoteBots:
    """The Connect streams open here, by bot id (a bot's older stream stays listed until it closes)."""

    def __init__(self, rooms: Rooms, verifier: Verifier, presence: Presence, identity: Identity) -> None:
        self.rooms = rooms
        self.verifier = verifier
        self.presence = presence
        self.identity = identity
        self.queues: dict[str, list[asyncio.Queue]] = {}  # bot id -> its Connect streams' queues

    def offer(self, room: Room, seat: int, bot_id: str) -> None:
        """Offer a seat to its remote bot, on every stream it has open here."""
        offer = referee_pb2.MatchOffer(protocol_version=PV, match_id=room.id, game=room.match.config.game,
                                       variant=room.match.config.variant, seat=seat,
                                       seat_token=room.tokens[seat], bot_id=bot_id)
        for queue in self.queues.get(bot_id, []):
            queue.put_nowait(offer)

    def offer_seats(self, room: Room) -> None:
        """A new match's remote seats, each offered to its bot."""
        for seat, bot_id in enumerate(room.remote_bots):
            if bot_id:
                self.offer(room, seat, bot_id)

    async def connect(self, request: referee_pb2.ConnectRequest,
                      context: grpc.aio.ServicerContext) -> AsyncIterator[referee_pb2.MatchOffer]:
        """A remote bot's standing connection: a first offer naming the bot, then its seats."""
        await check_version(request.protocol_version, context)
        bot_id = await asyncio.to_thread(self.verifier, request.api_token)  # it may do I/O
        if not bot_id:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown or revoked API token")
        for older in self.queues.get(bot_id, []):
            older.put_nowait(REPLACED)
        queue: asyncio.Queue = asyncio.Queue()
        self.queues.setdefault(bot_id, []).append(queue)
        await tell(self.presence.connected, self.identity, bot_id)
        recheck = asyncio.get_running_loop().create_task(self.recheck_token(request.api_token, bot_id, queue))
        try:
            yield referee_pb2.MatchOffer(protocol_version=PV, bot_id=bot_id)
            # matches created before this connection that still wait for this bot
            for room in self.rooms:
                for seat, remote in enumerate(room.remote_bots):
                    if remote == bot_id and not room.finished and not room.seats[seat].ever_joined:
                        self.offer(room, seat, bot_id)
            while True:
                offer = await queue.get()
                if offer is REPLACED:
                    await context.abort(grpc.StatusCode.ABORTED, f"replaced: a newer connection of {bot_id} took "
                                                                 "over (one live connection per remote bot)")
                if offer is REVOKED:
                    await context.abort(grpc.StatusCode.UNAUTHENTICATED, "the API token was revoked "
                                                                         "(or its bot switched off)")
                yield offer
        finally:
            recheck.cancel()
            self.queues[bot_id].remove(queue)
            if not self.queues[bot_id]:  # its presence goes with its last connection here
                asyncio.get_running_loop().create_task(tell(self.presence.disconnected, self.identity, bot_id))

    def connected(self) -> list[str]:
        """The bots with a Connect stream open here."""
        return [bot_id for bot_id, queues in self.queues.items() if queues]

    def taken_elsewhere(self, bot_id: str) -> None:
        """A newer connection of this bot on another referee of the fleet replaced the one here."""
        for queue in self.queues.get(bot_id, []):
            queue.put_nowait(REPLACED)

    async def recheck_token(self, token: str, bot_id: str, queue: asyncio.Queue) -> None:
        every = environment().token_recheck  # a revoked token loses its stream within this time
        while True:
            await asyncio.sleep(every)
            try:
                still = await asyncio.to_thread(self.verifier, token)
            except Exception:  # the platform unreachable: no verdict, keep the bot
                log.warning("the token of %s could not be checked again", bot_id, exc_info=True)
                continue
            if still != bot_id:
                queue.put_nowait(REVOKED)
                return
