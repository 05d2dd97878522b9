"""The gRPC referee: hosts matches, enforces deadlines and hiding, records replays.

Each match is driven by one asyncio task over a transport-free ``Match`` (the same host as local
play). Bots join with their seat tokens on ``Play`` streams, one seat each, or on ``PlaySeats``
streams, many seats each (``seats.py``); the referee runs no bot code.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import gzip
import json
import logging
import multiprocessing
import os
import secrets
import threading
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

from parlour.v1 import referee_pb2, referee_pb2_grpc

from . import wire
from .clock import LagQuota, LoopLag, Stopwatch
from .faults import bot_failure_reason
from .gc_pace import set_pace
from .games import GAMES, ConfigError, get_game
from .games.seeding import draw_seed, platform_seed_key
from .identity import Identity, holder_of, resolve
from .inbox import Deadlines
from .limits import (CALLS_PER_PEER, HELLO_TIMEOUT, INBOX_LIMIT, SERVER_OPTIONS, WATCHERS_PER_MATCH, Quota,
                     is_remote_peer, peer_of, version_error)
from .match import DecisionRequest, Match, Reply
from .presence import NoPresence, Presence, keep_presence, load_presence, tell
from .replay import FORMAT, FORMAT_VERSION, FrameEncoder, JsonFrameEncoder, packed, packed_replay, replay_parts
from .seats import Close, Outbox, Pending, Seat, SlotStream
from .timecontrol import TimeControl
from .tokens import RECHECK_SECONDS, Verifier, load_verifier

REPLACED, REVOKED = object(), object()  # what a Connect stream's queue may hold besides offers

log = logging.getLogger("parlour.referee")

REFEREE_VERSION = "0.1.0"
PV = wire.PROTOCOL_VERSION
SERVICE = "parlour.v1.Referee"
REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"

DEFAULT_JOIN_TIMEOUT = 30.0  # seconds for every seat to join before play starts anyway
DEFAULT_GRACE = 5.0  # seconds a disconnected seat has to resume before it is forfeited
DEFAULT_DECISION_CAP = 100_000  # decisions per match before a runaway match is aborted
REPLAY_CHUNK = 64 * 1024
FRAME_INTERVAL = 0.1  # seconds: FollowMatch sends the frames of a running match in batches this far apart
MAX_FINISHED_ROOMS = int(os.environ.get("PARLOUR_KEEP_FINISHED", 500))
REFEREE_CHECK_SECONDS = 1.0  # how often a replay process looks whether its referee is still there


_replay_pool: concurrent.futures.ProcessPoolExecutor | None = None


def replay_pool() -> concurrent.futures.ProcessPoolExecutor:
    """The processes that build finished matches' replays (``PARLOUR_REPLAY_PROCESSES``, default
    one per core it may run on): re-simulating every view is the referee's heaviest work per match."""
    global _replay_pool
    if _replay_pool is None:
        workers = int(os.environ.get("PARLOUR_REPLAY_PROCESSES", 0)) or len(os.sched_getaffinity(0))
        _replay_pool = concurrent.futures.ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("forkserver"),
            initializer=start_replay_process, initargs=(os.getpid(),))
    return _replay_pool


def start_replay_process(referee: int) -> None:
    """A replay process's start: its garbage collector at the referee's pace (``gc_pace``: a
    replay allocates a view per seat and step), and its end tied to the referee's."""
    set_pace()
    exit_with_referee(referee)


def exit_with_referee(referee: int) -> None:
    """In a replay process: end once the referee that started it is gone. A referee that is killed
    cannot shut its pool down, and its replay processes (and their forkserver, which lives as long
    as they do) would otherwise wait for work for ever: they hold both ends of their work queue."""
    def watch() -> None:
        while True:
            time.sleep(REFEREE_CHECK_SECONDS)
            try:
                os.kill(referee, 0)
            except (ProcessLookupError, PermissionError):  # gone (or its pid now another user's)
                os._exit(0)

    threading.Thread(target=watch, name="exit-with-referee", daemon=True).start()


def with_logs(replay_gz: bytes, logs: list[dict]) -> bytes:
    replay = json.loads(gzip.decompress(replay_gz))
    replay["bot_logs"] = logs
    return packed(replay)


def decision_message(game: str, request: DecisionRequest, observation: wire.SeatObservation) -> wire.DecisionMessage:
    """A decision's message: its fields built in one constructor call, its observation serialized
    from its parts (``wire.SeatObservation``, of the seat's read-only observation: the part a
    window's seats share is spliced in as bytes)."""
    decision = referee_pb2.Decision(
        protocol_version=PV, decision_id=request.decision_id,
        legal_actions=[wire.legal_action(game, a, request.label(a)) for a in request.legal_actions],
        deadline_seconds=request.deadline, bank_seconds=request.bank)
    try:
        observed = observation.serialized()
    except Exception:  # a value that does not fit its field: the slow way names it (and raises)
        observed = wire.observation_message(game, request.observe()).SerializeToString()
    return wire.DecisionMessage(decision, observed)


