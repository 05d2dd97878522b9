"""A seat's connection to the bot that plays it: a ``Play`` stream, or a slot of a ``PlaySeats``
stream (many seats on one stream, in batches: docs/protocol.md). Either way the seat has one
outbox (what goes to the bot) and one inbox (what the bot answered); a slot's outbox is the
stream's one queue, each message tagged with its slot."""
from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import grpc
from google.protobuf.message import DecodeError

from parlour.v1 import referee_pb2

from . import wire
from .batch import RawBatch, RawEntry
from .clock import LoopLag, Stopwatch
from .inbox import Deadlines, Inbox
from .limits import INBOX_LIMIT, version_error

if TYPE_CHECKING:
    from .server import RefereeService, Room

PV = wire.PROTOCOL_VERSION
# what goes to a bot: a message, or a decision kept in parts (serialized by joining them)
Outgoing = referee_pb2.RefereeMessage | wire.DecisionMessage


@dataclass(frozen=True)
class Close:
    """Put in a seat's outbox: end its stream (on PlaySeats: its slot) with this status and reason."""

    code: grpc.StatusCode
    reason: str


@dataclass
class Pending:
    """The decision a seat is being asked, re-sent to a stream that resumes the seat."""

    decision_id: int
    message: wire.DecisionMessage
    watch: Stopwatch
    limit: float  # seconds of think time before it is a timeout


class Outbox(Protocol):
    """Where a seat's messages to its bot go: a Play stream's queue, or a PlaySeats slot."""

    def put_nowait(self, item: object) -> None: ...


class Seat:
    """One seat's connection: the stream (or slot) currently attached, if any."""

    def __init__(self, deadlines: Deadlines) -> None:
        self.outbox: Outbox | None = None  # messages to the attached stream
        # (arrival time, referee lag then, message or error) from the bot: one queue for the seat's
        # whole match, so a decision awaited across a resume reads the new stream's answer
        self.inbox = Inbox(deadlines)
        self.attached = asyncio.Event()
        self.ever_joined = False
        self.generation = 0  # bumps on every (re)attach, so a stale stream cannot act
        self.answered: set[int] = set()  # decision ids already settled for this seat
        self.pending: Pending | None = None
        self.closed: str | None = None  # why no stream may attach any more (the seat was forfeited)

    def attach(self, outbox: Outbox) -> int:
        """Send the seat's messages to ``outbox`` from now on; returns the attachment's generation."""
        if self.outbox is not None:  # a resumed seat closes the stream it replaces, half-open or not
            self.outbox.put_nowait(Close(grpc.StatusCode.ABORTED, "this seat was resumed on a newer stream"))
        self.generation += 1
        self.outbox = outbox
        self.attached.set()
        self.ever_joined = True
        if self.pending is not None:  # the decision awaiting an answer, again, with the time left
            decision = self.pending.message.decision
            decision.deadline_seconds = max(0.0, self.pending.limit - self.pending.watch.elapsed())
            self.outbox.put_nowait(self.pending.message)
        return self.generation

    def detach(self, generation: int) -> None:
        if generation == self.generation:
            self.attached.clear()
            if self.outbox is not None:  # the bot stopped sending: its stream ends too
                self.outbox.put_nowait(Close(grpc.StatusCode.OK, "the bot closed its side of the stream"))
            self.outbox = None
            if self.inbox.qsize() <= INBOX_LIMIT:  # wakes a waiting decision
                self.inbox.put_nowait((time.monotonic(), 0.0, None))

    def send(self, message: Outgoing) -> None:
        if self.outbox is not None:
            self.outbox.put_nowait(message)

    def close(self, generation: int | None, code: grpc.StatusCode, reason: str) -> None:
        """End the attached stream (of ``generation``, or whichever it is) with a reason."""
        if self.outbox is not None and generation in (None, self.generation):
            self.outbox.put_nowait(Close(code, reason))

    def forfeit(self, reason: str) -> None:
        """No more messages from this bot: its stream is closed and its inbox freed."""
        self.closed = reason
        self.close(None, grpc.StatusCode.OK, reason)
        self.inbox = Inbox(self.inbox.deadlines)

    def hand_over(self, message: Outgoing, lag: LoopLag) -> None:
        """``message`` (serialized already) is being handed to the transport: a decision's clock starts."""
        if not message.HasField("decision"):
            return
        pending = self.pending
        if pending is not None and pending.decision_id == message.decision.decision_id:
            if pending.watch.started is None:  # the decision's wait ends by its limit from now
                self.inbox.wake_by(pending.limit)
            pending.watch.start(time.monotonic(), lag.now())


# ------------------------------------------------------------------------------ PlaySeats


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

    def __init__(self, service: RefereeService, context: grpc.aio.ServicerContext) -> None:
        self.service = service
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
        except Exception:  # a broken stream is a disconnect of every slot
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
            elif slot.reading and not self.service.take_bot_message(slot.room, slot.seat, slot.generation,
                                                                    entry.message):
                slot.reading = False  # as a Play stream's reader stops: the seat is detached
                slot.seat.detach(slot.generation)
        return True

    async def open(self, number: int, raw: bytes) -> None:
        """A message on a slot that is not open: a Hello opens it, as on Play; anything else is
        refused on that slot only (and dropped when the slot has just ended: a late answer)."""
        admitted = await self.service.admit(raw, self.context)
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
        slot.generation = self.service.join(slot.room, seat_index, slot, self.context)

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
                    slot.seat.hand_over(message, self.service.lag)
                yield data
            if stop is not None:
                if stop.code != grpc.StatusCode.OK:
                    await self.context.abort(stop.code, stop.reason)
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
