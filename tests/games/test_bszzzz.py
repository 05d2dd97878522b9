"""Bszzzz! rules tests: the vector file, hand-built positions from rulings.md's rules, the decks of
components.md, and the generic engine checks (random games, termination, determinism).

Positions are built by hand in the engine's documented position format (engine module docstring)."""
from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from engine_contract import (
    check_illegal_refused,
    check_random_games,
    check_replayable,
    default_policy,
    first_policy,
    play_out,
    random_policy,
    step,
)
from referee.games import ConfigError, IllegalActionError, PositionError, get_game
from referee.games.bszzzz.data import CARDS, COLOURS, DECKS, HAND_SIZE, SWATTERS
from referee.games.seeding import Draws

GAME = get_game("bszzzz")
VECTORS = json.loads(  # tests/data/vectors/README.md
    (Path(__file__).resolve().parents[1] / "data" / "vectors" / "bszzzz-round-points.json").read_text()
)
PASS = {"type": "pass"}


def play(card: str) -> dict:
    return {"type": "play", "card": card}


def build(players=4, variant="standard", options=None, colours=None, seed=11, **state):
    """A hand-built position; seat k has colour COLOURS[k] unless ``colours`` says otherwise."""
    colours = colours or list(COLOURS[:players])
    return GAME.from_position({
        "game": "bszzzz", "variant": variant, "players": players, "options": options or {},
        "seats": [{"colour": c} for c in colours], "seed": seed, "state": state,
    })


def ids(cards) -> list[str]:
    return [c.id for c in cards]


def submit(state, actions: dict[int, dict]) -> None:
    """Apply the window's submissions in the dict's order (the arrival order); unlisted seats pass."""
    for seat, action in actions.items():
        state.apply(seat, action)
    for seat in list(state.to_move()):
        state.apply(seat, PASS)


def plays_of(state, seat) -> list[dict]:
    return [a for a in state.legal_actions(seat) if a["type"] == "play"]


# ------------------------------------------------------------------------------------------ decks
def test_decks_have_the_counts_of_components_md():
    for deck, (pests, useful, webs, web_penalty) in {"rulebook": (40, 9, 11, 1), "original": (48, 9, 3, 2)}.items():
        cards = DECKS[deck]
        kinds = Counter(c.kind for c in cards)
        assert (kinds["pest"], kinds["useful"], kinds["web"], len(cards)) == (pests, useful, webs, 60)
        assert len({c.id for c in cards}) == 60
        assert {c.penalty for c in cards if c.kind == "web"} == {web_penalty}
        assert all(c.capture > 0 for c in cards if c.kind == "pest")
        assert sorted(c.capture for c in cards if c.kind == "useful") == [-3] * 5 + [-2] * 4
        assert Counter(c.name for c in cards if c.kind == "useful") == {"bee": 5, "butterfly": 4}
    rulebook = DECKS["rulebook"]
    assert Counter(c.colour for c in rulebook) == {c: 10 for c in COLOURS}  # 10 trick cards per colour
    assert Counter(c.colour for c in rulebook if c.kind == "web") == {
        "red": 2, "yellow": 2, "green": 2, "purple": 2, "orange": 2, "blue": 1}
    red = sorted((c.name, c.capture, c.penalty) for c in rulebook if c.kind == "pest" and c.colour == "red")
    assert red == [("fly", 1, 1), ("fly", 2, 1), ("fly", 2, 1), ("fly", 3, 2),
                   ("mosquito", 3, 2), ("mosquito", 4, 2), ("mosquito", 4, 3)]
    assert not any(c.capture == 1 for c in rulebook if c.colour in ("purple", "orange"))
    original_purple = sorted(c.capture for c in DECKS["original"] if c.kind == "pest" and c.colour == "purple")
    assert original_purple == [1, 2, 2, 3, 3, 4, 4, 5]
    assert {c.colour for c in DECKS["original"] if c.kind == "web"} == {"red", "yellow", "green"}
    assert all(len(SWATTERS[c]) == 3 and {s.colour for s in SWATTERS[c]} == {c} for c in COLOURS)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("deck", ["rulebook", "original"])
