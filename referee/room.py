"""The matches a referee hosts: each one's room (its match, seats, seat tokens and what its
followers see) and the rooms by match id and by seat token."""
from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field

from parlour.v1 import referee_pb2

from . import wire
from .broadcast import Broadcast
from .games import get_game
from .games.seeding import draw_seed
from .identity import Identity
from .inbox import Deadlines
from .match import Match
from .replay import FORMAT, FORMAT_VERSION
from .replay_pool import replay_pool, with_logs
from .seats import Seat
from .settings import environment
from .timecontrol import TimeControl


def _digest(token: str) -> bytes:
    """Seat tokens are looked up by their digest: a guess's lookup time says nothing about how much
    of a real token it shares."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


@dataclass
class Room:
    """A hosted match."""

    id: str
    match: Match
    tokens: list[str]
    seats: list[Seat]
    remote_bots: list[str]
    versions: list[str]  # per seat, for the replay header
    broadcast: Broadcast
    status: str = "waiting"
    finished: bool = False  # over, its replay stored (or failed)
    end_message: referee_pb2.MatchEnd | None = None  # set once play is over, before the replay is built
    replay_gz: bytes | None = None  # the finished replay with its bot logs, gzipped once
    bot_logs: list[dict] = field(default_factory=list)
    notes: list[dict] = field(default_factory=list)  # the bots' decision notes, as bot_logs: each seat's owner's
    task: asyncio.Task | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)  # set once the replay is stored
    # the finished replay as each kind of reader may read it (their seats' log lines and notes only)
    readers_replays: dict[frozenset[int], asyncio.Future] = field(default_factory=dict)

    async def replay_for(self, seats: frozenset[int]) -> bytes:
        """The finished replay with only these seats' bot log lines and notes (none: the public's),
        built once and shared by every reader of that kind. Built in the replay processes: parsing a
        long replay is a hundred megabytes of Python objects for a moment, which a flood of readers
        of many matches would otherwise pile up in the referee's own memory, under its GIL."""
        built = self.readers_replays.get(seats)
        if built is None:
            logs = [line for line in self.bot_logs if line["seat"] in seats]
            notes = [note for note in self.notes if note["seat"] in seats]
            built = self.readers_replays[seats] = asyncio.get_running_loop().run_in_executor(
                replay_pool(), with_logs, self.replay_gz, logs, notes)
        return await asyncio.shield(built)

    def public_header(self) -> dict:
        """The header of the public replay of a match that is live (or was aborted): no seed."""
        config = self.match.config
        header = {"format": FORMAT, "format_version": FORMAT_VERSION, "game": config.game}
        if not self.finished:
            header.update(variant=config.variant, players=config.players, options=config.options,
                          engine_version=self.match.game.engine_version, live=True)
        return header


def create_room(request: referee_pb2.CreateMatchRequest, identity: Identity, deadlines: Deadlines,
                seed_key: bytes | None) -> Room:
    """A new room for a CreateMatch request (raises ``ConfigError`` or ``ValueError`` for a game,
    variant, option or time control the request gets wrong)."""
    game = get_game(request.game)
    options = {k: wire.option_python(v) for k, v in request.options.items()}
    seats = [dict(s.attributes) for s in request.seats]
    config = game.configure(len(request.seats), request.variant or None, options, seats if any(seats) else None)
    tc = request.time_control
    time_control = TimeControl(tc.move_limit_seconds or TimeControl().move_limit,
                               tc.bank_seconds if tc.bank_seconds or tc.move_limit_seconds else TimeControl().bank)
    seed = request.seed if request.HasField("seed") else draw_seed()
    names = [s.bot or f"seat {i}" for i, s in enumerate(request.seats)]
    match = Match(game, config, seed, time_control, bot_names=names, seed_key=seed_key,
                  remote_seats=[bool(s.remote_bot) for s in request.seats])
    tokens = [identity.seat_token(secrets.token_hex(24)) for _ in request.seats]  # never starts with "-"
    # every step's public view, read only like every view kept here, encoded once as play goes
    broadcast = Broadcast(config.game, match.state.read_only_public_view(), request.record_frames)
    match.on_step = lambda: broadcast.add(match.state.read_only_public_view())
    return Room(secrets.token_hex(8), match, tokens, [Seat(deadlines) for _ in request.seats],
                [s.remote_bot for s in request.seats], [s.version for s in request.seats], broadcast)


class Rooms:
    """The rooms by match id, and their seats by seat token while their matches run."""

    def __init__(self) -> None:
        self.by_id: dict[str, Room] = {}
        self.seat_tokens: dict[str, tuple[Room, int]] = {}

    def add(self, room: Room) -> None:
        self.by_id[room.id] = room
        for seat, token in enumerate(room.tokens):
            self.seat_tokens[_digest(token)] = (room, seat)

    def get(self, match_id: str) -> Room | None:
        return self.by_id.get(match_id)

    def seat_of(self, token: str) -> tuple[Room, int] | None:
        """The room and seat a seat token names, while its match runs."""
        return self.seat_tokens.get(_digest(token))

    def under_way(self) -> int:
        """Matches created and not yet finished (the load ``PARLOUR_MAX_MATCHES`` bounds)."""
        return sum(1 for room in self.by_id.values() if not room.finished)

    def __iter__(self) -> Iterator[Room]:
        return iter(list(self.by_id.values()))

    def release_tokens(self, room: Room) -> None:
        """Seat tokens expire with their match."""
        for token in room.tokens:
            self.seat_tokens.pop(_digest(token), None)

    def forget_old(self) -> None:
        """Finished matches stay available for GetReplay until ``PARLOUR_KEEP_FINISHED`` newer ones finish."""
        finished = [room_id for room_id, room in self.by_id.items() if room.finished]
        for room_id in finished[: max(0, len(finished) - environment().keep_finished)]:
            del self.by_id[room_id]
