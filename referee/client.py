"""The operator's side of a referee: create a match, follow it to its end.

Whoever runs matches (the arena's runner, ``python -m bots_sdk play --via-referee``, benchmarks)
uses this module; a bot playing a seat never needs it. Starting the seats' bots is the caller's
(``bots_sdk.via_referee``, the arena's warm bots): the referee imports nothing of the SDK. One match is one ``CreateMatch`` and one
``FollowMatch`` call: the public frames as they happen, then the result rows, then the replay
gzipped once where the referee built it (see docs/protocol.md, "The operator's road").
"""
from __future__ import annotations

import atexit
import gzip
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc

from parlour.v1 import referee_pb2, referee_pb2_grpc

from . import wire
from .timecontrol import TimeControl

PV = wire.PROTOCOL_VERSION

FramesCallback = Callable[[int, list[str]], None]  # (step of the first frame, frames as JSON)


@dataclass
class SeatOutcome:
    """One seat's row of the referee's MatchEnd."""

    score: float
    rank: int
    status: str
    fault_counts: dict[str, int]


@dataclass
class MatchOutcome:
    """How a followed match ended: the result rows, the full result and the gzipped replay."""

    match_id: str
    status: str  # "finished" or "aborted: ..."
    seats: list[SeatOutcome]
    result: dict[str, Any]
    replay_gz: bytes | None  # None when the match was aborted

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    def replay(self) -> dict[str, Any]:
        if self.replay_gz is None:
            raise ValueError(f"match {self.match_id} has no replay ({self.status})")
        return json.loads(gzip.decompress(self.replay_gz))


def outcome_of(match_id: str, end: referee_pb2.MatchEnd, replay_gz: bytes | None) -> MatchOutcome:
    seats = [SeatOutcome(s.score, s.rank, s.status, dict(s.fault_counts)) for s in end.seats]
    return MatchOutcome(match_id, end.status, seats, json.loads(end.result_json or "{}"), replay_gz)


FULL_RETRY_DELAYS = (0.5, 1.0, 2.0)  # seconds between CreateMatch calls a full referee refused


class RefereeFull(RuntimeError):
    """The referee refused a new match: it hosts ``PARLOUR_MAX_MATCHES`` already (back-pressure,
    not a failure: the match is tried again later, unhurt)."""


class RefereeClient:
    """An operator's connection to a referee."""

    def __init__(self, address: str, operator_token: str, unix_path: str | None = None) -> None:
        self.address = address
        self.token = operator_token
        self.unix_path = unix_path  # the same referee's Unix socket, when it runs on this machine
        # a target naming several referees (``ipv4:a:1,b:2``, a DNS name with several addresses)
        # creates on each in turn: the fleet's service name
        self.channel = grpc.insecure_channel(address, options=[("grpc.lb_policy_name", "round_robin")])
        self.stub = referee_pb2_grpc.RefereeStub(self.channel)

    @property
    def metadata(self) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {self.token}")]

    def create_match(self, game: str, variant: str, options: dict[str, Any], seed: int,
                     time_control: TimeControl, names: list[str], remote_bots: list[str] | None = None,
                     seats: list[dict[str, Any]] | None = None, versions: list[str] | None = None,
                     record_frames: bool = False) -> referee_pb2.CreateMatchResponse:
        remote_bots = remote_bots or [""] * len(names)
        attributes = seats or [{} for _ in names]
        versions = versions or [""] * len(names)
        request = referee_pb2.CreateMatchRequest(
            protocol_version=PV, game=game, variant=variant,
            options={k: wire.option_value(v) for k, v in options.items()}, seed=seed,
            time_control=referee_pb2.TimeControl(move_limit_seconds=time_control.move_limit,
                                                 bank_seconds=time_control.bank),
            seats=[referee_pb2.SeatSetup(bot=name, remote_bot=remote, version=version,
                                         attributes={k: str(v) for k, v in a.items()})
                   for name, remote, a, version in zip(names, remote_bots, attributes, versions)],
            record_frames=record_frames)
        for delay in (*FULL_RETRY_DELAYS, None):
            try:
                return self.stub.CreateMatch(request, metadata=self.metadata, timeout=30)
            except grpc.RpcError as exc:
                if exc.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                    raise
                if delay is None:
                    raise RefereeFull(exc.details()) from None
                time.sleep(delay)
        raise AssertionError("unreachable")

    def follow(self, match_id: str, timeout: float | None = None,
               on_frames: FramesCallback | None = None) -> MatchOutcome:
        """Wait for the match's end on one stream, handing its public frames to ``on_frames`` as
        they arrive; returns the result rows and the replay."""
        stream = self.stub.FollowMatch(referee_pb2.FollowMatchRequest(protocol_version=PV, match_id=match_id),
                                       metadata=self.metadata, timeout=timeout)
        end: referee_pb2.MatchEnd | None = None
        chunks: list[bytes] = []
        for progress in stream:
            if progress.frames and on_frames is not None:
                on_frames(progress.first_step, list(progress.frames))
            if progress.HasField("end"):
                end = progress.end
            if progress.replay_chunk:
                chunks.append(progress.replay_chunk)
            if progress.last:
                break
        if end is None:
            raise RuntimeError(f"the referee closed match {match_id}'s stream before its end")
        return outcome_of(match_id, end, b"".join(chunks) if chunks else None)

    def connected_remote_bots(self) -> set[str]:
        """The remote bots with an open Connect stream now."""
        response = self.stub.ListConnected(referee_pb2.ListConnectedRequest(protocol_version=PV),
                                           metadata=self.metadata, timeout=10)
        return set(response.bot_ids)

    def replay(self, match_id: str) -> dict[str, Any]:
        chunks = self.stub.GetReplay(referee_pb2.GetReplayRequest(protocol_version=PV, match_id=match_id),
                                     metadata=self.metadata)
        return json.loads(gzip.decompress(b"".join(c.data for c in chunks)))

    def close(self) -> None:
        self.channel.close()


