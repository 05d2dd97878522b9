"""A real referee process on a real port, and raw clients to poke at it."""
from __future__ import annotations

import gzip
import json
import os
import queue
import secrets
import subprocess
import sys
import threading
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc

from parlour.v1 import referee_pb2, referee_pb2_grpc
from referee import wire
from referee.tokens import hash_token

ROOT = Path(__file__).resolve().parents[1]
PV = wire.PROTOCOL_VERSION


class RefereeProcess:
    def __init__(self, tmp: Path, grace: float = 5.0, join_timeout: float = 20.0, extra_env: dict | None = None,
                 extra_args: list[str] | None = None, tokens: str = "", operator: str | None = None) -> None:
        """``tokens``: the API token file's lines to start with (``add_api_token`` adds more);
        ``operator``: the operator token (a fleet's referees share one), else a fresh one."""
        self.operator = operator or secrets.token_urlsafe(12)
        self.token_file = tmp / "tokens.txt"
        self.token_file.write_text(tokens)
        self.unix = tmp / "referee.sock"
        env = dict(os.environ, PARLOUR_OPERATOR_TOKEN=self.operator, PARLOUR_API_TOKENS=str(self.token_file),
                   PARLOUR_RECONNECT_GRACE=str(grace), PARLOUR_JOIN_TIMEOUT=str(join_timeout), **(extra_env or {}))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "referee", "serve", "--port", "0", "--unix", str(self.unix), *(extra_args or [])],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        line = self.process.stdout.readline()
        assert "listening on" in line, line + self.process.stderr.read()
        self.address = line.split("listening on", 1)[1].split()[0]
        self.channel = grpc.insecure_channel(self.address)
        self.stub = referee_pb2_grpc.RefereeStub(self.channel)

    def add_api_token(self, bot_id: str) -> str:
        token = secrets.token_urlsafe(16)
        with self.token_file.open("a") as f:
            f.write(f"{bot_id} {hash_token(token)}\n")
        return token

    @property
    def auth(self) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {self.operator}")]

    def create(self, game: str, players: int, seed: int = 1, variant: str = "", options: dict | None = None,
               move_limit: float = 2.0, bank: float = 10.0, remote: list[str] | None = None,
               record_frames: bool = False) -> referee_pb2.CreateMatchResponse:
        seats = [referee_pb2.SeatSetup(bot=f"bot{i}", remote_bot=(remote or [""] * players)[i]) for i in range(players)]
        return self.stub.CreateMatch(referee_pb2.CreateMatchRequest(
            protocol_version=PV, game=game, variant=variant, seed=seed,
            options={k: wire.option_value(v) for k, v in (options or {}).items()},
            time_control=referee_pb2.TimeControl(move_limit_seconds=move_limit, bank_seconds=bank),
            seats=seats, record_frames=record_frames), metadata=self.auth)

    def replay(self, match_id: str, operator: bool = True, api_token: str = "") -> dict[str, Any]:
        chunks = self.stub.GetReplay(referee_pb2.GetReplayRequest(protocol_version=PV, match_id=match_id,
                                                                  api_token=api_token),
                                     metadata=self.auth if operator else None)
        return json.loads(gzip.decompress(b"".join(c.data for c in chunks)))

    def close(self) -> None:
        self.channel.close()
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()


def bot_process(address: str, token: str, spec: str = "random", cwd: Path = ROOT) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bots_sdk", "connect", spec, "--referee", address,
                             f"--seat-token={token}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=cwd)


