"""A referee under load (issue: 1,000 concurrent matches): seats are given their join time from the
match's first connection, not from its creation; past PARLOUR_MAX_MATCHES new matches are refused
with a clear status instead of starving the seats of the matches under way. The load itself is
measured by ``python bench/referee.py`` (1,000 matches, then past the ceiling)."""
from __future__ import annotations

import socket
import threading
import time

import grpc
import pytest

from parlour.v1 import referee_pb2
from referee import client as referee_client
from referee.client import RefereeClient, RefereeFull
from referee_process import RefereeProcess, bot_process

PER_ADDRESS, ALL_CALLS = 32, 40  # anonymous calls per address (the default); everyone's on the referee
JOIN, GRACE, FIRST_JOIN = 2.5, 0.5, 5.0  # bot processes start within JOIN of each other
IDLE = 2.0  # PARLOUR_IDLE_CONNECTION_SECONDS of the idle test's own referee (default 300)


@pytest.fixture(scope="module")
def referee(tmp_path_factory):
    process = RefereeProcess(tmp_path_factory.mktemp("referee"), grace=GRACE, join_timeout=JOIN,
                             extra_env={"PARLOUR_MAX_MATCHES": "2", "PARLOUR_FIRST_JOIN_TIMEOUT": str(FIRST_JOIN),
                                        "PARLOUR_SPECTATOR_CALLS": str(ALL_CALLS)})
    yield process
    process.close()


def follow(referee: RefereeProcess, match_id: str):
    operator = RefereeClient(referee.address, referee.operator)
    try:
        return operator.follow(match_id, timeout=60)
    finally:
        operator.close()


def test_seats_that_connect_together_late_are_not_charged_for_joining(referee) -> None:
    """Both seats connect long after the match was created (a busy referee, a slow worker): the
    join timeout counts from the first of them, so neither is absent, faulted or forfeited."""
    created = referee.create("tussie-mussie", 2, seed=3)
    time.sleep(JOIN + GRACE + 0.5)  # past the join timeout and the grace counted from creation (< FIRST_JOIN)
    bots = [bot_process(referee.address, token) for token in created.seat_tokens]
    outcome = follow(referee, created.match_id)
    for bot in bots:
        bot.wait(30)
    assert outcome.finished
    assert [(s.status, s.fault_counts) for s in outcome.seats] == [("ok", {}), ("ok", {})]


def test_a_match_nobody_joins_starts_after_the_first_join_timeout_with_every_seat_absent(referee) -> None:
    start = time.monotonic()
    created = referee.create("tussie-mussie", 2, seed=4)
    outcome = follow(referee, created.match_id)
    assert time.monotonic() - start >= FIRST_JOIN - 0.1
    assert outcome.finished and [s.status for s in outcome.seats] == ["forfeited", "forfeited"]


def test_a_full_referee_refuses_new_matches_with_a_clear_status_and_takes_them_again_later(referee, monkeypatch) -> None:
    held = [referee.create("tussie-mussie", 2, seed=s) for s in (5, 6)]  # nobody joins: both wait FIRST_JOIN
    with pytest.raises(grpc.RpcError) as refused:
        referee.create("tussie-mussie", 2, seed=7)
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "referee full: 2 matches under way (PARLOUR_MAX_MATCHES=2)" in refused.value.details()

    monkeypatch.setattr(referee_client, "FULL_RETRY_DELAYS", (0.01, 0.01))
    operator = RefereeClient(referee.address, referee.operator)
    try:
        with pytest.raises(RefereeFull, match="referee full"):
            operator.create_match("tussie-mussie", "", {}, 7, referee_client.TimeControl(), ["a", "b"])
        for match in held:
            follow(referee, match.match_id)
        assert operator.create_match("tussie-mussie", "", {}, 7, referee_client.TimeControl(), ["a", "b"]).match_id
    finally:
        operator.close()


def test_one_address_full_of_watchers_locks_out_no_authenticated_watcher_and_nobody_fills_the_referee(referee) -> None:
    created = referee.create("bszzzz", 6, seed=8)  # nobody joins for FIRST_JOIN: live and watchable meanwhile
    request = referee_pb2.WatchMatchRequest(protocol_version=1, match_id=created.match_id)
    crowd = [referee.stub.WatchMatch(request) for _ in range(PER_ADDRESS)]  # one address's whole share
    for watcher in crowd:
        assert next(watcher).step == 0
    with pytest.raises(grpc.RpcError) as refused:
        next(referee.stub.WatchMatch(request))
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "anonymous spectator calls already open from" in refused.value.details()

    token = referee.add_api_token("bot-7")
    signed = [("authorization", f"Bearer {token}")]
    owners = [referee.stub.WatchMatch(request, metadata=signed) for _ in range(ALL_CALLS - PER_ADDRESS)]
    for watcher in owners:  # same address, but counted by its token
        assert next(watcher).step == 0
    with pytest.raises(grpc.RpcError) as refused:  # the referee's budget is spent
        next(referee.stub.WatchMatch(request, metadata=signed))
    assert "spectator calls already open on this referee" in refused.value.details()
    assert next(referee.stub.WatchMatch(request, metadata=referee.auth)).step == 0  # the operator, always
    for watcher in crowd + owners:
        watcher.cancel()
    follow(referee, created.match_id)


