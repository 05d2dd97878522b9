"""A seat's connection to the bot that plays it: a ``Play`` stream, or a slot of a ``PlaySeats``
stream (many seats on one stream, in batches: ``play_seats.py``, docs/protocol.md). Either way the
seat has one outbox (what goes to the bot) and one inbox (what the bot answered); a slot's outbox
is the stream's one queue, each message tagged with its slot."""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Protocol

import grpc

from parlour.v1 import referee_pb2

from . import wire
from .clock import LoopLag, Stopwatch
from .inbox import Deadlines, Inbox
from .limits import INBOX_LIMIT
from .log_budget import LogBudget
from .settings import environment

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
        self.log_budget = LogBudget(environment().log_lines_per_second)  # for the match, across resumes

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