@dataclass
class Settings:
    operator_token: str = ""
    verifier: Verifier | None = None
    join_timeout: float = DEFAULT_JOIN_TIMEOUT
    grace: float = DEFAULT_GRACE
    decision_cap: int = DEFAULT_DECISION_CAP
    replay_dir: Path | None = None
    referee_id: str = ""  # the fleet's names for this referee (referee/identity.py)
    advertise: str = ""
    presence: Presence | None = None
    seed_key: bytes | None = None  # the platform's secret for bot seeds (PARLOUR_SEED_KEY)


@dataclass
class Room:
    """A hosted match."""

    id: str
    match: Match
    tokens: list[str]
    seats: list[Seat]
    remote_bots: list[str]
    versions: list[str]  # per seat, for the replay header
    public: list[dict] = field(default_factory=list)  # the public view after every step
    # the spectator stream's events, shared by every watcher: each is serialized once, when a
    # watcher first reads it (until then it is the step of ``public`` whose view it shows), so a
    # match nobody watches builds none
    frames: list[bytes | int] = field(default_factory=list)
    tick: asyncio.Event = field(default_factory=asyncio.Event)  # set (and replaced) on every new frame
    end_frame: bytes | None = None
    live_encoder: FrameEncoder = field(default_factory=FrameEncoder)  # the live replay's frames so far
    live_replay: tuple[tuple, bytes] | None = None  # ((steps, finished), gzipped public replay) last built
    replay_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    finished: bool = False
    status: str = "waiting"
    replay_gz: bytes | None = None  # the finished replay with its bot logs, gzipped once
    bot_logs: list[dict] = field(default_factory=list)
    end_message: referee_pb2.MatchEnd | None = None
    task: asyncio.Task | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)  # set once the replay is stored
    follow_frames: JsonFrameEncoder | None = None  # the public replay frames, kept only when the creator asked
    changed: asyncio.Event = field(default_factory=asyncio.Event)  # replaced each time it fires

    def notify(self) -> None:
        """Wake everyone following this room (each waits on the event it saw last)."""
        self.changed.set()
        self.changed = asyncio.Event()

    def add_frame(self, frame: bytes | int) -> None:
        """A new spectator frame: serialized, or the step whose public view it will show."""
        self.frames.append(frame)
        tick, self.tick = self.tick, asyncio.Event()
        tick.set()

    def frame(self, frames: list[bytes | int], public: list[dict], index: int) -> bytes:
        """Frame ``index`` of ``frames``, serialized: this room's lists, or the ones a watcher kept
        (a finished room drops its views; its watchers keep them until they have read them)."""
        data = frames[index]
        if isinstance(data, int):
            view = wire.observation_message(self.match.config.game, public[data])
            data = frames[index] = referee_pb2.MatchEvent(protocol_version=PV, step=data,
                                                          public_view=view).SerializeToString()
        return data