def test_deal(players, deck):
    state = GAME.new_state(GAME.configure(players, options={"deck": deck}), 5)
    size = HAND_SIZE[players]
    assert size == {3: 15, 4: 15, 5: 12, 6: 10}[players]
    for seat, hand in enumerate(state.hands):
        assert sum(c.kind != "swatter" for c in hand) == size
        assert ids(c for c in hand if c.kind == "swatter") == ids(SWATTERS[COLOURS[seat]])
    dealt = [c.id for hand in state.hands for c in hand if c.kind != "swatter"] + ids(state.out)
    assert sorted(dealt) == sorted(ids(DECKS[deck]))
    assert len(state.out) == 60 - players * size
    assert state.dealer == 0 and state.turn == 1  # the seat left of the dealer leads


def test_deal_of_a_round_depends_only_on_seed_and_round():
    config = GAME.configure(4)
    hands = []
    for policy_seed in (1, 2):
        state = GAME.new_state(config, 99)
        rng = random.Random(policy_seed)
        while state.round == 1:
            for seat in state.to_move():
                state.apply(seat, rng.choice(state.legal_actions(seat)))
        hands.append(state.position_state()["hands"])
        assert state.dealer == 1 and state.turn == 2  # the dealer moves left
    assert hands[0] == hands[1]
    # and it is Draws(seed, "deal", 2) shuffling the deck's fixed ids
    cards = Draws(99, "deal", 2).shuffled(DECKS["rulebook"])
    assert sorted(hands[0][0][:15]) == sorted(c.id for c in cards[:15])


# ------------------------------------------------------------------------------------------ colours
def test_seat_colours_default_and_given():
    config = GAME.configure(5)
    assert [s["colour"] for s in config.seats] == ["red", "yellow", "green", "blue", "purple"]
    given = GAME.configure(3, seats=[{"colour": "orange"}, {"colour": "blue"}, {"colour": "red"}])
    state = GAME.new_state(given, 1)
    assert state.colours == ["orange", "blue", "red"]
    assert {c.id for c in state.hands[0] if c.kind == "swatter"} == {"swatter-orange-1", "swatter-orange-2",
                                                                      "swatter-orange-3"}
    assert state.observation(1)["colours"] == ["orange", "blue", "red"]
    with pytest.raises(ConfigError):
        GAME.configure(3, seats=[{"colour": "red"}, {"colour": "red"}, {"colour": "blue"}])
    with pytest.raises(ConfigError):
        GAME.configure(3, seats=[{"colour": "pink"}, {"colour": "red"}, {"colour": "blue"}])
    with pytest.raises(ConfigError):
        GAME.configure(7)
    with pytest.raises(ConfigError):
        GAME.configure(4, options={"round_cap": 0})
    assert GAME.seat_attributes == ("colour",)
    for variant in ("standard", "total"):
        spec = GAME.variant(variant)
        assert spec.player_counts == (3, 4, 5, 6)
        assert {o.name: (o.default, o.values or (o.low, o.high)) for o in spec.options} == {
            "deck": ("rulebook", ("rulebook", "original")), "priority": ("clockwise", ("clockwise", "arrival")),
            "swatter_colour": ("strict", ("strict", "free")), "round_cap": (20, (1, 50))}


def test_bad_positions_are_refused():
    hands = [["swatter-red-1"], ["swatter-yellow-1"], ["swatter-green-1"]]
    for state in ({"turn": 0, "hands": hands, "trick": [[1, "swatter-red-2"]]},
                  {"turn": 0, "hands": [["swatter-yellow-2"], *hands[1:]]},
                  {"turn": 0, "hands": [["bee-red", "swatter-red-1"], ["bee-red"], hands[2]]},
                  {"turn": 0, "hands": hands, "taken": [["mosquito-red-5"], [], []]},
                  {"turn": 3, "hands": hands}):
        with pytest.raises(PositionError):
            build(players=3, **state)


