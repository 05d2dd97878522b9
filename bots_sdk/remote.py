"""Playing through a referee: one seat over a Play stream, or a remote bot that takes every match
it is offered on a Connect stream."""
from __future__ import annotations

import asyncio
import concurrent.futures
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from parlour.v1 import referee_pb2, referee_pb2_grpc
from referee import wire
from referee.log_budget import RATE as LOG_RATE, LogBudget
from referee.plain import describe, is_plain

from .bot import Bot
from .decision_messages import decision_from_messages
from .failure import failure_report
from .loading import BotSpecError
from .output_capture import OutputCapture

PV = wire.PROTOCOL_VERSION


class RefereeError(Exception):
    """The referee refused us (bad token, unknown match): one line for the user."""


def play_seat(make_bot: Callable[[str], Bot], referee: str, seat_token: str,
              capture: OutputCapture | None = None) -> dict[str, Any]:
    """Play one seat until the match ends; returns the result. ``make_bot(game)`` builds the bot
    once the match start says which game it is; with ``capture``, what the bot writes to stdout and
    stderr travels as log lines of the decision it was written during."""
    return asyncio.run(_play_seat(make_bot, referee, seat_token, capture))


async def _play_seat(make_bot: Callable[[str], Bot], referee: str, seat_token: str,
                     capture: OutputCapture | None) -> dict[str, Any]:
    # asyncio gRPC: reads and writes on this one thread, with no hand-off to a sender thread per
    # answer (the synchronous client's request iterator costs a thread wake-up every decision)
    async with grpc.aio.insecure_channel(referee) as channel:  # HOST:PORT or unix:PATH
        return await _play_seat_on(channel, make_bot, referee, seat_token, capture)


def serve_seats(make_bot: Callable[[str], Bot], referee: str, tokens: Iterator[str],
                capture: OutputCapture | None = None) -> int:
    """A warm bot process: play the seat of each token from ``tokens`` (one at a time, in order)
    with a fresh bot for each match, on one channel; returns the number of seats played. A seat
    the referee refuses is reported on stderr and skipped; a bot that cannot even be built ends
    the process (whoever started it starts a fresh one)."""
    async def serve() -> int:
        played = 0
        async with grpc.aio.insecure_channel(referee) as channel:
            while True:
                token = await asyncio.to_thread(next, tokens, None)
                if token is None:
                    return played
                if capture is not None:
                    capture.new_match()
                try:
                    await _play_seat_on(channel, make_bot, referee, token, capture)
                except RefereeError as exc:
                    print(f"seat not played: {exc}", file=sys.stderr, flush=True)
                played += 1

    return asyncio.run(serve())


def serve_many_seats(make_bot: Callable[[str], Bot], referee: str, tokens: Iterator[str]) -> int:
    """A warm bot process that plays every seat it is given at once, on one PlaySeats stream: each
    token read from ``tokens`` opens a slot at once (a fresh bot for each seat), each batch from
    the referee is answered with one batch. When ``tokens`` ends, the seats in play are finished,
    then it returns the number of seats it was given. For bots that answer at once (the house's
    random and greedy): every seat waits while one decides."""
    return asyncio.run(_serve_many_seats(make_bot, referee, tokens))


async def _serve_many_seats(make_bot: Callable[[str], Bot], referee: str, tokens: Iterator[str]) -> int:
    incoming = tokens_as_they_come(tokens)
    async with grpc.aio.insecure_channel(referee) as channel:
        stream: SeatsStream | None = None
        given = 0
        while True:
            token = asyncio.ensure_future(incoming.get())
            await asyncio.wait({token, stream.reader} if stream else {token}, return_when=asyncio.FIRST_COMPLETED)
            if stream is not None and stream.reader.done():  # the stream broke: its seats are lost
                token.cancel()
                stream.reader.result()  # raises why
                raise RefereeError(f"referee {referee}: the stream ended while seats were still to come")
            if token.result() is None:
                break
            if stream is None:  # opened with its first seat: a stream waits for no Hello
                stream = SeatsStream(referee_pb2_grpc.RefereeStub(channel), make_bot, referee)
            await stream.open(token.result())
            given += 1
        if stream is not None:
            await stream.finish()
        return given