class RefereeService(referee_pb2_grpc.RefereeServicer):
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.verifier = settings.verifier or load_verifier(None)
        self.rooms: dict[str, Room] = {}
        self.tokens: dict[str, tuple[str, int]] = {}  # seat token -> (match id, seat)
        self.remote_queues: dict[str, list[asyncio.Queue]] = {}  # bot id -> Connect streams
        self.presence = settings.presence or NoPresence()
        self.identity = Identity(settings.referee_id or "referee", settings.advertise)  # set by serve()
        self.lag = LoopLag()  # the event loop's own lag, never charged to a bot (started by serve)
        self.deadlines = Deadlines()  # one timer for every seat's wait for an answer (referee/inbox.py)
        self.match_calls = Quota(WATCHERS_PER_MATCH)  # anonymous WatchMatch/GetReplay per match
        self.peer_calls = Quota(CALLS_PER_PEER)  # the same, per peer

    # ------------------------------------------------------------------ helpers
    def is_operator(self, context: grpc.aio.ServicerContext) -> bool:
        expected = self.settings.operator_token
        for key, value in context.invocation_metadata() or ():
            if key == "authorization" and expected and value == f"Bearer {expected}":
                return True
        return False

    async def check_version(self, version: int, context: grpc.aio.ServicerContext) -> None:
        why = version_error(version, PV)
        if why:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, why)

    @asynccontextmanager
    async def spectator_slot(self, room: Room, context: grpc.aio.ServicerContext):
        """A WatchMatch or GetReplay call's place within the per-match and per-peer limits."""
        if self.is_operator(context):
            yield
            return
        peer = peer_of(context)
        if self.match_calls.full(room.id):
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"this match already has {self.match_calls.limit} spectator calls open")
        if self.peer_calls.full(peer):
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"{self.peer_calls.limit} spectator calls already open from {peer}")
        with self.match_calls.held(room.id), self.peer_calls.held(peer):
            yield

    # ------------------------------------------------------------------ ListGames
    async def ListGames(self, request, context):
        await self.check_version(request.protocol_version, context)
        games = []
        for game in GAMES.values():
            variants = []
            for v in game.variants.values():
                options = []
                for o in v.options:
                    spec = referee_pb2.OptionSpec(name=o.name, type=o.kind, default=wire.option_value(o.default),
                                                  doc=o.doc)
                    if o.kind == "choice":
                        spec.values.extend(wire.option_value(x) for x in o.values)
                    elif o.kind == "bool":
                        spec.values.extend([wire.option_value(True), wire.option_value(False)])
                    else:
                        spec.min, spec.max = o.low, o.high
                    options.append(spec)
                variants.append(referee_pb2.VariantSpec(name=v.name, players=list(v.player_counts),
                                                        options=options, doc=v.doc))
            games.append(referee_pb2.GameSpec(
                id=game.id, name=game.name, engine_version=game.engine_version,
                default_variant=game.default_variant, variants=variants,
                seat_attributes=list(game.seat_attributes)))
        return referee_pb2.ListGamesResponse(protocol_version=PV, games=games)

    # ------------------------------------------------------------------ CreateMatch
    async def CreateMatch(self, request, context):
        if not self.is_operator(context):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "CreateMatch needs the operator credential")
        await self.check_version(request.protocol_version, context)
        try:
            game = get_game(request.game)
            options = {k: wire.option_python(v) for k, v in request.options.items()}
            seats = [dict(s.attributes) for s in request.seats]
            config = game.configure(len(request.seats), request.variant or None, options,
                                    seats if any(seats) else None)
            tc = request.time_control
            time_control = TimeControl(tc.move_limit_seconds or TimeControl().move_limit,
                                       tc.bank_seconds if tc.bank_seconds or tc.move_limit_seconds else TimeControl().bank)
        except (ConfigError, ValueError) as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        seed = request.seed if request.HasField("seed") else draw_seed()
        names = [s.bot or f"seat {i}" for i, s in enumerate(request.seats)]
        match = Match(game, config, seed, time_control, bot_names=names, seed_key=self.settings.seed_key,
                      remote_seats=[bool(s.remote_bot) for s in request.seats])
        match_id = secrets.token_hex(8)
        tokens = [self.identity.seat_token(secrets.token_hex(24)) for _ in request.seats]  # never starts with "-"
        room = Room(match_id, match, tokens, [Seat(self.deadlines) for _ in request.seats],
                    [s.remote_bot for s in request.seats], [s.version for s in request.seats])
        room.public.append(match.state.read_only_public_view())  # read only, like every view kept here
        room.add_frame(0)
        if request.record_frames:  # built as play goes, once, for the creator's FollowMatch
            room.follow_frames = JsonFrameEncoder()
            room.follow_frames.add(room.public[0])
            match.on_step = lambda: room.follow_frames.add(match.state.read_only_public_view())
        self.rooms[match_id] = room
        for seat, token in enumerate(tokens):
            self.tokens[token] = (match_id, seat)
        for seat, bot_id in enumerate(room.remote_bots):
            if bot_id:
                self.offer(room, seat, bot_id)
        room.task = asyncio.get_running_loop().create_task(self.run_match(room))
        return referee_pb2.CreateMatchResponse(protocol_version=PV, match_id=match_id, seat_tokens=tokens,
                                               referee_id=self.identity.id, referee_address=self.identity.address)

    def offer(self, room: Room, seat: int, bot_id: str) -> None:
        offer = referee_pb2.MatchOffer(protocol_version=PV, match_id=room.id, game=room.match.config.game,
                                       variant=room.match.config.variant, seat=seat,
                                       seat_token=room.tokens[seat], bot_id=bot_id)
        for queue in self.remote_queues.get(bot_id, []):
            queue.put_nowait(offer)

    async def ListConnected(self, request, context):
        if not self.is_operator(context):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "ListConnected needs the operator credential")
        await self.check_version(request.protocol_version, context)
        connected = sorted(bot_id for bot_id, queues in self.remote_queues.items() if queues)
        return referee_pb2.ListConnectedResponse(protocol_version=PV, bot_ids=connected)

    # ------------------------------------------------------------------ Play
    async def Play(self, request_iterator, context):
        """Raw-bytes handler (see ``serve``): a message that does not parse is refused with a
        reason instead of breaking the stream."""
        iterator = request_iterator.__aiter__()
        raw = await self.first_message(iterator, context, "Hello")
        if raw is None:
            return
        admitted = await self.admit(raw, context)
        if isinstance(admitted, Close):
            await context.abort(admitted.code, admitted.reason)
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
                        await context.abort(message.code, message.reason)
                    return
                data = message.SerializeToString()
                seat.hand_over(message, self.lag)
                yield data
                if message.HasField("end"):
                    return
        finally:
            reader.cancel()
            seat.detach(generation)

    async def PlaySeats(self, request_iterator, context):
        """Many seats on one stream (referee/seats.py): raw bytes both ways (referee/batch.py), so
        one slot's bad message is that slot's, and a batch is serialized once."""
        iterator = request_iterator.__aiter__()
        raw = await self.first_message(iterator, context, "BotBatch")
        if raw is None:
            return
        stream = SlotStream(self, context)
        reader = asyncio.get_running_loop().create_task(stream.read(raw, iterator))
        try:
            async for data in stream.batches():
                yield data
        finally:
            reader.cancel()
            stream.close()

    async def first_message(self, iterator, context: grpc.aio.ServicerContext, what: str) -> bytes | None:
        """A stream's first message, within the Hello timeout (None: the bot closed at once)."""
        try:
            return await asyncio.wait_for(iterator.__anext__(), HELLO_TIMEOUT)
        except StopAsyncIteration:
            return None
        except asyncio.TimeoutError:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, f"no {what} within {HELLO_TIMEOUT:g} s")

    async def admit(self, raw: bytes, context: grpc.aio.ServicerContext) -> tuple[Room, int] | Close:
        """A seat's first message (on Play, or on a PlaySeats slot): the room and seat its Hello's
        token names, or why the seat is refused (Play ends with it, PlaySeats closes the slot)."""
        try:
            first = referee_pb2.BotMessage.FromString(raw)
        except Exception:
            first = None
        if first is None or first.WhichOneof("message") != "hello":
            return Close(grpc.StatusCode.INVALID_ARGUMENT, "the first message must be a Hello")
        why = version_error(first.hello.protocol_version, PV)
        if why:
            return Close(grpc.StatusCode.FAILED_PRECONDITION, why)
        found = self.tokens.get(first.hello.seat_token)
        holder = holder_of(first.hello.seat_token)
        if found is None and holder and holder != self.identity.id:  # a fleet's seat sent to the wrong referee
            address = await tell(self.presence.address_of, holder)
            return Close(grpc.StatusCode.FAILED_PRECONDITION, f"this seat's match is held by referee {holder}"
                                                              f"{f' at {address}' if address else ''}, "
                                                              f"not {self.identity.id}: connect there")
        if found is None:
            return Close(grpc.StatusCode.UNAUTHENTICATED, "unknown or expired seat token")
        room = self.rooms[found[0]]
        if room.seats[found[1]].closed:
            return Close(grpc.StatusCode.FAILED_PRECONDITION, room.seats[found[1]].closed)
        return room, found[1]

    def join(self, room: Room, seat_index: int, outbox: Outbox, context: grpc.aio.ServicerContext) -> int:
        """Attach an admitted seat to a stream (Play's queue, or a PlaySeats slot): MatchStart goes
        first, then the pending decision again, if any; returns the attachment's generation."""
        clock = room.match.clocks[seat_index]
        if clock.lag_quota is None and is_remote_peer(context):  # a bot across a network
            clock.lag_quota = LagQuota()
        seat = room.seats[seat_index]
        outbox.put_nowait(self.match_start(room, seat_index, seat.ever_joined))
        return seat.attach(outbox)

    async def read_bot(self, room: Room, seat: Seat, generation: int, iterator) -> None:
        try:
            async for raw in iterator:
                if not self.take_bot_message(room, seat, generation, raw):
                    return
        except (asyncio.CancelledError, grpc.aio.AioRpcError):
            pass
        except Exception:  # a broken stream is a disconnect
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
        except Exception:
            message, kind = None, None
        if kind == "log":
            room.match.add_bot_log(room.seats.index(seat), message.log.decision_id, message.log.text)
            return True
        if seat.inbox.qsize() >= INBOX_LIMIT:  # answers nobody asked for: bounded, then cut off
            seat.close(generation, grpc.StatusCode.RESOURCE_EXHAUSTED,
                       f"more than {INBOX_LIMIT} answers sent that were not asked for")
            return False
        seat.inbox.put_nowait((arrived, lag, message if kind == "answer" else "malformed"))
        return True

    def match_start(self, room: Room, seat: int, resumed: bool) -> referee_pb2.RefereeMessage:
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

    # ------------------------------------------------------------------ driving a match
    async def run_match(self, room: Room) -> None:
        match = room.match
        kept = wire.Elements()  # the messages of the views' unchanged parts, from one window to the next
        try:
            await self.wait_for_seats(room)
            room.status = "playing"
            while not match.finished:
                if match.decisions >= self.settings.decision_cap:
                    room.status = f"aborted: decision cap of {self.settings.decision_cap} reached"
                    break
                seats = match.pending()
                requests = {s: match.request(s) for s in seats}
                if len(seats) == 1:  # the usual case: no task and no gather for one seat
                    seat = seats[0]
                    (observation,) = wire.observation_parts(
                        match.config.game, [match.state.read_only_observation(seat)], kept)
                    answers = [await self.ask(room, seat, requests[seat], observation)]
                else:  # a simultaneous window: the seats' views share a table, built and encoded once
                    _, views = match.state.read_only_views(spectator=False)
                    observations = wire.observation_parts(match.config.game, [views[s] for s in seats], kept)
                    answers = await asyncio.gather(*(self.ask(room, s, requests[s], observation)
                                                     for s, observation in zip(seats, observations)))
                arrivals = sorted(zip(seats, answers), key=lambda item: item[1][0])
                replies = [(s, reply) for s, (_, reply) in arrivals]
                before = len(match.log)
                for fault in match.submit(replies):
                    seat = room.seats[fault.seat]
                    seat.send(referee_pb2.RefereeMessage(fault=referee_pb2.FaultNotice(
                        protocol_version=PV, decision_id=fault.decision, reason=fault.reason,
                        strikes=match.policy.strikes[fault.seat], forfeited=fault.forfeited)))
                    if fault.forfeited:  # the autopilot plays on: nothing more is read from this bot
                        seat.forfeit(f"seat {fault.seat} was forfeited ({fault.reason}); the autopilot plays it")
                self.publish(room, len(match.log) - before)
                room.notify()
            if match.finished:
                room.status = "finished"
        except Exception as exc:  # never leave seats hanging on a bug
            log.exception("match %s failed", room.id)
            room.status = f"aborted: {type(exc).__name__}: {exc}"
        await self.finish(room)

    async def wait_for_seats(self, room: Room) -> None:
        waits = [s.attached.wait() for s in room.seats]
        try:
            await asyncio.wait_for(asyncio.gather(*waits), self.settings.join_timeout)
        except asyncio.TimeoutError:
            pass  # absent seats fault (and are forfeited) like disconnected ones

    async def ask(self, room: Room, seat_index: int, request: DecisionRequest,
                  observation: wire.SeatObservation) -> tuple[float, Reply]:
        """Send one decision and wait for its answer until the seat's think time (``clock.py``)
        passes the deadline; a lost connection gets the grace period to resume (the decision is
        sent again to the new stream, and the time away is not charged)."""
        seat = room.seats[seat_index]
        match = room.match
        message = decision_message(match.config.game, request, observation)
        watch = Stopwatch(self.lag)
        limit = request.deadline + match.clocks[seat_index].lag_allowance()
        grace = self.settings.grace
        asked = time.monotonic()
        seat.pending = Pending(request.decision_id, message, watch, limit)
        seat.send(message)
        seat.answered.add(request.decision_id)
        stale = 0
        try:
            while True:
                if not seat.attached.is_set():
                    away = time.monotonic()
                    resumed = grace > 0 and await self.await_resume(seat, grace)
                    away = time.monotonic() - away
                    grace -= away
                    if watch.started is not None:
                        watch.exclude(away)
                    if not resumed:
                        return time.monotonic(), Reply(think_time=watch.elapsed(),
                                                       error="disconnected (not resumed within the grace period)")
                    continue  # the new stream was sent the decision
                if watch.started is None:  # not handed to the transport yet (the stream is backed up)
                    wait = limit + self.settings.grace - (time.monotonic() - asked)
                    if wait <= 0:
                        return time.monotonic(), Reply(think_time=limit, error="timeout")
                else:
                    wait = limit - watch.elapsed()
                    if wait <= 0:
                        return time.monotonic(), Reply(think_time=watch.elapsed(), error="timeout")
                try:
                    arrived, lag, item = await seat.inbox.get(wait)
                except TimeoutError:
                    continue  # measured again: the referee's own lag is not the bot's time
                if item is None:  # a stream closed: wait for a resume
                    continue
                think = watch.elapsed(arrived, lag)
                if item == "malformed":
                    return arrived, Reply(think_time=think, error="malformed: the message is not a BotMessage")
                answer = item.answer
                if answer.decision_id < request.decision_id and answer.decision_id in seat.answered:
                    stale += 1  # a late answer to a decision already settled: its fault was counted
                    if stale > INBOX_LIMIT:  # ... but not a stream of them
                        seat.close(None, grpc.StatusCode.RESOURCE_EXHAUSTED,
                                   f"more than {INBOX_LIMIT} answers to decisions already settled")
                    continue
                if answer.decision_id != request.decision_id:
                    return arrived, Reply(think_time=think,
                                          error=f"wrong decision id {answer.decision_id} (expected {request.decision_id})")
                if answer.WhichOneof("choice") == "illegal":  # worded by the match, as in local play
                    return arrived, Reply(returned=answer.illegal[:300], think_time=think)
                if answer.WhichOneof("choice") == "failure":
                    return arrived, Reply(error=bot_failure_reason(answer.failure), think_time=think)
                if answer.WhichOneof("choice") == "index":
                    return arrived, Reply(action=answer.index, think_time=think)
                if answer.WhichOneof("choice") == "action":
                    try:
                        return arrived, Reply(action=wire.action_json(answer.action), think_time=think)
                    except wire.WireError as exc:
                        return arrived, Reply(think_time=think, error=f"malformed: {exc}")
                return arrived, Reply(think_time=think, error="malformed: an Answer with no choice")
        finally:
            seat.pending = None

    async def await_resume(self, seat: Seat, grace: float) -> bool:
        try:
            await asyncio.wait_for(seat.attached.wait(), grace)
            return True
        except asyncio.TimeoutError:
            return False

    def publish(self, room: Room, steps: int) -> None:
        """Record the public view after each applied action and tell the watchers."""
        if steps <= 0:
            return
        # views in between were not observable live; the replay re-derives every step. A room that
        # records frames has just built this view: it is not built twice
        view = (room.follow_frames.previous if room.follow_frames is not None
                else room.match.state.read_only_public_view())
        for _ in range(steps):
            room.public.append(view)
        room.add_frame(len(room.public) - 1)

    async def finish(self, room: Room) -> None:
        """Tell the seats first (their bots may exit at once), then build and store the replay off
        the event loop, then tell the watchers and release the seat tokens."""
        match = room.match
        if match.finished:
            result = match.result()
        else:
            result = {"aborted": room.status, "statuses": match.policy.statuses(),
                      "strikes": list(match.policy.strikes)}
        seats = []
        for s in range(match.config.players):
            seats.append(referee_pb2.SeatResult(
                score=float(result["scores"][s]) if "scores" in result else 0.0,
                rank=int(result["ranks"][s]) if "ranks" in result else 0,
                status=match.policy.statuses()[s],
                fault_counts=match.policy.counts[s]))
        room.end_message = referee_pb2.MatchEnd(protocol_version=PV, seats=seats, result_json=json.dumps(result),
                                                status=room.status)
        for seat in room.seats:
            seat.send(referee_pb2.RefereeMessage(end=room.end_message))
        for token in room.tokens:  # seat tokens expire with the match
            self.tokens.pop(token, None)
        if match.finished:
            header, log_, bot_logs, expected = replay_parts(match, room.versions)
            room.bot_logs = bot_logs
            # the public frames FollowMatch streamed are the replay's own: not derived twice
            public = room.follow_frames.frames if room.follow_frames is not None else None
            # re-simulated and gzipped once, in a process of the replay pool (off the event loop and
            # its GIL); kept compressed (a long replay is megabytes of JSON as Python objects)
            try:
                room.replay_gz = await asyncio.get_running_loop().run_in_executor(
                    replay_pool(), packed_replay, header, log_, bot_logs, expected, public)
                await asyncio.to_thread(self.store_replay, room.id, room.replay_gz)
            except Exception:  # never leave the followers hanging: the result stands, without a replay
                log.exception("match %s: the replay could not be built", room.id)
        steps = len(room.public) - 1
        last = room.frame(room.frames, room.public, len(room.frames) - 1)
        room.public = room.public[-1:]
        room.live_encoder = FrameEncoder()
        match.log = []
        match.on_step = None
        room.finished = True
        room.done.set()
        room.notify()
        self.forget_old_rooms()
        room.end_frame = referee_pb2.MatchEvent(protocol_version=PV, step=steps, finished=True,
                                                end=room.end_message).SerializeToString()
        room.add_frame(room.end_frame)
        room.frames = [last, room.end_frame]  # watchers still following keep the whole list

    def store_replay(self, match_id: str, data: bytes) -> None:
        if self.settings.replay_dir:
            self.settings.replay_dir.mkdir(parents=True, exist_ok=True)
            (self.settings.replay_dir / f"{match_id}.replay.json.gz").write_bytes(data)

    def forget_old_rooms(self) -> None:
        """Finished matches stay available for GetReplay until MAX_FINISHED_ROOMS newer ones finish."""
        finished = [room_id for room_id, room in self.rooms.items() if room.finished]
        for room_id in finished[: max(0, len(finished) - MAX_FINISHED_ROOMS)]:
            del self.rooms[room_id]

    # ------------------------------------------------------------------ Connect
    async def Connect(self, request, context):
        """A remote bot's standing connection. One per bot: a new one replaces the one before,
        which is closed with ABORTED and says why. Its token is checked again every
        ``RECHECK_SECONDS``: once revoked (or its bot switched off) the stream closes with
        UNAUTHENTICATED."""
        await self.check_version(request.protocol_version, context)
        bot_id = await asyncio.to_thread(self.verifier, request.api_token)  # it may do I/O
        if not bot_id:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown or revoked API token")
        for older in self.remote_queues.get(bot_id, []):
            older.put_nowait(REPLACED)
        queue: asyncio.Queue = asyncio.Queue()
        self.remote_queues.setdefault(bot_id, []).append(queue)
        await tell(self.presence.connected, self.identity, bot_id)
        recheck = asyncio.get_running_loop().create_task(self.recheck_token(request.api_token, bot_id, queue))
        try:
            yield referee_pb2.MatchOffer(protocol_version=PV, bot_id=bot_id)
            # matches created before this connection that still wait for this bot
            for room in self.rooms.values():
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
            self.remote_queues[bot_id].remove(queue)
            if not self.remote_queues[bot_id]:  # its presence goes with its last connection here
                asyncio.get_running_loop().create_task(tell(self.presence.disconnected, self.identity, bot_id))

    def connected_bots(self) -> list[str]:
        return [bot_id for bot_id, queues in self.remote_queues.items() if queues]

    def taken_elsewhere(self, bot_id: str) -> None:
        """A newer connection of this bot on another referee of the fleet replaced the one here."""
        for queue in self.remote_queues.get(bot_id, []):
            queue.put_nowait(REPLACED)

    async def recheck_token(self, token: str, bot_id: str, queue: asyncio.Queue) -> None:
        while True:
            await asyncio.sleep(RECHECK_SECONDS)
            try:
                still = await asyncio.to_thread(self.verifier, token)
            except Exception:  # noqa: BLE001 - the platform unreachable: no verdict, keep the bot
                log.warning("the token of %s could not be checked again", bot_id, exc_info=True)
                continue
            if still != bot_id:
                queue.put_nowait(REVOKED)
                return

    # ------------------------------------------------------------------ WatchMatch
    async def WatchMatch(self, request, context):
        """Raw-bytes responses: every watcher is sent the same frames, serialized once."""
        await self.check_version(request.protocol_version, context)
        room = self.rooms.get(request.match_id)
        if room is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id}")
        async with self.spectator_slot(room, context):
            frames, public, sent = room.frames, room.public, 0
            while True:
                tick = room.tick
                while sent < len(frames):  # a slow reader waits on its own stream: nothing piles up here
                    data = room.frame(frames, public, sent)
                    sent += 1
                    yield data
                    if data is room.end_frame:
                        return
                await tick.wait()

    # ------------------------------------------------------------------ GetReplay
    async def GetReplay(self, request, context):
        await self.check_version(request.protocol_version, context)
        room = self.rooms.get(request.match_id)
        if room is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id}")
        async with self.spectator_slot(room, context):
            if room.end_message is not None:  # over: the replay is being written, it is worth the wait
                await room.done.wait()
            if room.replay_gz is not None:
                logs = await self.visible_logs(room, request, context)
                data = room.replay_gz  # the operator's: as built, every bot log line in it
                if logs is not None:  # anyone else: the lines they may read (none, or their bot's)
                    data = await asyncio.to_thread(with_logs, room.replay_gz, logs)
            else:  # live or aborted: the public part only, no seed, no seat views
                data = await self.public_replay(room)
            for start in range(0, len(data), REPLAY_CHUNK):
                yield referee_pb2.ReplayChunk(protocol_version=PV, data=data[start:start + REPLAY_CHUNK],
                                              last=start + REPLAY_CHUNK >= len(data))

    async def public_replay(self, room: Room) -> bytes:
        """The public replay of a live (or aborted) match, built at most once per step, off the
        event loop, however many clients ask; its frames are encoded as the match goes."""
        async with room.replay_lock:
            key = (len(room.public), room.finished)
            if room.live_replay is None or room.live_replay[0] != key:
                m = room.match
                header = {"format": FORMAT, "format_version": FORMAT_VERSION, "game": m.config.game}
                if not room.finished:
                    header.update(variant=m.config.variant, players=m.config.players, options=m.config.options,
                                  engine_version=m.game.engine_version, live=True)
                encoder = room.live_encoder
                new_views = room.public[len(encoder.frames):]
                status = room.status

                def build() -> bytes:
                    for view in new_views:
                        encoder.add(view)
                    return packed({"header": header, "public": encoder.frames, "status": status})

                room.live_replay = (key, await asyncio.to_thread(build))
            return room.live_replay[1]

    # ------------------------------------------------------------------ FollowMatch
    async def FollowMatch(self, request, context):
        if not self.is_operator(context):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "FollowMatch needs the operator credential")
        room = self.rooms.get(request.match_id)
        if room is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id}")
        sent = 0
        while True:
            changed = room.changed  # taken before looking, so no change between is missed
            frames = room.follow_frames.frames if room.follow_frames is not None else []
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
            if room.changed is changed and not room.finished:
                await changed.wait()
        room.follow_frames = None  # delivered: the replay holds them from now on
        data = room.replay_gz or b""
        yield referee_pb2.MatchProgress(protocol_version=PV, end=room.end_message, last=not data)
        for start in range(0, len(data), REPLAY_CHUNK):
            yield referee_pb2.MatchProgress(protocol_version=PV, replay_chunk=data[start:start + REPLAY_CHUNK],
                                            last=start + REPLAY_CHUNK >= len(data))

    async def visible_logs(self, room: Room, request, context) -> list[dict] | None:
        """The log lines this caller may read (None: all of them, for the operator)."""
        if self.is_operator(context):
            return None
        bot_id = await asyncio.to_thread(self.verifier, request.api_token) if request.api_token else None
        if not bot_id:
            return []
        mine = {s for s, remote in enumerate(room.remote_bots) if remote == bot_id}
        return [line for line in room.bot_logs if line["seat"] in mine]