# ------------------------------------------------------------------------------------------ vectors
def vector_position(case: dict) -> dict:
    """The vector's seat as seat 0 of a 3-player position at its round's last window: the turn seat (1)
    holds only a swatter on an empty trick, so once all pass, the third window without a card ends it."""
    deck = list(DECKS["rulebook"])
    used: set[str] = set()

    def real(card: dict) -> str:
        kind = "useful" if card["kind"] in ("bee", "butterfly") else card["kind"]
        for c in deck:
            if (c.id not in used and c.kind == kind and c.colour == card["colour"]
                    and c.capture == card["capture"] and c.penalty == card["penalty"]
                    and (kind != "useful" or c.name == card["kind"])):
                used.add(c.id)
                return c.id
        raise AssertionError(f"no such card in the deck: {card}")

    others = [c for c in COLOURS if c != case["colour"]][:2]
    return {
        "colours": [case["colour"], *others],
        "hands": [[real(c) for c in case["hand"]], [SWATTERS[others[0]][0].id], [SWATTERS[others[1]][0].id]],
        "taken": [[real(c) for c in case["taken"]], [], []],
        "turn": 1, "idle": 2,
    }


@pytest.mark.parametrize("case", VECTORS, ids=[f"case{i}" for i in range(len(VECTORS))])
def test_round_points_vectors(case):
    position = vector_position(case)
    state = build(players=3, options={"round_cap": 1}, **position)
    assert state.legal_actions(1) == [PASS]
    submit(state, {})
    assert state.is_terminal()
    assert state.rounds[-1]["points"] == [case["points"], 0, 0]
    assert state.result()["scores"] == [case["points"], 0, 0]


# ------------------------------------------------------------------------------------------ swatters
def test_swatter_on_a_pest_takes_the_whole_trick():
    state = build(turn=3, trick=[[1, "bee-yellow"], [2, "fly-green-2a"]],
                  hands=[["swatter-red-1", "swatter-red-2", "fly-orange-2a"], ["swatter-yellow-1", "bee-blue"],
                         ["swatter-green-1"], ["swatter-blue-1", "fly-green-3"]])
    submit(state, {0: play("swatter-red-1")})
    assert ids(state.taken[0]) == ["bee-yellow", "fly-green-2a"]
    assert ids(state.swatted[0]) == ["swatter-red-1"] and state.trick == []
    assert state.turn == 1  # the seat left of the swatter's player leads
    assert state.windows[-1]["effect"] == "swat-trick"
    # the red seat would score +2 - 3 for these
    assert state.swatters_left == [1, 1, 1, 1]


def test_swatter_on_a_useful_insect_takes_only_the_useful_insects():
    state = build(turn=3, trick=[[1, "fly-yellow-2a"], [3, "butterfly-orange-a"], [2, "bee-green"]],
                  hands=[["swatter-red-1", "swatter-red-2"], ["swatter-yellow-1"], ["swatter-green-1"],
                         ["swatter-blue-1", "fly-green-3"]])
    submit(state, {0: play("swatter-red-1")})
    assert sorted(ids(state.taken[0])) == ["bee-green", "butterfly-orange-a"]
    assert "fly-yellow-2a" in ids(state.discard)
    assert ids(state.swatted[0]) == ["swatter-red-1"]
    assert state.turn == 1


def two_swatters(options=None):
    return build(turn=2, options=options, trick=[[1, "fly-yellow-2a"]],
                 hands=[["swatter-red-1", "swatter-red-2"], ["swatter-yellow-1"], ["swatter-green-1", "fly-yellow-3"],
                        ["swatter-blue-1", "swatter-blue-2"]])


def test_two_swatters_in_one_window_the_second_is_spent():
    state = two_swatters()
    # seat 0 arrives first, but priority runs clockwise from the left of the last card's player (1): 2, 3, 0
    submit(state, {0: play("swatter-red-1"), 3: play("swatter-blue-1")})
    assert ids(state.taken[3]) == ["fly-yellow-2a"] and state.taken[0] == []
    assert ids(state.spent[0]) == ["swatter-red-1"] and ids(state.hands[0]) == ["swatter-red-2"]
    assert state.swatters_left == [1, 1, 1, 1]
    assert state.turn == 0  # left of the swatter that landed
    outcomes = {p["seat"]: p["outcome"] for p in state.windows[-1]["plays"]}
    assert outcomes == {0: "spent", 1: "pass", 2: "pass", 3: "applied"}


