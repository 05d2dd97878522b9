"""``play --via-referee``: the same matches through a real referee process, each bot (house bots
included) in its own SDK process, exactly as the platform runs them."""
from __future__ import annotations

import gzip
import json
import os
import secrets
import subprocess
import sys
from typing import Any

import grpc

from parlour.v1 import referee_pb2, referee_pb2_grpc
from referee import wire
from referee.timecontrol import TimeControl

PV = wire.PROTOCOL_VERSION


class LocalReferee:
    """A referee subprocess on a free port, with a fresh operator token."""

    def __init__(self) -> None:
        self.token = secrets.token_urlsafe(16)
        env = dict(os.environ, PARLOUR_OPERATOR_TOKEN=self.token)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "referee", "serve", "--host", "127.0.0.1", "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        line = self.process.stdout.readline()
        if "listening on" not in line:
            self.close()
            raise RuntimeError(f"the referee did not start: {line!r}")
        self.address = line.split("listening on", 1)[1].split()[0]
        self.channel = grpc.insecure_channel(self.address)
        self.stub = referee_pb2_grpc.RefereeStub(self.channel)

    def create_match(self, game: str, variant: str, options: dict[str, Any], seed: int,
                     time_control: TimeControl, names: list[str]) -> referee_pb2.CreateMatchResponse:
        request = referee_pb2.CreateMatchRequest(
            protocol_version=PV, game=game, variant=variant,
            options={k: wire.option_value(v) for k, v in options.items()}, seed=seed,
            time_control=referee_pb2.TimeControl(move_limit_seconds=time_control.move_limit,
                                                 bank_seconds=time_control.bank),
            seats=[referee_pb2.SeatSetup(bot=name) for name in names])
        return self.stub.CreateMatch(request, metadata=[("authorization", f"Bearer {self.token}")])

    def replay(self, match_id: str) -> dict[str, Any]:
        chunks = self.stub.GetReplay(referee_pb2.GetReplayRequest(protocol_version=PV, match_id=match_id),
                                     metadata=[("authorization", f"Bearer {self.token}")])
        return json.loads(gzip.decompress(b"".join(c.data for c in chunks)))

    def close(self) -> None:
        if getattr(self, "channel", None):
            self.channel.close()
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()

    def __enter__(self) -> LocalReferee:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def play_via_referee(referee: LocalReferee, game: str, variant: str, options: dict[str, Any], seed: int,
                     time_control: TimeControl, bot_specs: list[str], names: list[str]) -> dict[str, Any]:
    """One match; returns its replay (the result is ``replay["result"]``)."""
    created = referee.create_match(game, variant, options, seed, time_control, names)
    bots = [
        subprocess.Popen([sys.executable, "-m", "bots_sdk", "connect", spec, "--referee", referee.address,
                          "--seat-token", token], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for spec, token in zip(bot_specs, created.seat_tokens)
    ]
    for process in bots:
        process.wait()
    return referee.replay(created.match_id)
