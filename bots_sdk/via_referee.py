"""``play --via-referee``: the same matches through a real referee process, each bot (house bots
included) in its own SDK process, exactly as the platform runs them."""
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
from typing import Any

import grpc

from parlour.v1 import referee_pb2, referee_pb2_grpc
from referee import wire
from referee.timecontrol import TimeControl

from .loading import is_file_bot

PV = wire.PROTOCOL_VERSION


class RefereeClient:
    """An operator's connection to a referee: creates matches and fetches their replays."""

    def __init__(self, address: str, operator_token: str, unix_path: str | None = None) -> None:
        self.address = address
        self.token = operator_token
        self.unix_path = unix_path  # the same referee's Unix socket, when it runs on this machine
        self._relay = None
        self.channel = grpc.insecure_channel(address)
        self.stub = referee_pb2_grpc.RefereeStub(self.channel)

    def create_match(self, game: str, variant: str, options: dict[str, Any], seed: int,
                     time_control: TimeControl, names: list[str], remote_bots: list[str] | None = None,
                     seats: list[dict[str, Any]] | None = None) -> referee_pb2.CreateMatchResponse:
        remote_bots = remote_bots or [""] * len(names)
        attributes = seats or [{} for _ in names]
        request = referee_pb2.CreateMatchRequest(
            protocol_version=PV, game=game, variant=variant,
            options={k: wire.option_value(v) for k, v in options.items()}, seed=seed,
            time_control=referee_pb2.TimeControl(move_limit_seconds=time_control.move_limit,
                                                 bank_seconds=time_control.bank),
            seats=[referee_pb2.SeatSetup(bot=name, remote_bot=remote, attributes={k: str(v) for k, v in a.items()})
                   for name, remote, a in zip(names, remote_bots, attributes)])
        return self.stub.CreateMatch(request, metadata=[("authorization", f"Bearer {self.token}")])

    def connected_remote_bots(self) -> set[str]:
        """The remote bots with an open Connect stream now."""
        response = self.stub.ListConnected(referee_pb2.ListConnectedRequest(protocol_version=PV),
                                           metadata=[("authorization", f"Bearer {self.token}")], timeout=10)
        return set(response.bot_ids)

    def wait_for_replay(self, match_id: str, timeout: float | None = None) -> dict[str, Any]:
        """Follow the match's spectator stream to its end, then fetch the replay."""
        watch = self.stub.WatchMatch(referee_pb2.WatchMatchRequest(protocol_version=PV, match_id=match_id),
                                     timeout=timeout)
        for event in watch:
            if event.finished:
                break
        return self.replay(match_id)

    def replay(self, match_id: str) -> dict[str, Any]:
        chunks = self.stub.GetReplay(referee_pb2.GetReplayRequest(protocol_version=PV, match_id=match_id),
                                     metadata=[("authorization", f"Bearer {self.token}")])
        return json.loads(gzip.decompress(b"".join(c.data for c in chunks)))

    def sandbox_socket(self) -> str:
        """A Unix socket on this machine that reaches the referee: its own, or a relay to it."""
        if self.unix_path:
            return self.unix_path
        if self.address.startswith("unix:"):
            return self.address[len("unix:"):]
        if self._relay is None:
            from .sandbox.relay import UnixRelay

            self._relay = UnixRelay(self.address)
        return self._relay.path

    def close(self) -> None:
        self.channel.close()
        if self._relay is not None:
            self._relay.close()


class LocalReferee(RefereeClient):
    """A referee subprocess on a free port and a Unix socket (for sandboxed bots), with a fresh
    operator token."""

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


def play_via_referee(referee: RefereeClient, game: str, variant: str, options: dict[str, Any], seed: int,
                     time_control: TimeControl, bot_specs: list[str | None], names: list[str],
                     remote_bots: list[str] | None = None, seats: list[dict[str, Any]] | None = None,
                     timeout: float | None = None, sandboxed: bool = False,
                     bot_roots: list[str | None] | None = None) -> dict[str, Any]:
    """One match, each local bot in its own SDK process (a seat whose spec is None is a remote
    bot's, offered on its Connect stream); returns the replay (the result is ``replay["result"]``).

    With ``sandboxed``, every file bot runs in a sandbox (``bots_sdk.sandbox``) whose folder is
    its entry of ``bot_roots`` (default: the file's folder); what the sandbox saw (the bot's
    output before the SDK captured it, the kernel's verdicts) is added to the seat's log lines."""
    if sandboxed and any(spec and is_file_bot(spec) for spec in bot_specs):
        from .sandbox import SandboxUnavailable, support

        if support().mode == "refused":  # before the match exists: nobody waits for a bot that never comes
            raise SandboxUnavailable(support().describe())
    created = referee.create_match(game, variant, options, seed, time_control, names, remote_bots, seats)
    roots = bot_roots or [None] * len(bot_specs)
    players: dict[int, SeatProcess] = {}
    try:
        for seat, (spec, token) in enumerate(zip(bot_specs, created.seat_tokens)):
            if spec is not None:
                players[seat] = SeatProcess(referee, spec, token, sandboxed and is_file_bot(spec), roots[seat])
        replay = referee.wait_for_replay(created.match_id, timeout)
    finally:  # the bots get one shared moment to exit after the match, then everything is killed
        deadline = time.monotonic() + 2.0
        reports = {seat: player.stop(deadline) for seat, player in players.items()}
    for seat, lines in reports.items():
        replay["bot_logs"].extend({"seat": seat, "decision": None, "step": len(replay["log"]), "line": line}
                                  for line in lines)
    return replay


class SeatProcess:
    """One seat's bot process: a plain SDK process for house bots, a sandbox for file bots."""

    def __init__(self, referee: RefereeClient, spec: str, token: str, sandboxed: bool, root: str | None) -> None:
        self.sandbox = None
        self.errors = None
        if sandboxed:
            from .sandbox import Sandbox

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
            from .sandbox import sandbox_report_lines

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