def method_handlers(service: RefereeService) -> dict[str, grpc.RpcMethodHandler]:
    """The service's handlers. Play and PlaySeats take raw bytes, so a message that does not parse is answered
    with a reason instead of breaking the stream (the generated registration would parse first)."""
    pb = referee_pb2
    return {
        "ListGames": grpc.unary_unary_rpc_method_handler(
            service.ListGames, pb.ListGamesRequest.FromString, pb.ListGamesResponse.SerializeToString),
        "CreateMatch": grpc.unary_unary_rpc_method_handler(
            service.CreateMatch, pb.CreateMatchRequest.FromString, pb.CreateMatchResponse.SerializeToString),
        "Play": grpc.stream_stream_rpc_method_handler(service.Play, None, None),
        "PlaySeats": grpc.stream_stream_rpc_method_handler(service.PlaySeats, None, None),
        "Connect": grpc.unary_stream_rpc_method_handler(
            service.Connect, pb.ConnectRequest.FromString, pb.MatchOffer.SerializeToString),
        "ListConnected": grpc.unary_unary_rpc_method_handler(
            service.ListConnected, pb.ListConnectedRequest.FromString, pb.ListConnectedResponse.SerializeToString),
        "WatchMatch": grpc.unary_stream_rpc_method_handler(service.WatchMatch, pb.WatchMatchRequest.FromString, None),
        "GetReplay": grpc.unary_stream_rpc_method_handler(
            service.GetReplay, pb.GetReplayRequest.FromString, pb.ReplayChunk.SerializeToString),
        "FollowMatch": grpc.unary_stream_rpc_method_handler(
            service.FollowMatch, pb.FollowMatchRequest.FromString, pb.MatchProgress.SerializeToString),
    }


