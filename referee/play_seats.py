"""Many seats on one stream: ``PlaySeats`` (docs/protocol.md, "Many seats on one stream").

Each slot of the stream is attached to its seat exactly as a ``Play`` stream is (the same
admission, join, reading and clock: ``admission.py``); what the referee sends to every slot goes
through the stream's one queue and is written as one ``RefereeBatch`` of everything queued at the
time. Raw bytes both ways (``batch.py``): one slot's bad message is that slot's, and a batch is
serialized once.
"""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from parlour.v1 import referee_pb2

from . import wire
from .admission import Admission, first_message
from .batch import RawBatch, RawEntry
from .limits import version_error
from .room import Room
from .seats import Close, Seat
from .status import end_call

PV = wire.PROTOCOL_VERSION


async def play_seats(admission: Admission, request_iterator: Any,
                     context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
    """A ``PlaySeats`` stream, until the bot closes its side or sends what is not a BotBatch."""
    iterator = request_iterator.__aiter__()
    raw = await first_message(iterator, context, "BotBatch")
    if raw is None:
        return
    stream = SlotStream(admission, context)
    reader = asyncio.get_running_loop().create_task(stream.read(raw, iterator))
    try:
        async for data in stream.batches():
            yield data
    finally:
        reader.cancel()
        stream.close()


class Slot:
    """A slot of a PlaySeats stream: the outbox of the seat it is attached to, which tags each
    message with the slot and puts it in the stream's one queue."""

    __slots__ = ("number", "queue", "room", "seat", "generation", "reading")

    def __init__(self, number: int, queue: asyncio.Queue) -> None:
        self.number = number
        self.queue = queue
        self.room: Room | None = None  # None: a refused slot, closed as soon as the writer sees it
        self.seat: Seat | None = None
        self.generation = 0
        self.reading = False  # whether the bot's messages on this slot still go to its seat

    def put_nowait(self, item: object) -> None:
        self.queue.put_nowait((self, item))


READER_DONE = Close(grpc.StatusCode.OK, "the bot closed its side of the stream")


class SlotStream:
    """One PlaySeats stream: its open slots, each attached to its seat exactly as a Play stream is
    (the same admission, join, reading and clock), and the one queue all of them send by, written
    as one ``RefereeBatch`` of everything queued at the time."""

    def __init__(self, admission: Admission, context: grpc.aio.ServicerContext) -> None:
        self.admission = admission
        self.context = context
        self.queue: asyncio.Queue = asyncio.Queue()  # (slot, message), or (None, Close) for the stream
        self.slots: dict[int, Slot] = {}  # open slots by number
        self.ended: set[int] = set()  # numbers of slots that ended: late messages on them are dropped

    # ---------------------------------------------------------------- from the bot
    async def read(self, first: bytes, iterator) -> None:
        """The bot's batches, each message to its slot, until the bot closes its side (every open
        slot is then closed, as a Play stream would be) or sends what is not a BotBatch."""
        try:
            if not await self.take_batch(first):
                return
            async for raw in iterator:
                if not await self.take_batch(raw):
                    return
            self.queue.put_nowait((None, READER_DONE))
        except (asyncio.CancelledError, grpc.aio.AioRpcError):
            pass
        except Exception:  # noqa: BLE001 - a broken stream is a disconnect of every slot
            self.queue.put_nowait((None, READER_DONE))

    async def take_batch(self, raw: bytes) -> bool:
        """One BotBatch; False when it ends the stream (it is none, or of another protocol)."""
        try:
            batch = RawBatch.FromString(raw)
        except DecodeError:
            self.queue.put_nowait((None, Close(grpc.StatusCode.INVALID_ARGUMENT, "a message that is not a BotBatch")))
            return False
        why = version_error(batch.protocol_version, PV)
        if why:
            self.queue.put_nowait((None, Close(grpc.StatusCode.FAILED_PRECONDITION, why)))
            return False
        for entry in batch.messages:
            slot = self.slots.get(entry.slot)
            if slot is None:
                await self.open(entry.slot, entry.message)
            elif slot.reading and not self.admission.take_bot_message(slot.room, slot.seat, slot.generation,
                                                                      entry.message):
                slot.reading = False  # as a Play stream's reader stops: the seat is detached
                slot.seat.detach(slot.generation)
        return True

    async def open(self, number: int, raw: bytes) -> None:
        """A message on a slot that is not open: a Hello opens it, as on Play; anything else is
        refused on that slot only (and dropped when the slot has just ended: a late answer)."""
        admitted = await self.admission.admit(raw)
        slot = Slot(number, self.queue)
        if isinstance(admitted, Close):
            if number in self.ended and admitted.code == grpc.StatusCode.INVALID_ARGUMENT:
                return
            self.slots[number] = slot
            slot.put_nowait(admitted)
            return
        slot.room, seat_index = admitted
        slot.seat = slot.room.seats[seat_index]
        slot.reading = True
        self.slots[number] = slot
        self.ended.discard(number)
        slot.generation = self.admission.join(slot.room, seat_index, slot, self.context)

    # ---------------------------------------------------------------- to the bot
    async def batches(self) -> AsyncIterator[bytes]:
        """Each RefereeBatch to send: one queued message, then everything else already queued
        (a Bszzzz window's decisions, asked together, travel together)."""
        while True:
            items = [await self.queue.get()]
            while not self.queue.empty():
                items.append(self.queue.get_nowait())
            entries, sent, stop = [], [], None
            for slot, message in items:
                if slot is None:  # the stream's own end (a reader puts one, and stops)
                    stop = message
                    if message is READER_DONE:  # the bot closed its side: so is every slot still open
                        entries.extend(self.closing(open_slot, message) for open_slot in list(self.slots.values()))
                    continue
                if self.slots.get(slot.number) is not slot:  # a slot already ended: nothing more for it
                    continue
                if isinstance(message, Close):
                    entries.append(self.closing(slot, message))
                    continue
                entries.append(RawEntry(slot=slot.number, message=message.SerializeToString()))
                sent.append((slot, message))
                if message.HasField("end"):  # the match is over: so is the slot
                    self.end(slot)
            if entries:
                data = RawBatch(protocol_version=PV, messages=entries).SerializeToString()
                for slot, message in sent:
                    slot.seat.hand_over(message, self.admission.lag)
                yield data
            if stop is not None:
                if stop.code != grpc.StatusCode.OK:
                    end_call(self.context, stop.code, stop.reason)
                return

    def closing(self, slot: Slot, close: Close) -> RawEntry:
        """The slot ends with this code and reason: the SeatClosed entry that tells the bot."""
        self.end(slot)
        closed = referee_pb2.SeatClosed(protocol_version=PV, code=close.code.name, reason=close.reason)
        return RawEntry(slot=slot.number, message=referee_pb2.RefereeMessage(closed=closed).SerializeToString())

    def end(self, slot: Slot) -> None:
        """The slot is over (as a Play stream's handler returns): its seat is detached."""
        del self.slots[slot.number]
        self.ended.add(slot.number)
        if slot.seat is not None:
            slot.seat.detach(slot.generation)

    def close(self) -> None:
        """The stream is gone: every slot still open counts as disconnected."""
        for slot in list(self.slots.values()):
            self.end(slot)
