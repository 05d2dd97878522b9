"""Tricky Twist: information hiding (a property test) and what resampling must keep."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine_contract import (
    check_hiding_at,
    check_pending_hidden,
    check_public_labels_at,
    play_out,
    seat_view,
    step,
)
from referee.games.tricky_twist.data import BONUS_IDS, CARD_IDS
from referee.games.tricky_twist.engine import GAME


def test_hiding_property():
    """At random points of random games, resampled states give every seat the same view (its
    observation, whether it is asked, its legal actions and labels), a sealed choice changes
    nothing the others receive, and a resampled state plays on to a valid end."""
    changed: list[int] = []

    @settings(max_examples=70, deadline=None, derandomize=True)
    @given(seed=st.integers(0, 2**63 - 1), players=st.sampled_from([3, 4]),
           end_check=st.sampled_from(["after_trick", "after_draw"]), steps=st.integers(0, 420))
    def run(seed, players, end_check, steps):
        config = GAME.configure(players, options={"end_check": end_check})
        state = GAME.new_state(config, seed)
        rng = random.Random(seed)
        for _ in range(steps):
            if state.is_terminal():
                break
            step(state, rng)
        changed.append(check_hiding_at(state, rng, samples=2))
        if not state.is_terminal():
            check_pending_hidden(state.clone(), rng)
            other = state.resample_hidden(rng.randrange(players), rng)
            assert other.seed != state.seed
            play_out(other, rng)
            assert len(other.result()["rounds"]) == players

    run()
    assert sum(changed) > 0, "no resample ever changed a hidden card: the check proved nothing"


def private_label(state, seat: int, action: dict) -> str:
    return state.action_label(seat, action)


def test_public_labels_property():
    """At random points of random games (often in the sealed reserve picks and round-end choices),
    an action's public label is the same in every state the spectator cannot tell apart."""
    compared: list[int] = []

    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(seed=st.integers(0, 2**63 - 1), players=st.sampled_from([3, 4]),
           steps=st.integers(0, 420), sealed=st.booleans())
    def run(seed, players, steps, sealed):
        state = GAME.new_state(GAME.configure(players), seed)
        rng = random.Random(seed)
        for _ in range(steps):
            if state.is_terminal() or (sealed and state.phase in ("reserve", "round_end") and rng.random() < 0.3):
                break
            step(state, rng)
        if not state.is_terminal():
            compared.append(check_public_labels_at(state, rng, samples=2))

    run()
    assert sum(compared) > 0, "no resampled state was ever compared"


def test_a_reserve_pick_and_a_round_end_choice_are_named_only_to_their_seat():
    """"put the 3 sun in your reserve" is the seat's own; the others read "put a card in the
    reserve". A round-end Bonus choice is sealed until every seat has made its: the others read
    which Bonus card it is for, not the choice."""
    state = GAME.new_state(GAME.configure(3), 5)
    assert state.phase == "reserve"
    pick = state.legal_actions(1)[0]
    card = pick["card"]
    assert state.action_label(1, pick) == f"put the {card.split('-')[1]} {card.split('-')[0]} in your reserve"
    assert {state.public_label(1, a) for a in state.legal_actions(1)} == {"put a card in the reserve"}
    with pytest.raises(AssertionError, match="spectator cannot tell apart"):  # the private label leaks
        check_public_labels_at(state, random.Random(0), label=private_label)
    for seed in range(40):  # a round end with sealed Bonus choices
        state, rng = GAME.new_state(GAME.configure(3), seed), random.Random(seed)
        while not state.is_terminal() and state.phase != "round_end":
            step(state, rng)
        if state.phase == "round_end":
            break
    seat = state.to_move()[0]
    bonus = state.round_end_steps(seat)[0]
    actions = state.legal_actions(seat)
    assert len({state.action_label(seat, a) for a in actions}) == len(actions)
    from referee.games.tricky_twist.data import BONUS_NAME

    assert {state.public_label(seat, a) for a in actions} == {f"make a sealed round-end choice for {BONUS_NAME[bonus]}"}
    assert not any("var_" in label or "_pile" in label for a in actions
                   for label in (state.public_label(seat, a), state.action_label(seat, a)))  # no internal ids


