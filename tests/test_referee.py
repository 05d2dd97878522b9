"""The referee as bots meet it: a real referee process on a real port, bots in their own processes
or as raw streams that misbehave on purpose."""
from __future__ import annotations

import concurrent.futures
import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from bots_sdk import RandomBot
from bots_sdk.local import play_match
from parlour.v1 import referee_pb2
from referee import wire
from referee.client import RefereeClient
from referee.games import GAMES
from referee.replay import Resimulation, check_replay
from referee_process import PV, ROOT, RawSeat, RefereeProcess, bot_process, remote_bot_process

AUDIT_BOT = Path(__file__).parent / "bots" / "audit_bot.py"


@pytest.fixture(scope="module")
def referee(tmp_path_factory):
    process = RefereeProcess(tmp_path_factory.mktemp("referee"), grace=1.5)
    yield process
    process.close()


def smallest_table(game: str) -> int:
    return min(GAMES[game].variant(None).player_counts)


def play_raw_to_end(seat: RawSeat, on_decision) -> referee_pb2.MatchEnd:
    """Answer decisions with ``on_decision(decision) -> None`` until the end; returns MatchEnd."""
    while True:
        message = seat.next()
        assert message is not None, f"stream closed early: {seat.error}"
        kind = message.WhichOneof("message")
        if kind == "decision":
            on_decision(message.decision)
        elif kind == "end":
            return message.end


def faults_of(seat: RawSeat) -> list[referee_pb2.FaultNotice]:
    return [m.fault for m in seat.received if m.WhichOneof("message") == "fault"]


# ---------------------------------------------------------------------- the service
def test_health_and_reflection(referee) -> None:
    health = health_pb2_grpc.HealthStub(referee.channel)
    assert health.Check(health_pb2.HealthCheckRequest(service="")).status == health_pb2.HealthCheckResponse.SERVING
    assert health.Check(health_pb2.HealthCheckRequest(service="parlour.v1.Referee")).status == \
        health_pb2.HealthCheckResponse.SERVING
    stub = reflection_pb2_grpc.ServerReflectionStub(referee.channel)
    responses = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
    names = {s.name for r in responses for s in r.list_services_response.service}
    assert {"parlour.v1.Referee", "grpc.health.v1.Health"} <= names


def test_list_games(referee) -> None:
    games = {g.id: g for g in referee.stub.ListGames(referee_pb2.ListGamesRequest(protocol_version=PV)).games}
    assert set(games) == set(GAMES)
    tm = games["tussie-mussie"]
    solo = next(v for v in tm.variants if v.name == "solo")
    assert list(solo.players) == [1]
    head_start = next(o for o in solo.options if o.name == "apprentice_head_start")
    assert head_start.type == "bool" and head_start.default.flag is False


def test_create_match_needs_the_operator(referee) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        referee.stub.CreateMatch(referee_pb2.CreateMatchRequest(protocol_version=PV, game="tussie-mussie",
                                                                seats=[referee_pb2.SeatSetup()] * 2))
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.RpcError) as caught:
        referee.stub.CreateMatch(referee_pb2.CreateMatchRequest(protocol_version=PV, game="tussie-mussie",
                                                                seats=[referee_pb2.SeatSetup()] * 5),
                                 metadata=referee.auth)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "2, 3, 4 player(s), not 5" in caught.value.details()