def create_when_room(referee: RefereeProcess, *args, **kwargs) -> referee_pb2.CreateMatchResponse:
    """Create a match once the referee has room (an earlier test's matches may still be ending)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            return referee.create(*args, **kwargs)
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def test_a_replay_flood_leaves_another_clients_call_fast_and_the_referees_memory_flat(referee) -> None:
    """Twenty callers ask for two finished 6-seat replays over and over; a stranger's call meanwhile
    takes about what it takes alone (every anonymous reader is sent the one public copy, built
    once), not a queue behind the flood; and the referee's memory stays where it was (the public
    copies are built in the replay processes: a long replay parsed is ~100 MB for a moment)."""
    import psutil

    created = []
    for seed in (9, 10):  # one at a time: this module's referee holds PARLOUR_MAX_MATCHES=2
        created.append(create_when_room(referee, "bszzzz", 6, seed=seed))
        follow(referee, created[-1].match_id)
    requests = [referee_pb2.GetReplayRequest(protocol_version=1, match_id=m.match_id) for m in created]

    def fetch(request=requests[0]) -> float:
        start = time.perf_counter()
        assert b"".join(c.data for c in referee.stub.GetReplay(request))
        return time.perf_counter() - start

    rss = psutil.Process(referee.process.pid).memory_info
    before = rss().rss
    stop = threading.Event()
    peak = [before]

    def flood(request) -> None:
        while not stop.is_set():
            fetch(request)

    def watch() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], rss().rss)
            time.sleep(0.02)

    threads = [threading.Thread(target=flood, args=(requests[i % 2],)) for i in range(20)]
    threads.append(threading.Thread(target=watch))
    for thread in threads:
        thread.start()
    time.sleep(0.5)
    during = sorted(fetch() for _ in range(10))[5]  # the median: the machine is shared and noisy
    stop.set()
    for thread in threads:
        thread.join()
    alone = min(fetch() for _ in range(5))
    assert during < max(1.0, 5 * alone), (alone, during)
    assert peak[0] - before < 40 * 2**20, f"the referee grew by {(peak[0] - before) / 2**20:.0f} MiB under the flood"


def seconds_until_closed(sock: socket.socket, limit: float) -> tuple[float, bytes]:
    """How long the referee kept a connection open (``limit`` if it never closed it), and what it sent."""
    start, received = time.monotonic(), b""
    sock.settimeout(0.2)
    while time.monotonic() - start < limit:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        except ConnectionResetError:
            break
        if not chunk:
            break
        received += chunk
    return time.monotonic() - start, received


def test_silent_connections_are_closed(tmp_path) -> None:
    """PARLOUR_IDLE_CONNECTION_SECONDS: a TCP connection that never says a word, and one that speaks
    HTTP/2 but makes no call, are both closed by the referee (the second with a GOAWAY) instead of
    being held forever."""
    referee = RefereeProcess(tmp_path, extra_env={"PARLOUR_IDLE_CONNECTION_SECONDS": str(IDLE)})
    host, port = referee.address.rsplit(":", 1)
    silent = socket.create_connection((host, int(port)))
    idle = socket.create_connection((host, int(port)))
    try:
        # the client's preface and an empty SETTINGS frame: a gRPC client that then makes no call
        idle.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
        idle_open, sent = seconds_until_closed(idle, IDLE + 15)
        silent_open, _ = seconds_until_closed(silent, 5)  # it was waiting meanwhile
    finally:
        silent.close()
        idle.close()
        referee.close()
    assert IDLE * 0.8 <= idle_open < IDLE + 10  # closed for its idleness, not at once
    frame_types = []
    while len(sent) >= 9:  # the HTTP/2 frames the referee sent: its SETTINGS, ..., GOAWAY (type 7)
        length = int.from_bytes(sent[:3], "big")
        frame_types.append(sent[3])
        sent = sent[9 + length:]
    assert 7 in frame_types
    assert silent_open < 5  # closed by the handshake bound while the other one idled