def test_priority_arrival_orders_by_submission():
    state = two_swatters({"priority": "arrival"})
    submit(state, {0: play("swatter-red-1"), 3: play("swatter-blue-1")})
    assert ids(state.taken[0]) == ["fly-yellow-2a"] and ids(state.spent[3]) == ["swatter-blue-1"]
    assert state.windows[-1]["priority"][:2] == [0, 3]
    state = two_swatters({"priority": "arrival"})
    submit(state, {3: play("swatter-blue-1"), 0: play("swatter-red-1")})
    assert ids(state.taken[3]) == ["fly-yellow-2a"] and ids(state.spent[0]) == ["swatter-red-1"]


def test_swatter_and_pest_in_one_window_the_pest_goes_back():
    state = build(turn=2, trick=[[1, "fly-yellow-2a"]],
                  hands=[["swatter-red-1", "swatter-red-2"], ["swatter-yellow-1"], ["swatter-green-1", "mosquito-red-3"],
                         ["swatter-blue-1"]])
    # seat 2 (the turn seat, first in priority) plays a pest, seat 0 a swatter: swatters resolve first
    submit(state, {2: play("mosquito-red-3"), 0: play("swatter-red-1")})
    assert ids(state.taken[0]) == ["fly-yellow-2a"]  # the trick as it stood when the window opened
    assert "mosquito-red-3" in ids(state.hands[2])
    assert {p["seat"]: p["outcome"] for p in state.windows[-1]["plays"]}[2] == "returned"
    assert state.turn == 1


def test_web_and_swatter_in_one_window():
    state = build(turn=0, trick=[[1, "fly-yellow-2a"]],
                  hands=[["swatter-red-1", "fly-red-2a"], ["swatter-yellow-1"], ["swatter-green-1", "web-green-a"],
                         ["swatter-blue-1"]])
    submit(state, {2: play("web-green-a"), 3: play("swatter-blue-1"), 0: play("fly-red-2a")})
    assert ids(state.taken[3]) == ["fly-yellow-2a"]
    assert "web-green-a" in ids(state.hands[2]) and "fly-red-2a" in ids(state.hands[0])
    assert ids(state.discard) == []
    assert state.turn == 0


def test_a_web_discards_the_trick():
    state = build(turn=1, trick=[[1, "fly-yellow-2a"], [0, "bee-red"]],
                  hands=[["swatter-red-1"], ["swatter-yellow-1"], ["swatter-green-1", "web-green-a"],
                         ["swatter-blue-1", "fly-red-3"]])
    submit(state, {2: play("web-green-a")})
    assert sorted(ids(state.discard)) == ["bee-red", "fly-yellow-2a", "web-green-a"]
    assert state.trick == [] and state.turn == 3  # left of the web's player
    assert state.windows[-1]["effect"] == "web"


# ------------------------------------------------------------------------------------------ legal cards
def test_no_swatter_leads_a_trick():
    for seed in range(20):
        state = GAME.new_state(GAME.configure(4 + seed % 3, "total" if seed % 2 else "standard"), seed)
        for seat in state.to_move():
            assert all(not a.get("card", "").startswith("swatter") for a in state.legal_actions(seat))
    state = build(turn=0, hands=[["swatter-red-1"], ["swatter-yellow-1", "bee-blue"], ["swatter-green-1"],
                                 ["swatter-blue-1"]])
    assert state.legal_actions(0) == [PASS] and state.legal_actions(1) == [play("bee-blue"), PASS]


def test_no_seat_plays_twice_in_a_row():
    state = build(turn=1, trick=[[1, "fly-yellow-2a"]],
                  hands=[["swatter-red-1"], ["swatter-yellow-1", "bee-blue", "fly-green-2a", "web-red-a"],
                         ["swatter-green-1"], ["swatter-blue-1"]])
    assert state.legal_actions(1) == [PASS]  # even as the turn seat holding playable-looking cards
    assert state.legal_actions(0) == [play("swatter-red-1"), PASS]