def test_observation_hides_other_hands_reserves_and_order():
    state = GAME.new_state(GAME.configure(4), 8)
    rng = random.Random(8)
    while state.phase == "reserve":
        step(state, rng)
    position = state.position_state()
    obs = state.observation(0)
    text = json.dumps(obs)
    for s in (1, 2, 3):
        for card in position["hands"][s] + position["reserves"][s]:
            assert f'"{card}"' not in text
    assert [c["id"] for c in obs["reserve"]] == sorted(position["reserves"][0], key=CARD_IDS.index)
    public = json.dumps(state.public_view())
    assert not any(f'"{c}"' in public for h in position["hands"] for c in h)


def void_position(draws: list[int], seat1_hand: int):
    """Trick 1: seat 0 led moon-1, seat 1 could not follow (sun-2), seat 2 won with moon-3."""
    cards = [c for c in CARD_IDS if c not in ("moon-1", "sun-2", "moon-3")]
    no_moon = [c for c in cards if not c.startswith("moon-")]
    hand1 = no_moon[:seat1_hand]
    rest = [c for c in cards if c not in hand1]
    reserve1 = rest[:15 - seat1_hand]  # moons: seat 1 may well hold some in its reserve
    rest = rest[15 - seat1_hand:]
    hands = [rest[:10], hand1, rest[10:20]]
    reserves = [rest[20:25], reserve1, rest[25:30]]
    n = 3
    data = {
        "round": 0, "first": 0, "phase": "play", "scoring_card": "even_values",
        "hands": hands, "reserves": reserves, "reserve_step": 5, "picks": [None] * n,
        "leader": 2, "turn": 2, "draw_offered": 3, "draws": draws, "trick": [],
        "tricks": [[], [], [["moon-1", "moon-3"]]], "false_tricks": [[], ["sun-2"], []],
        "bonus_available": list(BONUS_IDS), "bonus_held": [[], [], []], "bonus_spent": [],
        "bonus_queue": [], "known_in_hand": [[], [], []],
        "log": [{"leader": 0, "draws": [], "plays": [[0, "moon-1"], [1, "sun-2"], [2, "moon-3"]],
                 "winner": 2, "trick": ["moon-1", "moon-3"], "false_tricks": [[1, "sun-2"]],
                 "bonus": [], "take_back": []}],
        "batch": [], "choices": [[], [], []], "history": [], "totals": [0, 0, 0],
    }
    return GAME.from_position({"game": "tricky-twist", "players": n, "options": {}, "seed": 4,
                               "state": data})


def moons(cards):
    return sum(c.startswith("moon-") for c in cards)


def test_resample_respects_a_shown_void():
    """Seat 1 did not follow moon and has not drawn since: it holds no moon, and every resample
    from another seat's view agrees; its reserve (never in hand then) may hold moons."""
    state = void_position(draws=[], seat1_hand=10)
    rng = random.Random(2)
    reserve_moons = other_moons = 0
    for _ in range(40):
        other = state.resample_hidden(0, rng)
        pos = other.position_state()
        assert moons(pos["hands"][1]) == 0
        assert seat_view(other, 0) == seat_view(state, 0)
        reserve_moons += moons(pos["reserves"][1])
        other_moons += moons(pos["hands"][2])
    assert reserve_moons > 0 and other_moons > 0


def test_resample_lets_a_card_drawn_after_the_void_be_of_that_family():
    """Seat 1 drew one card after showing its void: at most that one card can be a moon."""
    state = void_position(draws=[1], seat1_hand=11)
    rng = random.Random(3)
    seen = set()
    for _ in range(60):
        held = moons(state.resample_hidden(2, rng).position_state()["hands"][1])
        assert held <= 1
        seen.add(held)
    assert seen == {0, 1}


def test_resample_keeps_a_taken_back_card_in_its_hand():
    """A false trick returned by take_back is public: it stays in that hand in every resample."""
    config = GAME.configure(3)
    for seed in range(300):
        state = GAME.new_state(config, seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            known = state.position_state()["known_in_hand"]
            holder = next((s for s in range(3) if known[s]), None)
            if holder is not None:
                viewer = (holder + 1) % 3
                for _ in range(5):
                    other = state.resample_hidden(viewer, rng).position_state()
                    assert set(known[holder]) <= set(other["hands"][holder])
                return
            step(state, rng)
    raise AssertionError("no take_back in 300 random games")