async def serve(host: str, port: int, unix: str | None, settings: Settings,
                ready: asyncio.Future | None = None) -> None:
    server = grpc.aio.server(options=SERVER_OPTIONS)
    service = RefereeService(settings)
    service.lag.start()
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, method_handlers(service)),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    enable_reflection(server)
    addresses = []
    bound = None
    if port is not None and port >= 0:
        bound = server.add_insecure_port(f"{host}:{port}")
        addresses.append(f"{host}:{bound}")
    service.identity = resolve(settings.referee_id, settings.advertise, host, bound)
    if unix:
        server.add_insecure_port(f"unix:{unix}")
        addresses.append(f"unix:{unix}")
    await server.start()
    if unix:  # sandboxed bots run as another uid: connecting needs write permission on the socket
        os.chmod(unix, 0o666)
    for name in ("", SERVICE):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    print(f"parlour referee {REFEREE_VERSION} listening on {' '.join(addresses)} "
          f"as {service.identity.id} ({service.identity.address or 'no advertised address'})", flush=True)
    service.presence_task = asyncio.get_running_loop().create_task(  # held: runs as long as the server
        keep_presence(service.presence, service.identity, service.connected_bots, service.taken_elsewhere))
    if os.environ.get("PARLOUR_EXIT_WITH_PARENT") == "1":
        asyncio.get_running_loop().create_task(exit_with_parent(server))
    if ready is not None:
        ready.set_result(addresses)
    await server.wait_for_termination()