@pytest.mark.parametrize("swatter_colour", ["strict", "free"])
def test_same_colour_cards_never_adjacent(swatter_colour):
    state = build(turn=0, options={"swatter_colour": swatter_colour}, trick=[[2, "fly-yellow-2a"]],
                  hands=[["swatter-red-1", "fly-yellow-3", "fly-red-2a", "web-yellow-a", "bee-yellow", "bee-red"],
                         ["swatter-yellow-1", "butterfly-blue"], ["swatter-green-1"], ["swatter-blue-1"]])
    assert plays_of(state, 0) == [play("fly-red-2a"), play("bee-red"), play("swatter-red-1")]
    yellow_swatter = play("swatter-yellow-1") in state.legal_actions(1)
    assert yellow_swatter == (swatter_colour == "free")
    if swatter_colour == "free":
        submit(state, {1: play("swatter-yellow-1"), 0: play("fly-red-2a")})
        assert ids(state.taken[1]) == ["fly-yellow-2a"]


def test_only_the_turn_seat_plays_a_pest_and_it_cannot_pass_with_a_legal_trick_card():
    hands = [["swatter-red-1", "fly-orange-2a"], ["swatter-yellow-1", "fly-green-2a", "bee-blue"],
             ["swatter-green-1", "fly-blue-3"], ["swatter-blue-1"]]
    state = build(turn=0, trick=[[3, "fly-yellow-2a"]], hands=hands)
    assert PASS not in state.legal_actions(0)
    assert state.default_action(0) == play("fly-orange-2a")
    assert state.legal_actions(1) == [play("bee-blue"), PASS]  # no pest out of turn
    assert state.legal_actions(2) == [play("swatter-green-1"), PASS]
    assert state.default_action(1) == PASS
    # holding only a same-colour trick card (and a swatter), the turn seat may pass
    hands[0] = ["swatter-red-1", "fly-yellow-3"]
    state = build(turn=0, trick=[[3, "fly-yellow-2a"]], hands=hands)
    assert state.legal_actions(0) == [play("swatter-red-1"), PASS]
    assert state.default_action(0) == PASS
    # on an empty trick the turn seat must lead even a web
    state = build(turn=0, hands=[["swatter-red-1", "web-red-a"], *hands[1:]])
    assert state.legal_actions(0) == [play("web-red-a")]


def turn_position():
    return build(turn=0, trick=[[3, "fly-yellow-2a"]],
                 hands=[["swatter-red-1", "fly-orange-2a", "fly-green-3"], ["swatter-yellow-1", "bee-blue"],
                        ["swatter-green-1", "web-red-a"], ["swatter-blue-1", "bee-red"]])


def test_turn_moves_only_when_the_turn_seats_card_is_applied_or_none_is():
    # the turn seat's card applied: the turn passes left
    state = turn_position()
    submit(state, {0: play("fly-orange-2a")})
    assert state.turn == 1 and state.trick[-1] == (0, CARDS["fly-orange-2a"])
    # another seat's card applied (an interruption): the turn stays
    state = build(turn=1, trick=[[0, "fly-orange-2a"]],
                  hands=[["swatter-red-1"], ["swatter-yellow-1", "fly-orange-3"], ["swatter-green-1", "bee-red"],
                         ["swatter-blue-1"]])
    submit(state, {2: play("bee-red")})
    assert state.turn == 1 and state.trick[-1] == (2, CARDS["bee-red"])
    # the turn seat's card goes back because a seat earlier in priority played: the turn stays
    state = build(turn=2, trick=[[0, "fly-orange-2a"]],
                  hands=[["swatter-red-1"], ["swatter-yellow-1", "bee-blue"], ["swatter-green-1", "fly-red-3"],
                         ["swatter-blue-1"]])
    submit(state, {2: play("fly-red-3"), 1: play("bee-blue")})  # priority 1, 2, 3, 0
    assert [s for s, _ in state.trick] == [0, 1] and "fly-red-3" in ids(state.hands[2])
    assert state.turn == 2
    # no card at all: the turn passes left
    state = build(turn=2, trick=[[0, "fly-orange-2a"]],
                  hands=[["swatter-red-1"], ["swatter-yellow-1"], ["swatter-green-1", "fly-orange-3"],
                         ["swatter-blue-1"]])
    submit(state, {})
    assert state.turn == 3 and state.idle == 1