def tokens_as_they_come(tokens: Iterator[str]) -> asyncio.Queue:
    """The tokens in a queue of the running loop, then None: read by a daemon thread, which never
    holds the process up once the stream is gone (a blocking read cannot be cancelled)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue()

    def read() -> None:
        try:
            for token in tokens:
                loop.call_soon_threadsafe(queue.put_nowait, token)
            loop.call_soon_threadsafe(queue.put_nowait, None)
        except RuntimeError:  # the loop is closed: the process is ending
            pass

    threading.Thread(target=read, name="tokens", daemon=True).start()
    return queue


class SeatsStream:
    """One PlaySeats stream and the seats it plays, one SeatPlayer per slot."""

    def __init__(self, stub: referee_pb2_grpc.RefereeStub, make_bot: Callable[[str], Bot], referee: str) -> None:
        self.call = stub.PlaySeats()
        self.make_bot = make_bot
        self.referee = referee
        self.players: dict[int, SeatPlayer] = {}  # open slots
        self.writing = asyncio.Lock()  # one write at a time: the seat opener and the answers share it
        self.idle = asyncio.Event()  # set while no slot is open
        self.idle.set()
        self.reader = asyncio.get_running_loop().create_task(self.read())

    async def open(self, token: str) -> None:
        """A slot for this seat: the smallest number not in use."""
        slot = next(n for n in range(len(self.players) + 1) if n not in self.players)
        self.players[slot] = SeatPlayer(self.make_bot)
        self.idle.clear()
        hello = referee_pb2.BotMessage(hello=referee_pb2.Hello(protocol_version=PV, seat_token=token))
        await self.send([(slot, hello)])

    async def finish(self) -> None:
        """Play out the seats in play, then close the stream."""
        await asyncio.wait({asyncio.ensure_future(self.idle.wait()), self.reader}, return_when=asyncio.FIRST_COMPLETED)
        if not self.reader.done():
            async with self.writing:
                await self.call.done_writing()
        await self.reader

    async def send(self, entries: list[tuple[int, referee_pb2.BotMessage]]) -> None:
        batch = referee_pb2.BotBatch(protocol_version=PV, messages=[
            referee_pb2.SlotBotMessage(slot=slot, message=message) for slot, message in entries])
        async with self.writing:
            await self.call.write(batch)

    async def read(self) -> None:
        """Each batch from the referee, answered with one batch (each slot's log lines before its
        answer). A broken stream ends the process: whoever started it starts a fresh one."""
        try:
            while True:
                batch = await self.call.read()
                if batch is grpc.aio.EOF:
                    return
                replies: list[tuple[int, referee_pb2.BotMessage]] = []
                for entry in batch.messages:
                    replies.extend((entry.slot, reply) for reply in self.take(entry.slot, entry.message))
                if replies:
                    await self.send(replies)
        except grpc.RpcError as exc:
            raise RefereeError(f"referee {self.referee}: {exc.code().name}: {exc.details()}") from None

    def take(self, slot: int, message: referee_pb2.RefereeMessage) -> list[referee_pb2.BotMessage]:
        """One message to one slot; what the seat answers."""
        player = self.players.get(slot)
        if player is None:
            return []
        kind = message.WhichOneof("message")
        if kind == "start":
            player.begin(message.start)
        elif kind == "decision":
            reply = player.answer(message.decision)
            return [*player.log_messages(message.decision.decision_id), reply]
        elif kind == "end":
            self.close(slot)
            try:
                player.end(message.end)
            except Exception as exc:  # noqa: BLE001 - one seat's bot: the other seats play on
                print(f"seat {slot}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        elif kind == "closed":
            self.close(slot)
            if message.closed.code != "OK":
                print(f"seat not played: referee {self.referee}: {message.closed.code}: {message.closed.reason}",
                      file=sys.stderr, flush=True)
        return []

    def close(self, slot: int) -> None:
        del self.players[slot]
        if not self.players:
            self.idle.set()


async def _play_seat_on(channel: grpc.aio.Channel, make_bot: Callable[[str], Bot], referee: str, seat_token: str,
                        capture: OutputCapture | None) -> dict[str, Any]:
    stub = referee_pb2_grpc.RefereeStub(channel)
    call = stub.Play()
    player = SeatPlayer(make_bot, capture)
    forfeited: referee_pb2.FaultNotice | None = None
    try:
        await call.write(referee_pb2.BotMessage(hello=referee_pb2.Hello(protocol_version=PV, seat_token=seat_token)))
        while True:
            message = await call.read()
            if message is grpc.aio.EOF:
                if forfeited is not None:  # the referee closes a forfeited seat's stream
                    return {"forfeited": True, "reason": forfeited.reason}
                break
            kind = message.WhichOneof("message")
            if kind == "start":
                player.begin(message.start)
            elif kind == "decision":
                if capture is None or player.broken is not None:
                    reply = player.answer(message.decision)
                else:
                    reply = await answer_sending_output(call, player, message.decision, capture)
                # the lines first: the stream keeps its order, so the referee has them before the
                # answer that may end the match
                for line in player.log_messages(message.decision.decision_id):
                    await call.write(line)
                await call.write(reply)
            elif kind == "fault" and message.fault.forfeited:
                forfeited = message.fault
            elif kind == "end":
                try:
                    return player.end(message.end)  # a warm process whose bot cannot be built ends here
                finally:
                    await call.done_writing()
    except grpc.RpcError as exc:
        raise RefereeError(f"referee {referee}: {exc.code().name}: {exc.details()}") from None
    raise RefereeError("the referee closed the stream before the match ended")


class SeatPlayer:
    """One seat's bot, whichever stream plays it: built and started at MatchStart (a fresh bot for
    each match), asked at each Decision, told at MatchEnd. A bot that cannot be built or started
    keeps its seat: each decision is answered with why, so the owner reads the reason and the
    traceback at the first decision of the replay."""

    def __init__(self, make_bot: Callable[[str], Bot], capture: OutputCapture | None = None) -> None:
        self.make_bot = make_bot
        self.capture = capture
        self.bot: Bot | None = None
        self.start: referee_pb2.MatchStart | None = None
        self.options: dict[str, Any] = {}  # the match's options, read once from its start
        self.broken: Exception | None = None  # why the bot could not be built or started
        self.failure, self.details = "", []
        self.log_budget = LogBudget(LOG_RATE)  # the referee's default: lines dropped here, not the stream

    def begin(self, start: referee_pb2.MatchStart) -> None:
        self.start = start
        self.options = {k: wire.option_python(v) for k, v in start.options.items()}
        if self.bot is not None or self.broken is not None:  # a resumed seat keeps its bot
            return
        try:
            self.bot = self.make_bot(start.game)
            self.bot.start(start.game, start.seat, dict(self.options), start.bot_seed)
        except Exception as exc:  # noqa: BLE001 - the bot's own code: its seat answers with the failure
            self.broken = exc
            self.failure, self.details = start_failure(exc)

    def answer(self, decision: referee_pb2.Decision) -> referee_pb2.BotMessage:
        if self.broken is not None:
            return referee_pb2.BotMessage(answer=referee_pb2.Answer(
                protocol_version=PV, decision_id=decision.decision_id, failure=self.failure))
        return answer(self.bot, self.start, decision, self.options)

    def log_messages(self, decision_id: int) -> list[referee_pb2.BotMessage]:
        """The lines written since the last decision (why the bot cannot play, once), to send
        before the answer."""
        if self.broken is not None:
            lines, self.details = self.details, []
        else:
            lines = self.bot.take_log_lines()
        if self.capture is not None:
            lines += self.capture.take()
        return [log_message(decision_id, line) for line in self.log_budget.within(lines, time.monotonic())]

    def end(self, end: referee_pb2.MatchEnd) -> dict[str, Any]:
        """The result; the bot is told (a bot that could not be built raises why)."""
        result = json.loads(end.result_json)
        if self.broken is not None:
            raise self.broken
        self.bot.on_match_end(result)
        return result


def log_message(decision_id: int, text: str) -> referee_pb2.BotMessage:
    """A line the bot wrote while deciding ``decision_id``, for its owner to read in the replay."""
    return referee_pb2.BotMessage(log=referee_pb2.LogLine(protocol_version=PV, decision_id=decision_id, text=text))


def start_failure(exc: Exception) -> tuple[str, list[str]]:
    """The reason a bot that cannot play gives at each decision, and the lines that say why."""
    if isinstance(exc, BotSpecError):  # its file does not import, or names no bot
        return exc.reason, exc.details
    return failure_report(exc, "failed to start")


# decide runs here while the event loop sends what the bot prints as it prints it: a bot that
# then overruns its deadline, or is killed, has its earlier output in the replay all the same
_DECIDER = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="decide")
OUTPUT_EVERY = 0.25  # seconds between two sendings of a deciding bot's output


async def answer_sending_output(call, player: SeatPlayer, decision: referee_pb2.Decision,
                                capture: OutputCapture) -> referee_pb2.BotMessage:
    future = asyncio.get_running_loop().run_in_executor(_DECIDER, player.answer, decision)
    while True:
        done, _ = await asyncio.wait({future}, timeout=OUTPUT_EVERY)
        if done:
            return future.result()
        for line in player.log_budget.within(capture.take(), time.monotonic()):
            await call.write(log_message(decision.decision_id, line))


# the same offers come decision after decision (a hand's cards in every Bszzzz! window): each
# action's JSON is read once per process, by its bytes (shared read-only: the bot gets copies)
_ACTIONS: dict[bytes, dict[str, Any]] = {}
ACTIONS_KEPT = 10_000


def _action_json(message: referee_pb2.Action) -> dict[str, Any]:
    key = message.SerializeToString()
    action = _ACTIONS.get(key)
    if action is None:
        if len(_ACTIONS) >= ACTIONS_KEPT:
            _ACTIONS.clear()
        action = _ACTIONS[key] = wire.action_json(message)
    return action


def answer(bot: Bot, start: referee_pb2.MatchStart, decision: referee_pb2.Decision,
           options: dict[str, Any]) -> referee_pb2.BotMessage:
    """Ask the bot; answer with the index of its action, or with what it returned when that is no
    legal action, or with why it failed (its traceback goes to the bot's log lines). ``options``:
    the match's, read from ``start`` once per seat (each decision gets a copy)."""
    legal = [_action_json(a.action) for a in decision.legal_actions]
    view = decision_from_messages(start, decision, options, legal)
    reply = referee_pb2.Answer(protocol_version=PV, decision_id=decision.decision_id)
    try:
        choice = bot.decide(view)
    except Exception as exc:  # noqa: BLE001 - the referee applies the fault policy, with this reason
        reply.failure, details = failure_report(exc)
        for line in details:
            bot.log(line)
        return referee_pb2.BotMessage(answer=reply)
    # only a legal choice travels as one: anything else is sent as the bot returned it, and the
    # referee words the fault exactly as local play does (an index of -1 is illegal on both paths)
    reply.note = view.note_text()
    # exact types only (referee.plain): a dict subclass equal to everything, or whose __eq__
    # raises, is an illegal answer described by its type, never compared and never repr'd
    if type(choice) is int and 0 <= choice < len(legal):
        reply.index = choice
    elif type(choice) is dict and is_plain(choice) and choice in legal:
        reply.index = legal.index(choice)
    else:
        reply.illegal = describe(choice)
    return referee_pb2.BotMessage(answer=reply)


# a referee that is restarting or out of reach is tried again (a bot stays available, as a
# lichess bot does); every other refusal (a revoked token, a newer connection) ends the bot
RECONNECT_CODES = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
RECONNECT_FIRST, RECONNECT_MAX = 0.5, 30.0  # seconds: doubled after each failed attempt, up to the cap


def serve_remote(make_bot: Callable[[str], Bot], referee: str, api_token: str,
                 on_offer: Callable[[referee_pb2.MatchOffer], None] | None = None,
                 max_matches: int | None = None) -> None:
    """Stay connected and play every match offered (each in its own thread). A referee that is
    unreachable or goes away is reconnected to, with a growing pause; the matches being played go
    on meanwhile (each on its own stream)."""
    threads: list[threading.Thread] = []
    wait = RECONNECT_FIRST
    with grpc.insecure_channel(referee) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)
        while max_matches is None or len(threads) < max_matches:
            gone = None  # why the connection ended, when it is to be made again
            try:
                for offer in stub.Connect(referee_pb2.ConnectRequest(protocol_version=PV, api_token=api_token)):
                    if not offer.match_id:
                        print(f"connected as {offer.bot_id}", flush=True)
                        wait = RECONNECT_FIRST
                        continue
                    if on_offer:
                        on_offer(offer)
                    thread = threading.Thread(target=play_seat, args=(make_bot, referee, offer.seat_token), daemon=True)
                    thread.start()
                    threads.append(thread)
                    if max_matches is not None and len(threads) >= max_matches:
                        break
                else:  # the referee ended the stream without a word (it is shutting down)
                    gone = "closed the connection"
            except grpc.RpcError as exc:
                if exc.code() not in RECONNECT_CODES:
                    raise RefereeError(f"referee {referee}: {exc.code().name}: {exc.details()}") from None
                gone = f"{exc.code().name}: {exc.details()}"
            if gone is not None:
                print(f"referee {referee}: {gone}; reconnecting in {wait:g} s", file=sys.stderr, flush=True)
                time.sleep(wait)
                wait = min(wait * 2, RECONNECT_MAX)
    for thread in threads:
        thread.join()