# ---------------------------------------------------------------------- whole matches
@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_through_the_referee_equals_in_process(referee, game) -> None:
    players = smallest_table(game)
    created = referee.create(game, players, seed=31)
    bots = [bot_process(referee.address, t) for t in created.seat_tokens]
    for b in bots:
        assert b.wait(120) == 0, b.stderr.read()
    replay = referee.replay(created.match_id)
    assert check_replay(replay) == []
    local = play_match(game, [RandomBot() for _ in range(players)], seed=31)
    def strip(log: list[dict]) -> list[tuple]:
        return [(e["seat"], e["action"], e["source"]) for e in log]

    assert strip(replay["log"]) == strip(local.log), "same seed, same bots: same action log"
    assert replay["result"]["scores"] == local.result["scores"]
    assert replay["result"]["ranks"] == local.result["ranks"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_followed_replay_checks_out(referee, game) -> None:
    """The operator's road: the public frames streamed as play went are the replay's own (not
    derived twice), so the replay is checked against a full re-simulation here."""
    players = max(GAMES[game].variant(None).player_counts)
    created = referee.create(game, players, seed=32, record_frames=True)
    frames: list[str] = []
    client = RefereeClient(referee.address, referee.operator)
    following = concurrent.futures.ThreadPoolExecutor(1).submit(
        client.follow, created.match_id, 120, lambda first, batch: frames.extend(batch))
    bots = [bot_process(referee.address, t) for t in created.seat_tokens]
    for b in bots:
        assert b.wait(120) == 0, b.stderr.read()
    outcome = following.result(120)
    replay = json.loads(gzip.decompress(outcome.replay_gz))
    assert check_replay(replay) == []
    assert [json.loads(f) for f in frames] == replay["public"]
    client.close()


def test_unix_socket(referee) -> None:
    created = referee.create("tussie-mussie", 2, seed=3)
    bots = [bot_process(f"unix:{referee.unix}", t) for t in created.seat_tokens]
    for b in bots:
        assert b.wait(60) == 0, b.stderr.read()
    assert json.loads(bots[0].stdout.read())["statuses"] == ["ok", "ok"]


# ---------------------------------------------------------------------- faults
def test_sleeping_bot_gets_default_strikes_then_forfeit(referee) -> None:
    created = referee.create("tussie-mussie", 2, seed=4, move_limit=0.2, bank=0.0)
    other = bot_process(referee.address, created.seat_tokens[1])
    sleeper = RawSeat(referee.address, created.seat_tokens[0])
    while sleeper.next() is not None:  # never answers; the forfeited seat's stream is closed
        pass
    assert sleeper.error is None, "closed normally, after the notice that says why"
    notices = faults_of(sleeper)
    assert len(notices) == 3 and all(n.reason.startswith("timeout") for n in notices)
    assert [n.forfeited for n in notices] == [False, False, True]
    assert sleeper.received[-1].WhichOneof("message") == "fault"
    assert other.wait(60) == 0
    end = json.loads(other.stdout.read())
    assert end["statuses"] == ["forfeited", "ok"]
    assert end["fault_counts"][0]["timeout"] == 3
    again = RawSeat(referee.address, created.seat_tokens[0])  # (the match is over: the token is void too)
    assert again.next() is None and again.error.code() in (grpc.StatusCode.FAILED_PRECONDITION,
                                                            grpc.StatusCode.UNAUTHENTICATED)
    again.close()
    replay = referee.replay(created.match_id)
    sources = [e["source"] for e in replay["log"] if e["seat"] == 0]
    assert sources[:3] == ["default"] * 3 and set(sources[3:]) == {"autopilot"}
    sleeper.close()


def test_bad_answers_are_refused_with_a_reason_and_the_match_goes_on(referee) -> None:
    created = referee.create("tussie-mussie", 2, seed=5)
    other = bot_process(referee.address, created.seat_tokens[1])
    seat = RawSeat(referee.address, created.seat_tokens[0])
    script = iter(["garbage", "wrong id", "good", "good"])

    def on_decision(decision):
        step = next(script, "good")
        if step == "garbage":
            seat.send_bytes(b"\xff\x00 not a protobuf \x13\x37")
        elif step == "wrong id":
            seat.answer_index(decision.decision_id + 1000, 0)
        else:
            seat.answer_index(decision.decision_id, 0)

    end = play_raw_to_end(seat, on_decision)
    assert other.wait(60) == 0
    reasons = [n.reason for n in faults_of(seat)]
    assert reasons[0].startswith("malformed") and reasons[1].startswith("wrong decision id")
    assert len(reasons) == 2
    assert [s.status for s in end.seats] == ["invalid", "ok"], "two strikes: still playing"
    assert end.seats[0].fault_counts["invalid"] == 2
    seat.close()


def test_out_of_range_and_another_seats_action_are_refused(referee) -> None:
    created = referee.create("tussie-mussie", 2, seed=6)
    other = bot_process(referee.address, created.seat_tokens[1])
    seat = RawSeat(referee.address, created.seat_tokens[0])
    count = {"n": 0}

    def on_decision(decision):
        count["n"] += 1
        if count["n"] == 1:
            seat.answer_index(decision.decision_id, 99)
        elif count["n"] == 2:
            # the other party's action: a take when this seat must offer, an offer when it must take
            mine = wire.action_json(decision.legal_actions[0].action)["type"]
            other_seat = {"type": "take", "side": "face_up"} if mine == "offer" else \
                {"type": "offer", "face_up": "camellia"}
            action = wire.action_message("tussie-mussie", other_seat)
            seat.send_message(referee_pb2.BotMessage(answer=referee_pb2.Answer(
                protocol_version=PV, decision_id=decision.decision_id, action=action)))
        else:
            seat.answer_index(decision.decision_id, 0)

    end = play_raw_to_end(seat, on_decision)
    assert other.wait(60) == 0
    reasons = [n.reason for n in faults_of(seat)]
    assert reasons[0] == "illegal: returned 99, not a legal action (an index 0..1 or one of the 2 legal actions)"
    assert reasons[1].startswith("illegal: returned {") and "not a legal action" in reasons[1]
    assert end.status == "finished"
    seat.close()


def test_killed_bot_is_forfeited_and_the_match_completes(referee) -> None:
    created = referee.create("tussie-mussie", 3, seed=7)
    others = [bot_process(referee.address, t) for t in created.seat_tokens[1:]]
    victim = bot_process(referee.address, created.seat_tokens[0], spec=str(Path(__file__).parent / "bots" / "slow_bot.py:SlowBot"))
    time.sleep(2.5)  # let it play a little, then kill it mid-match
    victim.kill()
    for b in others:
        assert b.wait(60) == 0, b.stderr.read()
    result = referee.replay(created.match_id)["result"]
    assert result["statuses"] == ["forfeited", "ok", "ok"]
    assert result["fault_counts"][0]["error"] == 1


def test_reconnect_within_the_grace_period_resumes(referee) -> None:
    created = referee.create("tussie-mussie", 2, seed=8)
    other = bot_process(referee.address, created.seat_tokens[1])
    first = RawSeat(referee.address, created.seat_tokens[0])
    message = first.next()
    assert message.start.resumed is False
    decision = first.next().decision
    first.answer_index(decision.decision_id, 0)
    while True:  # wait for the next decision, then drop the connection without answering
        message = first.next()
        if message.WhichOneof("message") == "decision":
            break
    first.close()
    time.sleep(0.3)
    second = RawSeat(referee.address, created.seat_tokens[0])
    start = second.next()
    assert start.start.resumed is True and start.start.seat == 0
    end = play_raw_to_end(second, lambda d: second.answer_index(d.decision_id, 0))
    assert other.wait(60) == 0
    assert [s.status for s in end.seats] == ["ok", "ok"]
    second.close()


def test_a_second_hello_on_a_live_seat_takes_it_over_with_the_pending_decision(referee) -> None:
    """docs/protocol.md: the new stream gets MatchStart (resumed) and the pending decision again; the
    old stream ends with no MatchEnd."""
    created = referee.create("tussie-mussie", 2, seed=13)
    other = bot_process(referee.address, created.seat_tokens[1])
    first = RawSeat(referee.address, created.seat_tokens[0])
    assert first.next().WhichOneof("message") == "start"
    pending = first.next().decision
    second = RawSeat(referee.address, created.seat_tokens[0])
    assert second.next().start.resumed is True
    assert first.next() is None and first.error.code() == grpc.StatusCode.ABORTED, "the old stream is closed"
    assert "resumed on a newer stream" in first.error.details()
    again = second.next(5.0)
    assert again.WhichOneof("message") == "decision" and again.decision.decision_id == pending.decision_id
    second.answer_index(again.decision.decision_id, 0)
    end = play_raw_to_end(second, lambda d: second.answer_index(d.decision_id, 0))
    assert other.wait(60) == 0
    assert [s.status for s in end.seats] == ["ok", "ok"] and faults_of(second) == []
    first.close()
    second.close()


def test_watch_numbers_steps_as_the_replay_log_even_after_the_end(referee) -> None:
    created = referee.create("misty", 2, seed=14, variant="beginner", options={"round_cap": 3})
    bots = [bot_process(referee.address, t) for t in created.seat_tokens]
    for b in bots:
        assert b.wait(60) == 0
    log = referee.replay(created.match_id)["log"]
    late = list(referee.stub.WatchMatch(referee_pb2.WatchMatchRequest(protocol_version=PV,
                                                                        match_id=created.match_id)))
    assert [(e.step, e.finished) for e in late] == [(len(log), False), (len(log), True)]


def test_seat_tokens_act_for_their_own_seat_and_match_only(referee) -> None:
    created = referee.create("tussie-mussie", 2, seed=9)
    seat = RawSeat(referee.address, created.seat_tokens[1])
    assert seat.next().start.seat == 1
    seat.close()
    for token in ("not-a-token", created.seat_tokens[0].replace(".", "x.", 1)):  # the secret altered
        stranger = RawSeat(referee.address, token)
        assert stranger.next() is None
        assert stranger.error.code() == grpc.StatusCode.UNAUTHENTICATED
        stranger.close()
    # once the match is over its tokens are void
    bots = [bot_process(referee.address, t) for t in created.seat_tokens]
    for b in bots:
        b.wait(60)
    late = RawSeat(referee.address, created.seat_tokens[0])
    assert late.next() is None and late.error.code() == grpc.StatusCode.UNAUTHENTICATED
    late.close()


# ---------------------------------------------------------------------- remote bots
def test_bad_api_token_is_refused(referee) -> None:
    stream = referee.stub.Connect(referee_pb2.ConnectRequest(protocol_version=PV, api_token="wrong"))
    with pytest.raises(grpc.RpcError) as caught:
        next(stream)
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_remote_bot_is_offered_matches_and_plays(referee, tmp_path) -> None:
    token = referee.add_api_token("remote-bot-7")
    server = remote_bot_process(referee.address, token, "remote-bot-7", "greedy")
    try:
        created = referee.create("tussie-mussie", 2, seed=10, remote=["remote-bot-7", ""])
        other = bot_process(referee.address, created.seat_tokens[1])
        assert other.wait(60) == 0
        assert "playing seat 0 of tussie-mussie" in server.stdout.readline()
        replay = referee.replay(created.match_id, operator=False, api_token=token)
        assert replay["result"]["statuses"] == ["ok", "ok"]
        assert all(line["seat"] == 0 for line in replay["bot_logs"])
        anonymous = referee.replay(created.match_id, operator=False)
        assert anonymous["bot_logs"] == []
    finally:
        server.kill()


def test_the_operator_lists_the_connected_remote_bots(referee) -> None:
    from referee.client import RefereeClient

    operator = RefereeClient(referee.address, referee.operator)
    with pytest.raises(grpc.RpcError) as caught:
        referee.stub.ListConnected(referee_pb2.ListConnectedRequest(protocol_version=PV))
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "remote-bot-9" not in operator.connected_remote_bots()
    server = remote_bot_process(referee.address, referee.add_api_token("remote-bot-9"), "remote-bot-9")
    try:
        assert "remote-bot-9" in operator.connected_remote_bots()
    finally:
        server.kill()
        server.wait()
    for _ in range(100):  # the referee notices the closed stream
        if "remote-bot-9" not in operator.connected_remote_bots():
            break
        time.sleep(0.05)
    assert "remote-bot-9" not in operator.connected_remote_bots()
    operator.close()


# ---------------------------------------------------------------------- hiding on the wire
@pytest.mark.parametrize("game", sorted(GAMES))
def test_wire_audit_no_seat_or_spectator_learns_a_hidden_card(referee, game, tmp_path) -> None:
    """Every message a seat receives equals the engine's own view for that seat at that step (the
    engines' hiding property tests cover those views); the match start carries the bot's own seed,
    never the match seed; the spectator stream carries exactly the public views."""
    players = smallest_table(game)
    created = referee.create(game, players, seed=41)
    watch = referee.stub.WatchMatch(referee_pb2.WatchMatchRequest(protocol_version=PV, match_id=created.match_id))
    audit = [tmp_path / f"seat{s}.jsonl" for s in range(players)]
    bots = [subprocess.Popen([sys.executable, "-m", "bots_sdk", "connect", f"{AUDIT_BOT}:AuditBot", "--referee",
                              referee.address, f"--seat-token={t}"], env=dict(os.environ, AUDIT_FILE=str(audit[s])),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
            for s, t in enumerate(created.seat_tokens)]
    for b in bots:
        assert b.wait(120) == 0, b.stderr.read()
    events = list(watch)
    replay = referee.replay(created.match_id)
    seed = replay["header"]["seed"]
    received = {}
    for s, path in enumerate(audit):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        assert lines[0]["start"]["bot_seed"] != seed and lines[0]["start"]["seat"] == s
        for line in lines[1:]:
            received[line["decision_id"]] = (s, line)
    checked = 0
    sim = Resimulation(replay["header"], replay["log"])
    public_by_step = [sim.state.public_view()]
    # each seat received, before each of its entries, exactly the engine's view of that moment
    state = sim.state
    steps = sim.steps()
    for entry in replay["log"]:
        decision = entry.get("decision")
        if decision in received and entry["source"] == "bot":
            seat, line = received[decision]
            assert seat == entry["seat"]
            assert line["observation"] == json.loads(json.dumps(state.observation(seat)))
            assert line["legal_actions"] == state.legal_actions(seat)
            assert line["labels"] == [state.action_label(seat, a) for a in state.legal_actions(seat)]
            checked += 1
        next(steps)
        public_by_step.append(json.loads(json.dumps(state.public_view())))
    assert checked > 0
    finished = [e for e in events if e.finished]
    assert len(finished) == 1
    for event in events:
        if event.HasField("public_view"):
            view = wire.observation_json(event.public_view)
            assert view == public_by_step[event.step], f"spectator event {event.step}"


def javascript_against_python(referee, created) -> dict:
    """examples/js-bot in seat 0, a Python random bot in seat 1, to the end: the result it printed."""
    js = subprocess.Popen(["node", str(ROOT / "examples" / "js-bot" / "random_bot.js"), "--referee", referee.address,
                           "--seat-token", created.seat_tokens[0]], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    python = bot_process(referee.address, created.seat_tokens[1])
    assert js.wait(60) == 0, js.stderr.read()
    assert python.wait(60) == 0
    return json.loads(js.stdout.read())


def test_javascript_bot_plays_a_whole_match(referee) -> None:
    """examples/js-bot knows nothing but the .proto files."""
    created = referee.create("tussie-mussie", 2, seed=12)
    result = javascript_against_python(referee, created)
    assert result["statuses"] == ["ok", "ok"] and sorted(result["ranks"]) == [1, 2]
    logs = referee.replay(created.match_id)["bot_logs"]
    assert logs and all(line["seat"] == 0 and line["line"].startswith("chose ") for line in logs)


def test_javascript_bot_plays_the_fifth_game_in_the_generic_encoding(referee) -> None:
    """examples/js-bot plays Kuhn poker, a game installed from outside with no typed messages: it
    reads every observation from its JSON text and answers with the whole action as JSON, which the
    referee takes as the offer it is (docs/protocol.md, "Games without typed messages")."""
    created = referee.create("kuhn-poker", 2, seed=12)
    result = javascript_against_python(referee, created)
    assert result["statuses"] == ["ok", "ok"] and sum(result["scores"]) == 0
    replay = referee.replay(created.match_id)
    assert check_replay(replay) == []
    played = [e for e in replay["log"] if e["seat"] == 0]
    lines = [line["line"] for line in replay["bot_logs"] if line["seat"] == 0]
    assert played and all(e["source"] == "bot" for e in played) and len(lines) == len(played)
    for entry, line in zip(played, lines):  # what it read and what it sent, as it logged them
        sent = json.loads(line.split(" as ", 1)[1].split(" (observation:", 1)[0])
        assert sent == entry["action"] and line.endswith(", seat 0)")