# ------------------------------------------------------------------------------------------ round ends
def test_round_ends_when_at_most_one_seat_holds_a_swatter():
    state = build(players=3, turn=0, trick=[[2, "fly-green-2a"]], totals=[10, 20, 30],
                  hands=[["swatter-red-1", "fly-orange-2a"], ["swatter-yellow-1"], ["bee-blue"]])
    submit(state, {0: play("swatter-red-1")})
    summary = state.rounds[-1]
    assert summary["end"] == "swatters"
    assert summary["points"] == [2 - 1, 0, -1]
    assert state.totals == [11, 20, 29]
    # and the next round is dealt: dealer 1, the seat to its left leads, everyone has its swatters back
    assert (state.round, state.dealer, state.turn) == (2, 1, 2)
    assert state.swatters_left == [3, 3, 3] and state.windows == [] and not state.is_terminal()


def test_round_ends_after_n_windows_without_a_card():
    state = build(players=3, turn=0, trick=[[1, "fly-yellow-2a"]],
                  hands=[["swatter-red-1", "fly-yellow-3"], ["swatter-yellow-1", "fly-yellow-2b"],
                         ["swatter-green-1", "bee-yellow"]])
    for expected_turn in (1, 2):
        submit(state, {})
        assert state.round == 1 and state.turn == expected_turn
    submit(state, {})
    assert state.round == 2 and state.rounds[-1]["end"] == "no-play"
    assert state.rounds[-1]["points"] == [-2, -1, -1]
    assert "fly-yellow-2a" not in [c for hand in state.rounds[-1]["hands"] for c in hand]


def test_a_card_resets_the_count_of_empty_windows():
    state = build(players=3, turn=0, idle=2, trick=[[1, "fly-yellow-2a"]],
                  hands=[["swatter-red-1", "fly-yellow-3"], ["swatter-yellow-1"], ["swatter-green-1", "bee-red"]])
    submit(state, {2: play("bee-red")})
    assert state.idle == 0 and state.round == 1 and state.turn == 0


def test_game_ends_at_100_or_at_the_round_cap():
    hands = [["swatter-red-1", "fly-orange-2a"], ["swatter-yellow-1"], ["bee-blue"]]
    state = build(players=3, turn=0, trick=[[2, "mosquito-green-4a"]], totals=[97, 99, 10], hands=hands)
    submit(state, {0: play("swatter-red-1")})
    assert state.is_terminal() and state.to_move() == []
    assert state.result()["scores"] == [100, 99, 9] and state.result()["ranks"] == [1, 2, 3]
    state = build(players=3, turn=0, trick=[[2, "fly-green-2a"]], totals=[50, 51, 10], hands=hands,
                  round=3, options={"round_cap": 3})
    submit(state, {0: play("swatter-red-1")})
    assert state.is_terminal() and state.result()["ranks"] == [1, 1, 3]  # 51, 51, 9: ties share


# ------------------------------------------------------------------------------------------ Total variant
def test_total_anyone_plays_anything_nobody_is_forced():
    state = build(variant="total", turn=0,
                  hands=[["swatter-red-1", "fly-orange-2a"], ["swatter-yellow-1", "fly-green-2a"],
                         ["swatter-green-1"], ["swatter-blue-1"]])
    assert state.legal_actions(0) == [play("fly-orange-2a"), PASS]
    assert state.legal_actions(1) == [play("fly-green-2a"), PASS]
    assert state.observation(2)["turn"] is None


def test_total_first_window_priority_starts_at_the_last_winner():
    state = build(variant="total", turn=0, trick=[[1, "fly-yellow-2a"]],
                  hands=[["swatter-red-1", "fly-orange-2a"], ["swatter-yellow-1", "fly-red-2a"],
                         ["swatter-green-1", "swatter-green-2", "fly-blue-3"], ["swatter-blue-1"]])
    submit(state, {2: play("swatter-green-1")})
    assert state.turn == 2 and state.observation(0)["priority_start"] == 2
    # the next trick's first window: seats 0, 1, 2 lead pests; the winner (2) comes first in priority
    submit(state, {0: play("fly-orange-2a"), 1: play("fly-red-2a"), 2: play("fly-blue-3")})
    assert state.trick == [(2, CARDS["fly-blue-3"])]
    # later windows: from the left of the last card's player (3, 0, 1)
    submit(state, {1: play("fly-red-2a"), 0: play("fly-orange-2a")})
    assert state.trick[-1] == (0, CARDS["fly-orange-2a"])


