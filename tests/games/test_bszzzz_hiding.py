"""Bszzzz! information hiding: the resample property (hypothesis), sealed submissions, and what play
reveals about a hand (a card sent back, a turn seat's pass) surviving a resample."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine_contract import check_hiding_at, check_pending_hidden, check_public_labels_at, seat_view
from referee.games import get_game
from referee.games.bszzzz.data import COLOURS

GAME = get_game("bszzzz")
PASS = {"type": "pass"}


def play(card: str) -> dict:
    return {"type": "play", "card": card}


def build(players=4, variant="standard", **state):
    return GAME.from_position({
        "game": "bszzzz", "variant": variant, "players": players, "options": {},
        "seats": [{"colour": c} for c in COLOURS[:players]], "seed": 3, "state": state,
    })


def advance(state, rng: random.Random, decisions: int) -> None:
    """``decisions`` random single submissions (windows resolve as their last submission arrives)."""
    for _ in range(decisions):
        if state.is_terminal():
            return
        seat = rng.choice(state.to_move())
        state.apply(seat, rng.choice(state.legal_actions(seat)))


def other_hands(state, seat) -> str:
    hands = state.to_position()["state"]["hands"]
    return json.dumps([h for s, h in enumerate(hands) if s != seat] + [state.to_position()["state"]["out"]])


def test_hiding_property():
    counts = {"cases": 0, "resamples": 0, "hands_changed": 0, "pending_changed": 0}

    @settings(max_examples=200, deadline=None, database=None)
    @given(
        seed=st.integers(0, 2**40),
        players=st.integers(3, 6),
        variant=st.sampled_from(["standard", "total"]),
        priority=st.sampled_from(["clockwise", "arrival"]),
        decisions=st.integers(0, 900),
    )
    def prop(seed, players, variant, priority, decisions):
        config = GAME.configure(players, variant, {"priority": priority})
        state = GAME.new_state(config, seed)
        rng = random.Random(seed)
        advance(state, rng, decisions)
        check_hiding_at(state, rng, samples=2)
        counts["cases"] += 1
        if state.is_terminal():
            return
        for seat in range(players):
            other = state.resample_hidden(seat, rng)
            counts["resamples"] += 1
            counts["hands_changed"] += other_hands(other, seat) != other_hands(state, seat)
            mine = [p for p in state.to_position()["state"]["pending"] if p[0] != seat]
            counts["pending_changed"] += mine != [p for p in other.to_position()["state"]["pending"] if p[0] != seat]
            # the resampled state is a valid one: it loads, keeps the seat's view, and plays on
            loaded = GAME.from_position(json.loads(json.dumps(other.to_position())))
            assert seat_view(loaded, seat) == seat_view(state, seat)
            advance(loaded, rng, 60)
        check_pending_hidden(state, rng)

    prop()
    # the property is not vacuous: resampling really redrew other seats' cards and sealed submissions
    assert counts["cases"] == 200
    assert counts["hands_changed"] > counts["resamples"] // 2
    assert counts["pending_changed"] > 0


def test_public_labels_property():
    """At random points of random games, an action's public label is the same in every state the
    spectator cannot tell apart (a submission is sealed until its window resolves)."""
    compared = [0]

    @settings(max_examples=40, deadline=None, database=None)
    @given(seed=st.integers(0, 2**40), players=st.integers(3, 6), variant=st.sampled_from(["standard", "total"]),
           decisions=st.integers(0, 900))
    def prop(seed, players, variant, decisions):
        state = GAME.new_state(GAME.configure(players, variant), seed)
        rng = random.Random(seed)
        advance(state, rng, decisions)
        if not state.is_terminal():
            compared[0] += check_public_labels_at(state, rng, samples=1)

    prop()
    assert compared[0] > 0


def test_a_sealed_submission_is_named_only_to_its_seat():
    """The seat reads "play the red bee"; the others read the same words for any card or a pass."""
    state = build(turn=0, hands=[["swatter-red-1", "fly-orange-2a", "bee-red"],
                                 ["swatter-yellow-1", "fly-red-3", "bee-blue"],
                                 ["swatter-green-1", "web-red-a", "fly-blue-2a"],
                                 ["swatter-blue-1", "fly-purple-2a"]])
    actions = state.legal_actions(1)
    assert PASS in actions and len(actions) >= 2
    assert state.action_label(1, play("bee-blue")).startswith("play the blue bee")
    assert {state.public_label(1, a) for a in actions} == {"submit a card or a pass (sealed)"}
    with pytest.raises(AssertionError, match="spectator cannot tell apart"):  # the private label leaks
        check_public_labels_at(state, random.Random(0), label=lambda s, seat, a: s.action_label(seat, a))


def test_a_card_sent_back_stays_known_in_its_hand():
    state = build(turn=0, trick=[[3, "fly-yellow-2a"]],
                  hands=[["swatter-red-1", "fly-orange-2a", "fly-green-3", "bee-red"],
                         ["swatter-yellow-1", "fly-red-3", "mosquito-blue-3", "bee-blue"],
                         ["swatter-green-1", "web-red-a", "fly-blue-2a", "mosquito-orange-4a"],
                         ["swatter-blue-1", "fly-purple-2a", "web-purple-a"]])
    for seat, action in ((1, play("bee-blue")), (2, play("web-red-a")), (3, PASS), (0, play("fly-orange-2a"))):
        state.apply(seat, action)
    # seat 0's fly was applied; the bee and the web went back, in full view
    assert state.windows[-1]["plays"][1]["outcome"] == "returned"
    rng = random.Random(1)
    moved = 0
    for _ in range(50):
        other = state.resample_hidden(0, rng)
        hands = [[c.id for c in h] for h in other.hands]
        assert "bee-blue" in hands[1] and "web-red-a" in hands[2]
        assert [len(h) for h in hands] == [len(h) for h in state.hands]
        moved += hands[1] != [c.id for c in state.hands[1]]
    assert moved > 0


def test_a_turn_seats_pass_limits_its_hand_to_the_top_cards_colour():
    # seat 0 is the turn seat and passes on a yellow card: it holds no trick card of another colour
    state = build(turn=0, trick=[[3, "fly-yellow-2a"]],
                  hands=[["swatter-red-1", "fly-yellow-3", "mosquito-yellow-3"],
                         ["swatter-yellow-1", "fly-red-3", "mosquito-blue-3", "bee-blue"],
                         ["swatter-green-1", "web-red-a", "fly-blue-2a", "mosquito-orange-4a", "web-yellow-a"],
                         ["swatter-blue-1", "fly-purple-2a", "web-purple-a"]])
    for seat in (0, 1, 2, 3):
        state.apply(seat, PASS)
    rng = random.Random(2)
    for _ in range(50):
        other = state.resample_hidden(2, rng)
        assert all(c.colour == "yellow" for c in other.hands[0] if c.kind != "swatter")
        assert len(other.hands[0]) == 3