def remote_bot_process(address: str, api_token: str, bot_id: str, spec: str = "random") -> subprocess.Popen:
    """``serve-remote`` for a bot, returned once the referee has confirmed its identity."""
    server = subprocess.Popen([sys.executable, "-m", "bots_sdk", "serve-remote", spec, "--referee", address,
                               f"--api-token={api_token}"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, cwd=ROOT)
    line = server.stdout.readline().strip()
    if line != f"connected as {bot_id}":
        server.kill()
        raise AssertionError(f"serve-remote said {line!r}")
    return server


class RawStream:
    """A hand-driven bidirectional stream: send whatever bytes, read (on a thread) every message."""

    def __init__(self, address: str, method: str, response_type) -> None:
        self.channel = grpc.insecure_channel(address)
        self.out: queue.Queue = queue.Queue()
        self.received: list = []
        self.inbox: queue.Queue = queue.Queue()
        self.error: grpc.RpcError | None = None
        call = self.channel.stream_stream(f"/parlour.v1.Referee/{method}", request_serializer=lambda b: b,
                                          response_deserializer=response_type.FromString)
        self.responses = call(self._requests())
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _requests(self):
        while True:
            item = self.out.get()
            if item is None:
                return
            yield item

    def _read(self) -> None:
        try:
            for message in self.responses:
                self.received.append(message)
                self.inbox.put(message)
        except grpc.RpcError as exc:
            self.error = exc
        self.inbox.put(None)

    def send_bytes(self, data: bytes) -> None:
        self.out.put(data)

    def next(self, timeout: float = 20.0):
        """The next message, or None once the stream has ended."""
        return self.inbox.get(timeout=timeout)

    def close(self) -> None:
        self.out.put(None)
        self.responses.cancel()
        self.channel.close()


class RawSeat(RawStream):
    """A hand-driven Play stream, its Hello sent."""

    def __init__(self, address: str, token: str) -> None:
        super().__init__(address, "Play", referee_pb2.RefereeMessage)
        self.send_message(referee_pb2.BotMessage(hello=referee_pb2.Hello(protocol_version=PV, seat_token=token)))

    def send_message(self, message: referee_pb2.BotMessage) -> None:
        self.out.put(message.SerializeToString())

    def answer_index(self, decision_id: int, index: int) -> None:
        self.send_message(referee_pb2.BotMessage(answer=referee_pb2.Answer(
            protocol_version=PV, decision_id=decision_id, index=index)))


class RawSeats(RawStream):
    """A hand-driven PlaySeats stream: send batches of (slot, bytes), read every RefereeBatch."""

    def __init__(self, address: str) -> None:
        super().__init__(address, "PlaySeats", referee_pb2.RefereeBatch)

    def send(self, entries: list[tuple[int, bytes | referee_pb2.BotMessage]]) -> None:
        """One BotBatch: each slot's message as a BotMessage, or as raw bytes (which may be garbage)."""
        from referee.batch import RawBatch

        raw = [(slot, m if isinstance(m, bytes) else m.SerializeToString()) for slot, m in entries]
        self.out.put(RawBatch(protocol_version=PV, messages=[dict(slot=s, message=m) for s, m in raw])
                     .SerializeToString())

    def hello(self, slots: dict[int, str]) -> None:
        self.send([(slot, referee_pb2.BotMessage(hello=referee_pb2.Hello(protocol_version=PV, seat_token=token)))
                   for slot, token in slots.items()])


def answer(decision_id: int, index: int = 0) -> referee_pb2.BotMessage:
    return referee_pb2.BotMessage(answer=referee_pb2.Answer(protocol_version=PV, decision_id=decision_id, index=index))


Reply = Callable[[int, referee_pb2.Decision], "bytes | referee_pb2.BotMessage | None"]


def first_legal(slot: int, decision: referee_pb2.Decision) -> referee_pb2.BotMessage:
    return answer(decision.decision_id, 0)


def play_slots(stream: RawSeats, slots: set[int], reply: Reply = first_legal
               ) -> tuple[dict[int, list[referee_pb2.RefereeMessage]], list[referee_pb2.RefereeBatch]]:
    """Answer every decision of each batch in one batch until each of ``slots`` has ended (MatchEnd
    or SeatClosed); returns each slot's messages and every batch received."""
    received: dict[int, list[referee_pb2.RefereeMessage]] = defaultdict(list)
    batches = []
    while slots:
        batch = stream.next()
        assert batch is not None, f"the stream ended early: {stream.error}"
        batches.append(batch)
        replies = []
        for entry in batch.messages:
            received[entry.slot].append(entry.message)
            kind = entry.message.WhichOneof("message")
            if kind == "decision":
                message = reply(entry.slot, entry.message.decision)
                if message is not None:
                    replies.append((entry.slot, message))
            elif kind in ("end", "closed"):
                slots.discard(entry.slot)
        if replies:
            stream.send(replies)
    return received, batches


_DEFAULT_SIGINT = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                   "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")


def as_from_a_terminal(command: list[str]) -> list[str]:
    """A Python command started as from a terminal, Ctrl-C's signal at its default: a test run
    started in the background (`make test &`) has SIGINT ignored, and its children would inherit it
    (Python then never raises KeyboardInterrupt), so a test of Ctrl-C would wait for nothing."""
    assert command[0] == sys.executable, command
    return [sys.executable, "-c", _DEFAULT_SIGINT, *command[1:]]