def test_total_after_a_web_and_at_round_start():
    state = build(variant="total", turn=0, trick=[[1, "fly-yellow-2a"]],
                  hands=[["swatter-red-1", "fly-orange-2a"], ["swatter-yellow-1", "fly-red-2a"],
                         ["swatter-green-1", "web-green-a"], ["swatter-blue-1", "fly-blue-3"]])
    submit(state, {2: play("web-green-a")})
    assert state.turn == 3  # the seat left of the web's player
    submit(state, {0: play("fly-orange-2a"), 3: play("fly-blue-3")})
    assert state.trick == [(3, CARDS["fly-blue-3"])]
    fresh = GAME.new_state(GAME.configure(5, "total"), 3)
    assert fresh.observation(0)["priority_start"] == 1  # left of the dealer (seat 0)


def test_total_a_window_without_a_card_ends_the_round():
    state = build(variant="total", turn=0, trick=[[1, "fly-yellow-2a"]],
                  hands=[["swatter-red-1", "fly-orange-2a"], ["swatter-yellow-1", "fly-red-2a"],
                         ["swatter-green-1", "web-green-a"], ["swatter-blue-1", "fly-blue-3"]])
    submit(state, {})
    assert state.round == 2 and state.rounds[-1]["end"] == "no-play"
    assert state.rounds[-1]["points"] == [-1, -1, -1, -2]


# ------------------------------------------------------------------------------------------ windows in views
def test_a_resolved_window_shows_every_submission_and_pending_ones_stay_sealed():
    state = build(turn=0, trick=[[2, "fly-yellow-2a"]],
                  hands=[["swatter-red-1", "fly-orange-2a", "fly-green-3"], ["swatter-yellow-1", "bee-blue"],
                         ["swatter-green-1", "web-red-a"], ["swatter-blue-1", "bee-red"]])
    state.apply(3, play("bee-red"))
    before = json.dumps(state.observation(1), sort_keys=True)
    assert "bee-red" not in json.dumps(state.public_view())
    assert state.observation(3)["submitted"] == play("bee-red")
    assert state.observation(1)["to_move"] == [0, 1, 2, 3]  # who already submitted is not shown
    state.apply(2, PASS)
    assert json.dumps(state.observation(1), sort_keys=True) == before
    state.apply(0, play("fly-orange-2a"))
    state.apply(1, play("bee-blue"))
    window = state.public_view()["windows"][-1]
    assert window["priority"] == [3, 0, 1, 2]  # from the left of the last card's player
    shown = {p["seat"]: (p["card"] and p["card"]["id"], p["outcome"]) for p in window["plays"]}
    assert shown == {3: ("bee-red", "applied"), 0: ("fly-orange-2a", "returned"), 1: ("bee-blue", "returned"),
                     2: (None, "pass")}
    assert state.turn == 0  # an interruption: the turn stays
    assert state.observation(2)["windows"][-1] == window
    assert "hand" not in state.public_view()
    assert [c["id"] for c in state.observation(1)["hand"]] == ["bee-blue", "swatter-yellow-1"]


def containers(data, found=None) -> dict[int, object]:
    """Every dict and list inside ``data``, by identity."""
    found = {} if found is None else found
    if isinstance(data, (dict, list)):
        found[id(data)] = data
        for value in data.values() if isinstance(data, dict) else data:
            containers(value, found)
    return found


def test_fresh_views_share_nothing_with_the_read_only_renderings():
    """The read-only views share the rendered history (and the cards' JSON) from step to step; the
    views a bot is given share none of it, so changing them, however deep, corrupts no later view."""
    state = GAME.new_state(GAME.configure(4), 12)
    rng = random.Random(12)
    kept = []
    for steps in range(600):
        if state.is_terminal():
            break
        read_only = state.read_only_views()
        if steps % 25 == 0:
            kept.append((read_only, json.dumps(read_only, sort_keys=True)))
        fresh = [state.public_view(), *(state.observation(s) for s in range(4)), *state.views()[1]]
        shared = containers(fresh).keys() & containers([read_only, *(r for r, _ in kept)]).keys()
        assert not shared
        for container in containers(fresh).values():  # a bot that scribbles over its observation
            container.clear()
        step(state, rng)
    assert state.rounds, "the history rendered includes finished rounds"
    for views, snapshot in kept:
        assert json.dumps(views, sort_keys=True) == snapshot
    assert state.read_only_views() == state.views()


