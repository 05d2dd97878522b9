"""Decision notes (docs/protocol.md, "Decision notes"): a bot's note on each answer travels in the
Answer, is bounded by the match host, and lands in the replay for that seat only; the house mcts
notes its visits and value."""
from __future__ import annotations

import json

from bots_sdk import Bot, RandomBot
from bots_sdk.local import play_match
from bots_sdk.via_referee import play_via_referee
from parlour.v1 import referee_pb2
from referee.client import LocalReferee
from referee.match import NOTE_LIMIT
from referee.replay import build_replay
from referee.timecontrol import TimeControl
from referee_process import RawSeats, RefereeProcess, play_slots


def test_an_mcts_match_through_the_referee_holds_a_note_for_every_mcts_decision_only() -> None:
    specs = ["random", "mcts?playouts=20&seed=1", "greedy"]
    with LocalReferee() as referee:
        replay = play_via_referee(referee, "tussie-mussie", "standard", {}, 11, TimeControl(2.0, 10.0), specs, specs)
    decisions = {(e["seat"], e["decision"]): i + 1 for i, e in enumerate(replay["log"]) if e["source"] == "bot"}
    mcts = {key: step for key, step in decisions.items() if key[0] == 1}
    assert mcts and len(mcts) < len(decisions)
    notes = {(n["seat"], n["decision"]): n for n in replay["notes"]}
    assert set(notes) == set(mcts)  # every mcts decision, nothing of the other seats
    for key, note in notes.items():
        assert note["step"] == mcts[key]  # beside the step its answer was applied at
        assert len(json.dumps(note["note"]).encode()) <= NOTE_LIMIT
    searched = [n["note"] for n in notes.values() if "visits" in n["note"]]
    assert searched, "some decisions were searched"
    for note in searched:
        assert 0.0 <= note["value"] <= 1.0
        assert sum(note["visits"].values()) <= 20 and all(isinstance(label, str) for label in note["visits"])


class Noisy(Bot):
    """Notes too much, then something that is not an object, then a proper note."""

    def decide(self, decision):
        kind = decision.decision_id % 3
        if kind == 0:
            decision.note(text="x" * (NOTE_LIMIT + 10))
        elif kind == 1:
            decision.note(value=0.5, visits={"a": 1})
            decision.note(text="and more")  # a later call adds to the note
        return 0


def test_the_host_bounds_notes_and_keeps_them_per_seat() -> None:
    replay = build_replay(play_match("tussie-mussie", [Noisy(), RandomBot()], seed=3).match)
    notes = replay["notes"]
    assert notes and {n["seat"] for n in notes} == {0}
    for entry in notes:
        if entry["decision"] % 3 == 0:
            assert entry["note"] == {"dropped": f"a note of {NOTE_LIMIT + 21} bytes, over the limit of {NOTE_LIMIT}"}
        else:
            assert entry["note"] == {"value": 0.5, "visits": {"a": 1}, "text": "and more"}
    assert all(n["decision"] % 3 != 2 for n in notes)  # no note, no entry


def test_a_note_reaches_no_other_seat_and_only_the_operators_replay(tmp_path) -> None:
    """Through a real referee, on the wire: seat 0 notes every answer (one note over the limit);
    nothing any other seat is sent holds a note, the replay holds seat 0's, and a reader without
    the operator's credential (or the bot's token) gets none."""
    def noting(slot: int, decision: referee_pb2.Decision) -> referee_pb2.BotMessage:
        answer = referee_pb2.Answer(protocol_version=1, decision_id=decision.decision_id, index=0)
        if slot == 0:
            answer.note = json.dumps({"text": f"SECRET-{decision.decision_id}"} if decision.decision_id != 1
                                     else {"text": "y" * NOTE_LIMIT})
        return referee_pb2.BotMessage(answer=answer)

    referee = RefereeProcess(tmp_path)
    try:
        created = referee.create("tussie-mussie", 3, seed=5)
        stream = RawSeats(referee.address)
        try:
            stream.hello(dict(enumerate(created.seat_tokens)))
            received, _ = play_slots(stream, {0, 1, 2}, noting)
        finally:
            stream.close()
        replay = referee.replay(created.match_id)
        stranger = referee.replay(created.match_id, operator=False)
    finally:
        referee.close()
    for slot in (1, 2):
        assert not any(b"SECRET" in m.SerializeToString() for m in received[slot])
    asked = [m.decision.decision_id for m in received[0] if m.HasField("decision")]
    notes = {n["decision"]: n["note"] for n in replay["notes"]}
    assert sorted(notes) == asked and {n["seat"] for n in replay["notes"]} == {0}
    assert notes[1] == {"dropped": f"a note of {NOTE_LIMIT + 12} bytes, over the limit of {NOTE_LIMIT}"}
    assert all(notes[d] == {"text": f"SECRET-{d}"} for d in asked if d != 1)
    assert stranger["notes"] == [] and stranger["log"] == replay["log"]
