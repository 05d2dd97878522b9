"""A remote bot's standing connection: a revoked token loses it within seconds and is refused
afterwards; one live connection per remote bot (a newer one replaces the older, which is told); a
referee that goes away and comes back finds the bot connected again."""
from __future__ import annotations

import secrets
import subprocess
import sys
import time

import grpc
import pytest

from parlour.v1 import referee_pb2
from referee.client import RefereeClient
from referee.tokens import hash_token

from referee_process import PV, ROOT, RefereeProcess


@pytest.fixture(scope="module")
def referee(tmp_path_factory):
    process = RefereeProcess(tmp_path_factory.mktemp("referee"), extra_env={"PARLOUR_TOKEN_RECHECK": "0.3"})
    yield process
    process.close()


def serve_remote(referee: RefereeProcess, token: str, bot_id: str) -> subprocess.Popen:
    server = subprocess.Popen([sys.executable, "-m", "bots_sdk", "serve-remote", "random", "--referee",
                               referee.address, f"--api-token={token}"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=ROOT)
    line = server.stdout.readline().strip()
    if line != f"connected as {bot_id}":  # say why, and leave no process behind
        server.kill()
        raise AssertionError(f"serve-remote said {line!r}: {server.communicate()[1][-2000:]}")
    return server


def connected(referee: RefereeProcess) -> set[str]:
    operator = RefereeClient(referee.address, referee.operator)
    try:
        return set(operator.connected_remote_bots())
    finally:
        operator.close()


def test_a_revoked_token_is_disconnected_within_seconds_and_refused_after(referee) -> None:
    token = referee.add_api_token("remote-revoked")
    server = serve_remote(referee, token, "remote-revoked")
    try:
        assert "remote-revoked" in connected(referee)
        referee.token_file.write_text("")  # the platform revokes it
        revoked = time.monotonic()
        assert server.wait(10) != 0
        assert time.monotonic() - revoked < 3.0
        assert "the API token was revoked" in server.stderr.read()
        assert "remote-revoked" not in connected(referee)
    finally:
        server.kill()
        server.wait()
    with pytest.raises(grpc.RpcError) as refused:
        next(iter(referee.stub.Connect(referee_pb2.ConnectRequest(protocol_version=PV, api_token=token))))
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_a_second_connection_replaces_the_first_which_is_told(referee) -> None:
    token = referee.add_api_token("remote-twice")
    first = serve_remote(referee, token, "remote-twice")
    second = serve_remote(referee, token, "remote-twice")
    try:
        assert first.wait(10) != 0
        assert "replaced: a newer connection of remote-twice took over" in first.stderr.read()
        assert second.poll() is None and "remote-twice" in connected(referee)
    finally:
        for server in (first, second):
            server.kill()
            server.wait()


def test_a_remote_bot_reconnects_when_its_referee_comes_back(tmp_path) -> None:
    """The referee is restarted (an upgrade, a crash): ``serve-remote`` keeps trying, with a
    growing pause, and is connected again once the referee is back on its address."""
    (tmp_path / "before").mkdir()
    first = RefereeProcess(tmp_path / "before")
    port = first.address.rsplit(":", 1)[1]
    token = first.add_api_token("remote-back")
    try:
        server = serve_remote(first, token, "remote-back")
    finally:
        first.close()  # the referee goes away (or the test stops here: none left behind)
    try:
        time.sleep(1.5)  # the bot has found the referee gone and tried at least once more
        assert server.poll() is None, server.stderr.read()
        (tmp_path / "after").mkdir()
        second = RefereeProcess(tmp_path / "after", extra_args=["--port", port],
                                tokens=first.token_file.read_text())
        try:
            deadline = time.monotonic() + 20
            while "remote-back" not in connected(second):
                assert time.monotonic() < deadline, "serve-remote did not reconnect"
                assert server.poll() is None
                time.sleep(0.2)
            assert server.stdout.readline().strip() == "connected as remote-back"  # told again
        finally:
            second.close()
    finally:
        server.kill()
        server.wait()
    assert "reconnecting in" in server.stderr.read()


def test_a_token_starting_with_a_dash_connects_as_the_website_shows_it(referee) -> None:
    """One token in 64 starts with "-" (URL-safe base64): the command the website shows
    (``--api-token=TOKEN``) takes it all the same."""
    token = "-" + secrets.token_urlsafe(16)
    with referee.token_file.open("a") as f:
        f.write(f"remote-dash {hash_token(token)}\n")
    server = serve_remote(referee, token, "remote-dash")
    server.kill()
    server.wait()
