"""Many seats on one stream (PlaySeats, docs/protocol.md): a window's decisions in one batch, a slot
refused or faulted alone, and the SDK's ``serve-seats --many`` playing as in-process play does."""
from __future__ import annotations

import subprocess
import sys

import grpc
import pytest

from bots_sdk import RandomBot
from bots_sdk.local import play_match
from parlour.v1 import referee_pb2
from referee_process import ROOT, RawSeat, RawSeats, RefereeProcess, answer, bot_process, play_slots


@pytest.fixture(scope="module")
def referee(tmp_path_factory):
    process = RefereeProcess(tmp_path_factory.mktemp("referee"), grace=1.0)
    yield process
    process.close()


def decided_slots(batch: referee_pb2.RefereeBatch) -> set[int]:
    return {e.slot for e in batch.messages if e.message.HasField("decision")}


def test_a_bszzzz_window_asks_its_four_seats_in_one_batch(referee) -> None:
    created = referee.create("bszzzz", 4, seed=7)
    stream = RawSeats(referee.address)
    try:
        stream.hello(dict(enumerate(created.seat_tokens)))
        received, batches = play_slots(stream, {0, 1, 2, 3})
    finally:
        stream.close()
    assert [received[slot][0].start.seat for slot in range(4)] == [0, 1, 2, 3]
    windows = [b for b in batches if decided_slots(b) == {0, 1, 2, 3}]
    assert windows, "a reaction window's four decisions travel in one RefereeBatch"
    assert len(windows) * 4 > sum(len(decided_slots(b)) for b in batches) / 2  # most decisions are windows'
    ends = [received[slot][-1] for slot in range(4)]
    assert all(m.HasField("end") for m in ends) and ends[0].end.status == "finished"
    assert [s.status for s in ends[0].end.seats] == ["ok"] * 4


def test_one_many_seats_process_plays_two_matches_as_in_process_play(referee) -> None:
    """Six seats of two matches, all on one stream of one process, each seat its own bot: the same
    action log and result as in-process play with the same seeds."""
    matches = [("tussie-mussie", 2, 41), ("bszzzz", 4, 42)]
    created = [referee.create(game, players, seed=seed) for game, players, seed in matches]
    server = subprocess.Popen([sys.executable, "-m", "bots_sdk", "serve-seats", "random", "--many",
                               "--referee", referee.address], stdin=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, cwd=ROOT)
    server.stdin.write("".join(f"{token}\n" for c in created for token in c.seat_tokens))
    server.stdin.close()  # it finishes the seats in play, then exits
    assert server.wait(120) == 0, server.stderr.read()
    def strip(log: list[dict]) -> list[tuple]:
        return [(e["seat"], e["action"], e["source"]) for e in log]

    for (game, players, seed), match in zip(matches, created):
        replay = referee.replay(match.match_id)
        local = play_match(game, [RandomBot() for _ in range(players)], seed=seed)
        assert strip(replay["log"]) == strip(local.log), f"{game}: same seed, same bots: same action log"
        assert replay["result"]["scores"] == local.result["scores"]
        assert replay["result"]["statuses"] == ["ok"] * players


def test_a_refused_slot_is_closed_alone_while_another_slot_plays_on(referee) -> None:
    created = referee.create("tussie-mussie", 2, seed=43)
    other = bot_process(referee.address, created.seat_tokens[1])
    elsewhere = created.seat_tokens[0].rpartition(".")[0] + ".referee-elsewhere"
    stream = RawSeats(referee.address)
    try:
        stream.hello({0: created.seat_tokens[0], 1: "not-a-token", 2: elsewhere})
        stream.send([(3, answer(1))])  # a slot that starts with no Hello
        received, _ = play_slots(stream, {0, 1, 2, 3})
    finally:
        stream.close()
    assert other.wait(60) == 0, other.stderr.read()
    closed = {slot: received[slot][-1].closed for slot in (1, 2, 3)}
    assert {slot: c.code for slot, c in closed.items()} == {1: "UNAUTHENTICATED", 2: "FAILED_PRECONDITION",
                                                           3: "INVALID_ARGUMENT"}
    assert "referee-elsewhere" in closed[2].reason and "Hello" in closed[3].reason
    assert all(len(received[slot]) == 1 for slot in (1, 2, 3))
    end = received[0][-1].end
    assert end.status == "finished" and [s.status for s in end.seats] == ["ok", "ok"]


def test_malformed_bytes_in_one_slot_fault_that_seat_only(referee) -> None:
    created = referee.create("tussie-mussie", 2, seed=44)
    stream = RawSeats(referee.address)
    spoiled: list[int] = []

    def reply(slot: int, decision: referee_pb2.Decision):
        if slot == 0 and not spoiled:
            spoiled.append(decision.decision_id)
            return b"\xff\x00 not a protobuf \x13\x37"
        return answer(decision.decision_id, 0)

    try:
        stream.hello(dict(enumerate(created.seat_tokens)))
        received, _ = play_slots(stream, {0, 1}, reply)
    finally:
        stream.close()
    faults = {slot: [m.fault for m in received[slot] if m.HasField("fault")] for slot in (0, 1)}
    assert [f.reason[:9] for f in faults[0]] == ["malformed"] and faults[1] == []
    assert faults[0][0].decision_id == spoiled[0]
    end = received[0][-1].end
    assert [s.status for s in end.seats] == ["invalid", "ok"]
    assert end.seats[0].fault_counts["invalid"] == 1 and not end.seats[1].fault_counts


def test_what_is_not_a_batch_ends_the_stream_and_its_seats_may_resume_on_play(referee) -> None:
    """A dropped PlaySeats stream is a lost connection for every seat on it: within the grace a
    seat resumes (here on Play) with its pending decision again."""
    created = referee.create("tussie-mussie", 2, seed=45)
    stream = RawSeats(referee.address)
    stream.hello(dict(enumerate(created.seat_tokens)))
    asked = []
    while not asked:
        asked = [e for e in stream.next().messages if e.message.HasField("decision")]
    stream.send_bytes(b"\xff\x00 not a protobuf")
    while stream.next() is not None:
        pass
    assert stream.error is not None and stream.error.code() == grpc.StatusCode.INVALID_ARGUMENT
    stream.close()
    seat = RawSeat(referee.address, created.seat_tokens[asked[0].slot])
    try:
        assert seat.next().start.resumed is True
        assert seat.next().decision.decision_id == asked[0].message.decision.decision_id
    finally:
        seat.close()
