"""Any decision, on your machine: ``replay decide`` rebuilds from a replay exactly what the referee
sent a seat (match start, observation, legal actions, labels, decision id, clock), for every game."""
from __future__ import annotations

import json
import time

import pytest

from bots_sdk.cli import main
from bots_sdk.decision_messages import decision_from_messages
from bots_sdk.rebuild import all_decisions, rebuild_decision
from parlour.v1 import referee_pb2
from referee.games import GAMES
from referee.replay import write_replay
from referee_process import RawSeats, RefereeProcess, answer, play_slots

MOVE_LIMIT = 0.25
SLOW_DECISION = 5  # answered after the move limit: the seat's bank is charged, and the rebuild must follow
RECORDER = '''
import json
from pathlib import Path
from bots_sdk import Bot

class Recorder(Bot):
    """Writes the decision it is given beside its file, then plays its first legal action."""

    def decide(self, decision):
        Path(__file__).with_suffix(".json").write_text(json.dumps({
            "game": decision.game, "variant": decision.variant, "seat": decision.seat,
            "players": decision.players, "options": decision.options, "decision_id": decision.decision_id,
            "observation": decision.observation, "legal_actions": decision.legal_actions,
            "labels": decision.labels, "time_left": decision.time_left, "seed": self.seed}))
        return 0
'''


@pytest.fixture(scope="module")
def referee(tmp_path_factory):
    process = RefereeProcess(tmp_path_factory.mktemp("referee"), grace=1.0)
    yield process
    process.close()


def players(game_id: str) -> int:
    counts = sorted(GAMES[game_id].variants[GAMES[game_id].default_variant].player_counts)
    return next((n for n in counts if n >= 3), counts[-1])


def varied(slot: int, decision: referee_pb2.Decision) -> referee_pb2.BotMessage:
    """Not always the first action (so matches go their varied ways); one answer slower than the move limit."""
    if decision.decision_id == SLOW_DECISION:
        time.sleep(MOVE_LIMIT + 0.1)
    return answer(decision.decision_id, (decision.decision_id * 7 + slot) % len(decision.legal_actions))


def sdk_fields(start: referee_pb2.MatchStart, decision: referee_pb2.Decision) -> dict:
    view = decision_from_messages(start, decision)
    return {"game": view.game, "variant": view.variant, "seat": view.seat, "players": view.players,
            "options": view.options, "decision_id": view.decision_id, "observation": view.observation,
            "legal_actions": view.legal_actions, "labels": view.labels, "time_left": view.time_left}


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_decision_rebuilt_from_the_replay_is_what_the_referee_sent(referee, game_id, tmp_path) -> None:
    n = players(game_id)
    created = referee.create(game_id, n, seed=37, move_limit=MOVE_LIMIT, bank=10.0)
    stream = RawSeats(referee.address)
    try:
        stream.hello(dict(enumerate(created.seat_tokens)))
        received, _ = play_slots(stream, set(range(n)), varied)
    finally:
        stream.close()
    replay = referee.replay(created.match_id)
    starts = {slot: messages[0].start for slot, messages in received.items()}
    sent = {(slot, m.decision.decision_id): m.decision for slot, messages in received.items()
            for m in messages if m.HasField("decision")}

    rebuilt = {(d.start.seat, d.decision.decision_id): d for d in all_decisions(replay)}
    assert sorted(rebuilt) == sorted(sent)  # the same seats asked the same decisions
    charged = False
    for key, decision in sent.items():
        again = rebuilt[key]
        start, sent_start = again.start, starts[key[0]]
        for name in ("game", "variant", "options", "seat", "players", "bot_seed", "time_control",
                     "engine_version", "seat_attributes"):
            assert getattr(start, name) == getattr(sent_start, name), (key, name)
        assert again.decision.decision_id == decision.decision_id
        assert again.decision.observation == decision.observation, key
        assert list(again.decision.legal_actions) == list(decision.legal_actions), key  # actions and labels
        assert again.decision.bank_seconds == pytest.approx(decision.bank_seconds, abs=1e-5), key
        assert again.decision.deadline_seconds == pytest.approx(decision.deadline_seconds, abs=1e-5), key
        charged |= decision.bank_seconds < 10.0
    assert charged, "the slow answer was charged to its seat's bank, and the rebuild charged it too"

    # the command on step 37 (or a short game's last step): the bot is given the decision sent
    step = min(37, len(replay["log"]))
    entry = replay["log"][step - 1]
    assert entry["source"] == "bot"
    path = tmp_path / "match.replay.gz"
    write_replay(path, replay)
    bot = tmp_path / "recorder.py"
    bot.write_text(RECORDER)
    assert main(["replay", "decide", str(path), "--step", str(step), "--seat", str(entry["seat"]),
                 f"{bot}:Recorder"]) == 0
    given = json.loads(bot.with_suffix(".json").read_text())
    seat = entry["seat"]
    expected = sdk_fields(starts[seat], sent[(seat, entry["decision"])])
    assert given.pop("seed") == starts[seat].bot_seed
    for name, value in expected.items():
        assert given[name] == (pytest.approx(value, abs=1e-5) if name == "time_left" else value), name
    assert rebuild_decision(replay, step).decision.decision_id == entry["decision"]
