"""The operator's side of a referee: create a match, follow it to its end, start the seats' bots.

Whoever runs matches (the arena's runner, ``python -m bots_sdk play --via-referee``, benchmarks)
uses this module; a bot author's SDK never needs it. One match is one ``CreateMatch`` and one
``FollowMatch`` call: the public frames as they happen, then the result rows, then the replay
gzipped once where the referee built it (see docs/protocol.md, "The operator's road").
"""
from __future__ import annotations

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

from bots_sdk.loading import is_file_bot
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


class RefereeClient:
    """An operator's connection to a referee."""

    def __init__(self, address: str, operator_token: str, unix_path: str | None = None) -> None:
        self.address = address
        self.token = operator_token
        self.unix_path = unix_path  # the same referee's Unix socket, when it runs on this machine
        self._relay = None
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
        return self.stub.CreateMatch(request, metadata=self.metadata, timeout=30)

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

    def sandbox_socket(self) -> str:
        """A Unix socket on this machine that reaches the referee: its own, or a relay to it."""
        if self.unix_path:
            return self.unix_path
        if self.address.startswith("unix:"):
            return self.address[len("unix:"):]
        if self._relay is None:
            from bots_sdk.sandbox.relay import UnixRelay

            self._relay = UnixRelay(self.address)
        return self._relay.path

    def close(self) -> None:
        self.channel.close()
        if self._relay is not None:
            self._relay.close()


class LocalReferee(RefereeClient):
    """A referee subprocess on a free port and a Unix socket (for sandboxed bots), with a fresh
    operator token; it exits with the process that started it."""

    def __init__(self, extra_args: list[str] | None = None, env: dict[str, str] | None = None) -> None:
        token = secrets.token_urlsafe(16)
        self.folder = tempfile.mkdtemp(prefix="parlour-referee-")
        os.chmod(self.folder, 0o755)
        unix_path = os.path.join(self.folder, "referee.sock")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "referee", "serve", "--host", "127.0.0.1", "--port", "0",
             "--unix", unix_path, *(extra_args or [])],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            env=dict(os.environ, **(env or {}), PARLOUR_OPERATOR_TOKEN=token, PARLOUR_EXIT_WITH_PARENT="1"))
        line = self.process.stdout.readline()
        if "listening on" not in line:
            self.process.kill()
            raise RuntimeError(f"the referee did not start: {line!r}")
        super().__init__(line.split("listening on", 1)[1].split()[0], token, unix_path)

    def close(self) -> None:
        super().close()
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> LocalReferee:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SeatProcess:
    """One seat's bot in a process of its own for one match: a plain SDK process for house bots,
    a sandbox for file bots (the arena keeps warm ones instead: ``arena/bots/warm_pool.py``)."""

    def __init__(self, referee: RefereeClient, spec: str, token: str, sandboxed: bool, root: str | None) -> None:
        self.sandbox = None
        self.errors = None
        if sandboxed:
            from bots_sdk.sandbox import Sandbox

            self.sandbox = Sandbox(spec, referee.sandbox_socket(), token, bot_root=root)
            self.sandbox.start()
        else:
            self.errors = tempfile.TemporaryFile()
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bots_sdk", "connect", spec, "--referee", referee.address,
                 f"--seat-token={token}"], stdout=subprocess.DEVNULL, stderr=self.errors)

    def stop(self, deadline: float) -> list[str]:
        """After the match: until ``deadline`` (monotonic) to exit, then everything the bot started
        is killed. Returns what the seat's owner should read (the sandbox's verdicts, early output)."""
        grace = max(0.0, deadline - time.monotonic())
        if self.sandbox is not None:
            from bots_sdk.sandbox import sandbox_report_lines

            self.sandbox.wait(grace)
            return sandbox_report_lines(self.sandbox.close(), self.sandbox.limits)
        try:
            self.process.wait(grace)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.errors.seek(0)
        failed = self.errors.read().decode(errors="replace").strip()
        self.errors.close()
        if failed:
            print(f"bot processes wrote:\n{failed[-4000:]}", file=sys.stderr)
        return []


def play_via_referee(referee: RefereeClient, game: str, variant: str, options: dict[str, Any], seed: int,
                     time_control: TimeControl, bot_specs: list[str | None], names: list[str],
                     remote_bots: list[str] | None = None, seats: list[dict[str, Any]] | None = None,
                     timeout: float | None = None, sandboxed: bool = False,
                     bot_roots: list[str | None] | None = None) -> dict[str, Any]:
    """One match, each local bot in a fresh process of its own (a seat whose spec is None is a
    remote bot's, offered on its Connect stream); returns the replay (the result is
    ``replay["result"]``). For a developer's one-off matches: the arena plays with warm bots.

    With ``sandboxed``, every file bot runs in a sandbox (``bots_sdk.sandbox``) whose folder is
    its entry of ``bot_roots`` (default: the file's folder); what the sandbox saw (the bot's
    output before the SDK captured it, the kernel's verdicts) is added to the seat's log lines."""
    if sandboxed and any(spec and is_file_bot(spec) for spec in bot_specs):
        from bots_sdk.sandbox import SandboxUnavailable, support

        if support().mode == "refused":  # before the match exists: nobody waits for a bot that never comes
            raise SandboxUnavailable(support().describe())
    created = referee.create_match(game, variant, options, seed, time_control, names, remote_bots, seats)
    roots = bot_roots or [None] * len(bot_specs)
    players: dict[int, SeatProcess] = {}
    try:
        for seat, (spec, token) in enumerate(zip(bot_specs, created.seat_tokens)):
            if spec is not None:
                players[seat] = SeatProcess(referee, spec, token, sandboxed and is_file_bot(spec), roots[seat])
        outcome = referee.follow(created.match_id, timeout)
    finally:  # the bots get one shared moment to exit after the match, then everything is killed
        deadline = time.monotonic() + 2.0
        reports = {seat: player.stop(deadline) for seat, player in players.items()}
    if outcome.replay_gz is None:
        return {"status": outcome.status, "result": outcome.result, "log": [], "bot_logs": []}
    replay = outcome.replay()
    for seat, lines in reports.items():
        replay["bot_logs"].extend({"seat": seat, "decision": None, "step": len(replay["log"]), "line": line}
                                  for line in lines)
    return replay
