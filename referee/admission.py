"""Seats joining their matches: a ``Play`` stream (one seat), or a slot of a ``PlaySeats`` stream
(``play_seats.py``) admitted by the same rules.

A stream's first message must be a Hello whose seat token names a seat of a running match here;
the seat is then attached to the stream (MatchStart first, then the pending decision again, if
any), and what the bot sends goes to the seat's inbox, bounded (``limits.py``).
"""
from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from parlour.v1 import referee_pb2

from . import REFEREE_VERSION, wire
from .clock import LagQuota, LoopLag
from .identity import Identity, holder_of
from .limits import INBOX_LIMIT, is_remote_peer, version_error
from .log_budget import DROP, FLOOD
from .presence import Presence, tell
from .room import Room, Rooms
from .seats import Close, Outbox, Seat
from .settings import environment
from .status import end_call

PV = wire.PROTOCOL_VERSION


class Admission:
    """Admits seats to the rooms of this referee (``identity``: a seat token of another referee of
    the fleet is sent there, named through ``presence``)."""

    def __init__(self, rooms: Rooms, identity: Identity, presence: Presence, lag: LoopLag) -> None:
        self.rooms = rooms
        self.identity = identity
        self.presence = presence
        self.lag = lag  # the event loop's own lag: a decision's clock starts when it is handed over

    async def play(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        """A ``Play`` stream, raw bytes both ways: a message that does not parse is refused with a
        reason instead of breaking the stream."""
        iterator = request_iterator.__aiter__()
        raw = await first_message(iterator, context, "Hello")
        if raw is None:
            return
        admitted = await self.admit(raw)
        if isinstance(admitted, Close):
            end_call(context, admitted.code, admitted.reason)
            return
        room, seat_index = admitted
        seat = room.seats[seat_index]
        outbox: asyncio.Queue = asyncio.Queue()
        generation = self.join(room, seat_index, outbox, context)
        reader = asyncio.get_running_loop().create_task(self.read_bot(room, seat, generation, iterator))
        try:
            while True:
                message = await outbox.get()
                if isinstance(message, Close):
                    if message.code != grpc.StatusCode.OK:
                        end_call(context, message.code, message.reason)
                    return
                data = message.SerializeToString()
                seat.hand_over(message, self.lag)
                yield data
                if message.HasField("end"):
                    return
        finally:
            reader.cancel()
            seat.detach(generation)

    async def admit(self, raw: bytes) -> tuple[Room, int] | Close:
        """A seat's first message (on Play, or on a PlaySeats slot): the room and seat its Hello's
        token names, or why the seat is refused (Play ends with it, PlaySeats closes the slot)."""
        try:
            first = referee_pb2.BotMessage.FromString(raw)
        except DecodeError:
            first = None
        if first is None or first.WhichOneof("message") != "hello":
            return Close(grpc.StatusCode.INVALID_ARGUMENT, "the first message must be a Hello")
        why = version_error(first.hello.protocol_version, PV)
        if why:
            return Close(grpc.StatusCode.FAILED_PRECONDITION, why)
        found = self.rooms.seat_of(first.hello.seat_token)
        holder = holder_of(first.hello.seat_token)
        if found is None and holder and holder != self.identity.id:  # a fleet's seat sent to the wrong referee
            address = await tell(self.presence.address_of, holder)
            return Close(grpc.StatusCode.FAILED_PRECONDITION, f"this seat's match is held by referee {holder}"
                                                              f"{f' at {address}' if address else ''}, "
                                                              f"not {self.identity.id}: connect there")
        if found is None:
            return Close(grpc.StatusCode.UNAUTHENTICATED, "unknown or expired seat token")
        room, seat_index = found
        if room.seats[seat_index].closed:
            return Close(grpc.StatusCode.FAILED_PRECONDITION, room.seats[seat_index].closed)
        return room, seat_index

    def join(self, room: Room, seat_index: int, outbox: Outbox, context: grpc.aio.ServicerContext) -> int:
        """Attach an admitted seat to a stream (Play's queue, or a PlaySeats slot): MatchStart goes
        first, then the pending decision again, if any; returns the attachment's generation."""
        clock = room.match.clocks[seat_index]
        if clock.lag_quota is None and is_remote_peer(context):  # a bot across a network
            clock.lag_quota = LagQuota()
        seat = room.seats[seat_index]
        outbox.put_nowait(match_start(room, seat_index, seat.ever_joined))
        return seat.attach(outbox)

    async def read_bot(self, room: Room, seat: Seat, generation: int, iterator: Any) -> None:
        try:
            async for raw in iterator:
                if not self.take_bot_message(room, seat, generation, raw):
                    return
        except (asyncio.CancelledError, grpc.aio.AioRpcError):
            pass
        except Exception:  # noqa: BLE001 - a broken stream is a disconnect
            pass
        finally:
            seat.detach(generation)

    def take_bot_message(self, room: Room, seat: Seat, generation: int, raw: bytes) -> bool:
        """One message from a seat's bot (on Play, or on a PlaySeats slot): a log line is kept; an
        answer, or bytes that are no BotMessage, go to the seat's inbox. False: nothing more is
        read from this attachment (a stale stream, a forfeited seat, too many unread answers)."""
        if generation != seat.generation or seat.closed:
            return False
        arrived, lag = time.monotonic(), self.lag.now()
        try:
            message = referee_pb2.BotMessage.FromString(raw)
            kind = message.WhichOneof("message")
        except DecodeError:
            message, kind = None, None
        if kind == "log":
            return self.take_log_line(room, seat, generation, message.log, arrived)
        if seat.inbox.qsize() >= INBOX_LIMIT:  # answers nobody asked for: bounded, then cut off
            seat.close(generation, grpc.StatusCode.RESOURCE_EXHAUSTED,
                       f"more than {INBOX_LIMIT} answers sent that were not asked for")
            return False
        seat.inbox.put_nowait((arrived, lag, message if kind == "answer" else "malformed"))
        return True


    @staticmethod
    def take_log_line(room: Room, seat: Seat, generation: int, log: referee_pb2.LogLine, now: float) -> bool:
        """A log line within the seat's rate (referee.log_budget), else dropped; a flood closes the
        stream (False: nothing more is read from it). The owner reads why in the bot's log."""
        verdict = seat.log_budget.take(now)
        if verdict == DROP:
            return True
        index = room.seats.index(seat)
        note = seat.log_budget.dropped_note(now, last=verdict == FLOOD)
        if note:
            room.match.add_bot_log(index, log.decision_id, note, note=True)
        if verdict == FLOOD:
            reason = seat.log_budget.flood_reason()
            room.match.add_bot_log(index, log.decision_id, f"[the referee closed this bot's stream: {reason}]",
                                   note=True)
            seat.close(generation, grpc.StatusCode.RESOURCE_EXHAUSTED, reason)
            return False
        room.match.add_bot_log(index, log.decision_id, log.text)
        return True


async def first_message(iterator: Any, context: grpc.aio.ServicerContext, what: str) -> bytes | None:
    """A stream's first message, within the Hello timeout (None: the stream ends now, its status set)."""
    timeout = environment().hello_timeout
    try:
        return await asyncio.wait_for(iterator.__anext__(), timeout)
    except StopAsyncIteration:
        return None
    except asyncio.TimeoutError:
        end_call(context, grpc.StatusCode.DEADLINE_EXCEEDED, f"no {what} within {timeout:g} s")
        return None


def match_start(room: Room, seat: int, resumed: bool) -> referee_pb2.RefereeMessage:
    m = room.match
    start = referee_pb2.MatchStart(
        protocol_version=PV, match_id=room.id, game=m.config.game, variant=m.config.variant,
        options={k: wire.option_value(v) for k, v in m.config.options.items()}, seat=seat,
        players=m.config.players, bot_seed=m.bot_seeds[seat],
        time_control=referee_pb2.TimeControl(move_limit_seconds=m.time_control.move_limit,
                                             bank_seconds=m.time_control.bank),
        engine_version=m.game.engine_version, referee_version=REFEREE_VERSION,
        seat_attributes={k: str(v) for k, v in m.config.seats[seat].items()}, resumed=resumed)
    return referee_pb2.RefereeMessage(start=start)
