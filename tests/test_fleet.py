"""Two referees of one fleet on the machine's Redis: a match is bound to the referee that created
it (a seat sent to the other is told where to go), and remote bots' presence follows their
connection (one presence per bot, gone within seconds of its referee's death)."""
from __future__ import annotations

import secrets
import signal
import subprocess
import sys
import time

import grpc
import pytest

from referee.tokens import hash_token

from referee_process import ROOT, RawSeat, RefereeProcess
from test_arena_e2e import redis_db, wait_for

TTL = 1.5  # PARLOUR_PRESENCE_TTL of these referees: a beat every 0.5 s


@pytest.fixture
def fleet(tmp_path, settings):
    url = redis_db()
    settings.REDIS_URL = url  # this process's reads (the presence board); the referees get it below
    referees = []
    operator = secrets.token_urlsafe(12)  # the fleet's one operator credential
    for name in ("referee-1", "referee-2"):
        folder = tmp_path / name
        folder.mkdir()
        referees.append(RefereeProcess(folder, extra_env={"REDIS_URL": url, "PARLOUR_PRESENCE_TTL": str(TTL),
                                                          "PARLOUR_TOKEN_RECHECK": "0.5"},
                                       extra_args=["--id", name, "--presence", "arena.fleet.presence_board:PresenceBoard"],
                                       operator=operator))
    yield referees
    for referee in referees:
        referee.close()


def test_the_creation_answer_names_the_referee_and_a_seat_at_the_wrong_one_is_told_where(fleet) -> None:
    first, second = fleet
    created = first.create("tussie-mussie", 2, seed=11)
    assert created.referee_id == "referee-1"
    assert created.referee_address == first.address  # bound to 127.0.0.1: advertised as such
    assert all(token.endswith(".referee-1") for token in created.seat_tokens)
    wait_for(lambda: second.process.poll() is None and _address_known(first.address), 5, "referee-1's beat")
    lost = RawSeat(second.address, created.seat_tokens[0])
    assert lost.next() is None
    assert lost.error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert lost.error.details() == (f"this seat's match is held by referee referee-1 at {first.address}, "
                                    "not referee-2: connect there")
    lost.close()
    right = RawSeat(created.referee_address, created.seat_tokens[0])
    assert right.next().start.seat == 0  # and the match is there, waiting for its other seat
    right.close()


def test_a_service_name_for_the_fleet_creates_on_each_referee_in_turn(fleet) -> None:
    """``REFEREE_ADDRESS`` may name every referee of a machine or a fleet (``ipv4:a:1,b:2``, or a
    DNS name with several addresses): creations go round the referees, each match bound to the
    one that answered."""
    from referee.client import RefereeClient
    from referee.timecontrol import TimeControl

    first, second = fleet
    client = RefereeClient(f"ipv4:{first.address},{second.address}", first.operator)
    try:
        grpc.channel_ready_future(client.channel).result(timeout=10)
        time.sleep(0.5)  # a referee is taken in turn once its connection is up (until then: the other)
        created = [client.create_match("tussie-mussie", "", {}, seed, TimeControl(), ["a", "b"])
                   for seed in range(6)]
    finally:
        client.close()
    holders = [c.referee_id for c in created]
    assert holders.count("referee-1") == holders.count("referee-2") == 3, holders
    assert {c.referee_address for c in created} == {first.address, second.address}


def _address_known(address: str) -> bool:
    from arena.fleet.presence_board import live_referees

    return any(info["address"] == address for info in live_referees().values())


def serve_remote(address: str, token: str) -> subprocess.Popen:
    server = subprocess.Popen([sys.executable, "-m", "bots_sdk", "serve-remote", "random", "--referee", address,
                               f"--api-token={token}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              cwd=ROOT)
    assert server.stdout.readline().startswith("connected as ")
    return server


def test_one_presence_per_remote_bot_that_moves_with_it_and_dies_with_its_referee(fleet) -> None:
    from arena.fleet.presence_board import present_bots

    first, second = fleet
    token = secrets.token_urlsafe(16)
    for referee in fleet:  # the platform's tokens: every referee checks the same ones
        referee.token_file.write_text(f"bot-77 {hash_token(token)}\n")
    on_second = serve_remote(second.address, token)
    on_first = None
    try:
        where = wait_for(lambda: present_bots().get("bot-77"), 3, "the bot's presence")
        assert (where.referee_id, where.address) == ("referee-2", second.address)
        on_first = serve_remote(first.address, token)  # the same bot connected again, elsewhere
        assert on_second.wait(3 * TTL) != 0  # the older connection is closed, and told why
        assert "replaced: a newer connection of bot-77 took over" in on_second.stderr.read()
        assert [(b, w.referee_id) for b, w in present_bots().items()] == [("bot-77", "referee-1")]
        time.sleep(2 * TTL)  # the presence is kept alive by its referee's beat
        assert present_bots()["bot-77"].referee_id == "referee-1"
        first.process.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        wait_for(lambda: "bot-77" not in present_bots(), 10, "the dead referee's presences to expire", 0.05)
        assert time.monotonic() - killed <= TTL + 0.5
    finally:
        for server in (on_second, on_first):
            if server is not None:
                server.kill()
                server.wait()