# A local referee's folder is named with the process that made it and ends with it: removed at
# close, at this process's exit, or — when it was killed first — by the next process making one
# (sandbox.temp_folders does the same for the sandbox's sockets: neither package may import the other)
_FOLDER_PREFIX = "parlour-referee-"
_made: set[str] = set()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _owned_folder() -> str:
    for name in os.listdir(tempfile.gettempdir()):
        pid = name[len(_FOLDER_PREFIX):].partition("-")[0] if name.startswith(_FOLDER_PREFIX) else ""
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(os.path.join(tempfile.gettempdir(), name), ignore_errors=True)
    if not _made:
        atexit.register(lambda: [_remove(f) for f in list(_made) if f"-{os.getpid()}-" in os.path.basename(f)])
    folder = tempfile.mkdtemp(prefix=f"{_FOLDER_PREFIX}{os.getpid()}-")
    _made.add(folder)
    return folder


def _remove(folder: str) -> None:
    _made.discard(folder)
    shutil.rmtree(folder, ignore_errors=True)


class LocalReferee(RefereeClient):
    """A referee subprocess on a free port and a Unix socket (for sandboxed bots), with a fresh
    operator token; it exits with the process that started it."""

    def __init__(self, extra_args: list[str] | None = None, env: dict[str, str] | None = None) -> None:
        token = secrets.token_urlsafe(16)
        self.folder = _owned_folder()
        os.chmod(self.folder, 0o755)
        self._command = (list(extra_args or []), dict(env or {}))
        unix_path = os.path.join(self.folder, "referee.sock")
        super().__init__(self._spawn(0, unix_path, token), token, unix_path)

    def _spawn(self, port: int, unix_path: str, token: str) -> str:
        """Start the referee process; its address (``host:port``)."""
        extra_args, env = self._command
        self.process = subprocess.Popen(
            [sys.executable, "-m", "referee", "serve", "--host", "127.0.0.1", "--port", str(port),
             "--unix", unix_path, *extra_args],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            env=dict(os.environ, **env, PARLOUR_OPERATOR_TOKEN=token, PARLOUR_EXIT_WITH_PARENT="1"))
        line = self.process.stdout.readline()
        if "listening on" not in line:
            self.process.kill()
            self.process.wait()
            raise RuntimeError(f"the referee did not start: {line!r}")
        return line.split("listening on", 1)[1].split()[0]

    def restart(self) -> subprocess.Popen:
        """Start it again after it died: the same port, Unix socket and token, so whoever was told
        its address (a worker's environment) finds it where it was."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.unix_path:
            try:
                os.unlink(self.unix_path)  # the dead process's socket file
            except FileNotFoundError:
                pass
        self._spawn(int(self.address.rpartition(":")[2]), self.unix_path or "", self.token)
        return self.process

    def close(self) -> None:
        super().close()
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
        _remove(self.folder)

    def __enter__(self) -> LocalReferee:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