def test_illegal_actions_are_refused():
    state = turn_position()
    check_illegal_refused(state)
    for bad in (PASS, play("fly-green-3x"), play("swatter-yellow-1"), {"type": "play", "card": "fly-orange-2a", "x": 1}):
        with pytest.raises(IllegalActionError):
            state.apply(0, bad)
    state.apply(1, PASS)
    with pytest.raises(IllegalActionError):
        state.apply(1, PASS)  # one submission per window


# ------------------------------------------------------------------------------------------ whole games
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_random_games_end_validly(players):
    check_random_games(GAME, GAME.configure(players), 300, seed=players)


@pytest.mark.parametrize("players", [3, 6])
@pytest.mark.parametrize("options", [{"deck": "original", "priority": "arrival"}, {"swatter_colour": "free"}])
def test_random_games_other_options_and_total(players, options):
    check_random_games(GAME, GAME.configure(players, "total", options), 40, seed=players)
    check_random_games(GAME, GAME.configure(players, "standard", options), 40, seed=players + 10)


@pytest.mark.parametrize("variant", ["standard", "total"])
@pytest.mark.parametrize("policy", [default_policy, first_policy], ids=["pass-when-allowed", "first-action"])
def test_termination(variant, policy):
    for players in (3, 4, 5, 6):
        results = check_random_games(GAME, GAME.configure(players, variant), 3, policy=policy)
        assert all(len(r["round_points"]) <= 20 for r in results)


def test_tricks_alternate_colours_and_seats_in_random_play():
    """Over whole random games, no trick ever holds two same-colour cards or one seat's cards in a row."""
    for seed in range(30):
        state = GAME.new_state(GAME.configure(3 + seed % 4, "total" if seed % 2 else "standard"), seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            for seat in state.to_move():
                state.apply(seat, rng.choice(state.legal_actions(seat)))
            for (s1, c1), (s2, c2) in zip(state.trick, state.trick[1:]):
                assert s1 != s2 and c1.colour != c2.colour


@pytest.mark.parametrize("variant,options", [("standard", {}), ("total", {"priority": "arrival"})])
def test_determinism_and_positions_round_trip(variant, options):
    config = GAME.configure(4, variant, dict(options, round_cap=2))
    check_replayable(GAME, config, 21)
    a, b = GAME.new_state(config, 8), GAME.new_state(config, 8)
    play_out(a, random.Random(1), random_policy)
    play_out(b, random.Random(1), random_policy)
    assert a.to_position() == b.to_position()


def test_greedy_bot_plays_legally_and_beats_random_bots():
    from bots_sdk import Decision, RandomBot
    from bots_sdk.greedy import GreedyBot

    config = GAME.configure(4, options={"round_cap": 5})
    wins = 0
    for game in range(8):
        state = GAME.new_state(config, 500 + game)
        greedy = game % 4
        bots = [GreedyBot() if s == greedy else RandomBot() for s in range(4)]
        for seat, bot in enumerate(bots):
            bot.start("bszzzz", seat, config.options, game * 10 + seat)
        while not state.is_terminal():
            for seat in state.to_move():
                legal = state.legal_actions(seat)
                decision = Decision(game="bszzzz", variant="standard", seat=seat, players=4,
                                    options=config.options, legal_actions=[dict(a) for a in legal],
                                    _observe=lambda seat=seat: state.observation(seat))  # noqa: B023 - read inside decide(), before the loop moves on
                action = bots[seat].decide(decision)
                assert action in legal
                state.apply(seat, action)
        wins += state.result()["ranks"][greedy] == 1
    assert wins >= 6


@pytest.mark.soak
@pytest.mark.parametrize("variant", ["standard", "total"])
def test_soak_random_games(variant):
    for players in (3, 4, 5, 6):
        check_random_games(GAME, GAME.configure(players, variant), 2500, seed=1000 + players)