def enable_reflection(server: grpc.aio.Server) -> None:
    """Server reflection as ``grpc.reflection.v1`` and ``v1alpha``: the two are the same messages
    under two names, so one servicer answers both (grpcio-reflection registers only v1alpha)."""
    names = (SERVICE, health.SERVICE_NAME, REFLECTION_V1, reflection.SERVICE_NAME)
    servicer = reflection.aio.ReflectionServicer(names)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    v1 = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo, reflection_pb2.ServerReflectionRequest.FromString,
        reflection_pb2.ServerReflectionResponse.SerializeToString)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(REFLECTION_V1,
                                                                           {"ServerReflectionInfo": v1}),))


async def exit_with_parent(server: grpc.aio.Server) -> None:
    """A private referee (started by a worker or the CLI) stops when the process that started it is
    gone, even if that process was killed with no chance to clean up."""
    parent = os.getppid()
    while os.getppid() == parent:
        await asyncio.sleep(1.0)
    await server.stop(grace=1.0)


def settings_from_env(verifier_spec: str | None, replay_dir: str | None, referee_id: str | None = None,
                      advertise: str | None = None, presence_spec: str | None = None) -> Settings:
    return Settings(
        referee_id=referee_id or "", advertise=advertise or "", presence=load_presence(presence_spec),
        operator_token=os.environ.get("PARLOUR_OPERATOR_TOKEN", ""),
        verifier=load_verifier(verifier_spec),
        join_timeout=float(os.environ.get("PARLOUR_JOIN_TIMEOUT", DEFAULT_JOIN_TIMEOUT)),
        grace=float(os.environ.get("PARLOUR_RECONNECT_GRACE", DEFAULT_GRACE)),
        decision_cap=int(os.environ.get("PARLOUR_DECISION_CAP", DEFAULT_DECISION_CAP)),
        replay_dir=Path(replay_dir) if replay_dir else None,
        seed_key=platform_seed_key(),
    )
