"""Tricky Twist: rules tests from the rulebook's examples, the vector file and hand-built positions."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine_contract import (
    check_illegal_refused,
    check_pending_hidden,
    check_random_games,
    check_replayable,
    play_out,
    seat_view,
)
from referee.games import ConfigError, IllegalActionError, PositionError, get_game
from referee.games.tricky_twist.data import BONUS_IDS, CARD_IDS
from referee.games.tricky_twist.engine import (
    GAME,
    base_stars,
    longest_run,
    scoring_card_stars,
)

# the rules vectors (tests/data/vectors/README.md)
VECTORS = Path(__file__).resolve().parents[1] / "data" / "vectors" / "tricky-twist-scoring.json"


# ---------------------------------------------------------------------- hand-built positions
def build(n: int, *, hands: list[list[str]], rest_to: int | None = 0, options: dict | None = None,
          seed: int = 1, **state):
    """A position from the parts a test names; every card not placed goes to seat ``rest_to``'s
    hand (cards left in hand score nothing)."""
    data = {
        "round": 0, "first": 0, "phase": "play", "scoring_card": "even_values",
        "hands": [list(h) for h in hands], "reserves": [[] for _ in range(n)],
        "reserve_step": 0, "picks": [None] * n, "leader": 0, "turn": 0, "draw_offered": n,
        "draws": [], "trick": [], "tricks": [[] for _ in range(n)],
        "false_tricks": [[] for _ in range(n)], "bonus_available": list(BONUS_IDS),
        "bonus_held": [[] for _ in range(n)], "bonus_spent": [], "bonus_queue": [],
        "known_in_hand": [[] for _ in range(n)], "log": [], "batch": [],
        "choices": [[] for _ in range(n)], "history": [], "totals": [0] * n,
    }
    data.update(state)
    placed = {c for h in data["hands"] for c in h} | {c for r in data["reserves"] for c in r}
    placed |= {c for _, c in data["trick"]} | {c for f in data["false_tricks"] for c in f}
    placed |= {c for piles in data["tricks"] for p in piles for c in p}
    if rest_to is not None:
        data["hands"][rest_to] += [c for c in CARD_IDS if c not in placed]
    position = {"game": "tricky-twist", "variant": "standard", "players": n,
                "options": options or {}, "seats": [{} for _ in range(n)], "seed": seed,
                "state": data}
    return GAME.from_position(json.loads(json.dumps(position)))


def act(state, seat, **action):
    state.apply(seat, action)


def scoring_position(card: str, tricks: list[int], false_tricks: list[list], options=None):
    """A last-round position one card before the end whose final piles are ``tricks`` (counts) and
    ``false_tricks`` (``[value, family]`` per seat). The last trick is all one family, led and won
    by the first seat that holds a trick; its last player then holds no card, so the round ends.
    No Bonus card is available, so nothing else is asked."""
    n = len(tricks)
    ft_ids = [[f"{f}-{v}" for v, f in seat] for seat in false_tricks]
    used = {c for seat in ft_ids for c in seat}
    assert len(used) == sum(map(len, ft_ids)), "a vector names a card twice"
    leader = next(s for s in range(n) if tricks[s] > 0)
    free = [c for c in CARD_IDS if c not in used]
    family = next(f for f in ("moon", "sun", "rain", "smile")
                  if sum(c.startswith(f + "-") for c in free) >= n)
    last = sorted((c for c in free if c.startswith(family + "-")),
                  key=lambda c: -int(c.split("-")[1]))[:n]  # the leader's is the highest
    free = [c for c in free if c not in last]
    seats = [(leader + i) % n for i in range(n)]
    piles = [[] for _ in range(n)]
    for s in range(n):
        for _ in range(tricks[s] - (s == leader)):
            piles[s].append([free.pop()])
    hands = [[] for _ in range(n)]
    hands[seats[-1]] = [last[-1]]
    hands[seats[0]] = free  # cards left in hand score nothing
    return build(
        n, hands=hands, rest_to=None, options=options, round=n - 1, first=(n - 1) % n,
        scoring_card=card, leader=leader, turn=seats[-1],
        trick=[[s, c] for s, c in zip(seats[:-1], last[:-1])],
        tricks=piles, false_tricks=ft_ids, bonus_available=[],
    )


def finish_last_card(state):
    seat = state.to_move()[0]
    (only,) = state.legal_actions(seat)
    state.apply(seat, only)
    assert state.is_terminal()
    return state.result()["rounds"][-1]


# ---------------------------------------------------------------------- set-up and deal
def test_registry_and_config():
    assert get_game("tricky-twist") is GAME
    assert GAME.configure(3).options == {"end_check": "after_trick"}
    assert GAME.configure(4, options={"end_check": "after_draw"}).options["end_check"] == "after_draw"
    for players in (2, 5):
        with pytest.raises(ConfigError):
            GAME.configure(players)
    with pytest.raises(ConfigError, match="after_trick, after_draw"):
        GAME.configure(3, options={"end_check": "never"})


@pytest.mark.parametrize("players,size", [(3, 16), (4, 12)])
def test_deal_all_48_cards(players, size):
    state = GAME.new_state(GAME.configure(players), 11)
    hands = state.position_state()["hands"]
    assert [len(h) for h in hands] == [size] * players
    assert sorted(c for h in hands for c in h) == sorted(CARD_IDS)
    assert state.to_move() == list(range(players))  # the reserve picks, all at once
    again = GAME.new_state(GAME.configure(players), 11)
    assert again.position_state()["hands"] == hands
    assert GAME.new_state(GAME.configure(players), 12).position_state()["hands"] != hands


def test_deal_of_a_round_does_not_depend_on_play():
    """Round 2's deal is the same whatever happened in round 1 (duplicate play)."""
    config = GAME.configure(3)
    deals = set()
    for policy_seed in (1, 2):
        state = GAME.new_state(config, 99)
        rng = random.Random(policy_seed)
        while state.round == 0:
            seat = state.to_move()[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))
        deals.add(json.dumps(state.position_state()["hands"]))
        assert state.first == 1  # the first player moves one seat left
    assert len(deals) == 1


def test_reserve_picks_are_simultaneous_sealed_then_shuffled():
    config = GAME.configure(4)
    state = GAME.new_state(config, 5)
    hands = [list(h) for h in state.position_state()["hands"]]
    chosen = [hands[s][:5] for s in range(4)]
    for k in range(5):
        assert state.to_move() == [0, 1, 2, 3]
        before = {s: seat_view(state, s) for s in (1, 2, 3)}
        act(state, 0, type="reserve", card=chosen[0][k])
        # seat 0's pick changes nothing the others receive, and it is asked no more this step
        assert {s: seat_view(state, s) for s in (1, 2, 3)} == before
        assert state.to_move() == [1, 2, 3]
        with pytest.raises(IllegalActionError):
            act(state, 0, type="reserve", card=chosen[0][(k + 1) % 5])
        for s in (3, 1, 2):
            act(state, s, type="reserve", card=chosen[s][k])
    position = state.position_state()
    for s in range(4):
        assert sorted(position["reserves"][s]) == sorted(chosen[s])
        assert len(position["hands"][s]) == 7
        obs = state.observation(s)
        assert [c["id"] for c in obs["reserve"]] == sorted(chosen[s], key=CARD_IDS.index)
        assert obs["reserve_counts"] == [5, 5, 5, 5]
    # the reserves are shuffled: over seats and seeds, not every reserve keeps the pick order
    assert any(position["reserves"][s] != chosen[s] for s in range(4))
    assert state.phase == "draw" and state.to_move() == [0]


# ---------------------------------------------------------------------- tricks
def test_rulebook_trick_example():
    """Tanguy leads the 7, Elsa follows with the 9, Sam cannot follow and plays a 2 of another
    family, Lucas follows with the 2: Elsa takes the three led-family cards as one trick, Sam
    takes her 2 back as a false trick, Elsa's trick holds a 7 so she may take a Bonus card."""
    tanguy, elsa, sam, lucas = 0, 1, 2, 3
    state = build(4, hands=[["moon-7", "sun-5"], ["moon-9", "rain-1"], ["sun-2", "rain-3"],
                            ["moon-2", "smile-4"]], rest_to=tanguy)
    act(state, tanguy, type="play", card="moon-7")
    assert state.legal_actions(elsa) == [{"type": "play", "card": "moon-9"}]
    act(state, elsa, type="play", card="moon-9")
    assert {a["card"] for a in state.legal_actions(sam)} == {"sun-2", "rain-3"}
    act(state, sam, type="play", card="sun-2")
    # Lucas must still follow Tanguy's family, whatever Sam did
    assert state.legal_actions(lucas) == [{"type": "play", "card": "moon-2"}]
    act(state, lucas, type="play", card="moon-2")
    pos = state.position_state()
    assert [sorted(p) for p in pos["tricks"][elsa]] == [sorted(["moon-7", "moon-9", "moon-2"])]
    assert pos["false_tricks"] == [[], [], ["sun-2"], []]
    assert pos["tricks"][tanguy] == pos["tricks"][sam] == pos["tricks"][lucas] == []
    assert state.phase == "bonus" and state.to_move() == [elsa]
    assert {"type": "take_bonus", "bonus": "flip"} in state.legal_actions(elsa)
    assert state.observation(sam)["false_tricks"][sam][0]["id"] == "sun-2"


def test_leader_alone_in_its_family_takes_its_own_card():
    state = build(3, hands=[["moon-3", "sun-5"], ["rain-1", "rain-2"], ["sun-2", "sun-4"]],
                  rest_to=0)
    act(state, 0, type="play", card="moon-3")
    act(state, 1, type="play", card="rain-1")
    act(state, 2, type="play", card="sun-2")
    pos = state.position_state()
    assert pos["tricks"][0] == [["moon-3"]]
    assert pos["false_tricks"] == [[], ["rain-1"], ["sun-2"]]
    assert state.phase == "play" and state.to_move() == [0]  # the winner leads


def test_follow_rule():
    state = build(3, hands=[["sun-5", "moon-1"], ["sun-1", "sun-9", "moon-4", "rain-2"],
                            ["rain-8", "smile-1"]], rest_to=0, leader=2, turn=2)
    act(state, 2, type="play", card="rain-8")
    # seat 0 has no rain (its hand has the leftovers, which include rain cards: check it)
    hand0 = state.position_state()["hands"][0]
    rain0 = [c for c in hand0 if c.startswith("rain-")]
    assert {a["card"] for a in state.legal_actions(0)} == set(rain0)
    act(state, 0, type="play", card=rain0[0])
    assert state.legal_actions(1) == [{"type": "play", "card": "rain-2"}]
    with pytest.raises(IllegalActionError):
        act(state, 1, type="play", card="sun-9")


def test_void_seat_may_play_any_card():
    no_moon = [c for c in CARD_IDS if not c.startswith("moon-") and c not in ("sun-5", "sun-1", "sun-9")]
    state = build(3, hands=[["sun-5", "moon-1"], ["sun-1", "sun-9", "moon-4"], no_moon],
                  rest_to=0, leader=0, turn=0)
    act(state, 0, type="play", card="moon-1")
    act(state, 1, type="play", card="moon-4")
    hand2 = state.position_state()["hands"][2]
    assert {a["card"] for a in state.legal_actions(2)} == set(hand2)


def test_reserve_draw_refused_and_accepted_from_the_leader_clockwise():
    state = build(3, hands=[["moon-1", "moon-2"], ["sun-1", "sun-2"], ["rain-1", "rain-2"]],
                  rest_to=0, phase="draw", leader=1, turn=2, draw_offered=1,
                  reserves=[["smile-5", "smile-6"], [], ["smile-1", "smile-12"]])
    # seat 1 leads but has no reserve (it was passed over): seat 2 is asked, then seat 0
    assert state.to_move() == [2]
    assert state.legal_actions(2) == [{"type": "draw"}, {"type": "no_draw"}]
    assert state.default_action(2) == {"type": "no_draw"}
    assert state.action_label(2, {"type": "draw"}) == "draw your reserve's top card"
    act(state, 2, type="draw")
    pos = state.position_state()
    assert "smile-1" in pos["hands"][2] and pos["reserves"][2] == ["smile-12"]
    assert state.to_move() == [0]
    hand0 = list(pos["hands"][0])
    act(state, 0, type="no_draw")
    pos = state.position_state()
    assert pos["hands"][0] == hand0 and pos["reserves"][0] == ["smile-5", "smile-6"]
    assert state.phase == "play" and state.to_move() == [1]
    # the others see that seat 2 drew, not what
    obs0 = state.observation(0)
    assert obs0["draws"] == [2] and obs0["reserve_counts"] == [2, 0, 1]
    assert '"smile-1"' not in json.dumps(obs0)


# ---------------------------------------------------------------------- 7s and Bonus cards
def test_several_sevens_choose_clockwise_from_the_winner():
    # 0 leads sun-7, 1 cannot follow (moon-7), 2 wins with sun-10, 3 cannot follow (rain-7)
    # the leftover cards go to seat 1, which has no sun (it holds every moon, smile and rain left)
    rest = [c for c in CARD_IDS if not c.startswith("sun-") and c not in ("rain-7", "rain-1")]
    state = build(4, hands=[["sun-7", "sun-1", "sun-3"], rest, ["sun-10", "sun-2"],
                            ["rain-7", "rain-1"]], rest_to=0)
    for seat, card in ((0, "sun-7"), (1, "moon-7"), (2, "sun-10"), (3, "rain-7")):
        act(state, seat, type="play", card=card)
    order = []
    for bonus in ("flip", "var_1", "wild_pile"):
        (seat,) = state.to_move()
        order.append(seat)
        assert state.phase == "bonus"
        act(state, seat, type="take_bonus", bonus=bonus)
    assert order == [2, 3, 1]
    pos = state.position_state()
    assert pos["bonus_held"] == [[], ["wild_pile"], ["flip"], ["var_1"]]
    assert "flip" not in pos["bonus_available"]
    assert state.phase == "draw" or state.phase == "play"


def test_no_bonus_prompt_once_every_bonus_card_is_taken():
    state = build(3, hands=[["sun-7", "sun-1"], ["sun-2", "moon-1"], ["sun-3", "rain-1"]],
                  rest_to=0, bonus_available=[], bonus_held=[list(BONUS_IDS[:4]), list(BONUS_IDS[4:]), []])
    for seat, card in ((0, "sun-7"), (1, "sun-2"), (2, "sun-3")):
        act(state, seat, type="play", card=card)
    assert state.phase == "play" and state.to_move() == [0]


def take_back_position(options=None):
    """Seat 1 plays its last card, a 7 it cannot follow with: it recovers the 7 as a false
    trick and, with take_back, may return it to its empty hand."""
    return build(3, hands=[["sun-5", "sun-1"], ["moon-7"], ["sun-3", "rain-1"]],
                 rest_to=0, options=options, false_tricks=[[], ["rain-4"], []])


def test_take_back_into_an_empty_hand_and_the_round_goes_on():
    state = take_back_position()
    act(state, 0, type="play", card="sun-5")
    act(state, 1, type="play", card="moon-7")
    act(state, 2, type="play", card="sun-3")
    assert state.to_move() == [1] and state.phase == "bonus"
    act(state, 1, type="take_bonus", bonus="take_back")
    assert state.phase == "take_back"
    assert state.legal_actions(1) == [{"type": "take_back", "card": "rain-4"},
                                      {"type": "take_back", "card": "moon-7"},
                                      {"type": "no_take_back"}]
    act(state, 1, type="take_back", card="moon-7")
    pos = state.position_state()
    assert pos["hands"][1] == ["moon-7"] and pos["false_tricks"][1] == ["rain-4"]
    assert "take_back" not in pos["bonus_available"] and pos["bonus_spent"] == ["take_back"]
    assert all("take_back" not in held for held in pos["bonus_held"])
    # the round goes on: seat 1's hand is not empty after the trick (Bonus choices included)
    assert state.round == 0 and state.phase == "play" and state.to_move() == [0]
    # everyone knows the 7 is back in seat 1's hand
    assert state.observation(2)["known_in_hand"][1][0]["id"] == "moon-7"
    assert state.observation(2)["hand_counts"][1] == 1


def test_take_back_unused_is_spent_and_the_round_ends():
    state = take_back_position()
    for seat, card in ((0, "sun-5"), (1, "moon-7"), (2, "sun-3")):
        act(state, seat, type="play", card=card)
    act(state, 1, type="take_bonus", bonus="take_back")
    assert state.default_action(1) == {"type": "no_take_back"}
    act(state, 1, type="no_take_back")
    # seat 1's hand is empty after the trick: round 1 is over, round 2 starts with the picks
    assert state.round == 1 and state.phase == "reserve"
    summary = state.result()["rounds"][0]
    assert summary["tricks"][1] == 0 and len(summary["false_tricks"][1]) == 2


def end_position(end_check):
    """After this trick seat 2's hand is empty while its reserve still holds two cards."""
    return build(3, hands=[["sun-5", "sun-1"], ["sun-2", "moon-1"], ["sun-3"]], rest_to=0,
                 options={"end_check": end_check}, reserves=[[], [], ["smile-1", "smile-2"]])


def play_end_trick(state):
    for seat, card in ((0, "sun-5"), (1, "sun-2"), (2, "sun-3")):
        act(state, seat, type="play", card=card)


def test_end_check_after_trick_ends_with_reserve_cards_left():
    state = end_position("after_trick")
    play_end_trick(state)
    assert state.round == 1 and state.phase == "reserve"
    assert state.result()["rounds"][0]["tricks"] == [1, 0, 0]


def test_end_check_after_draw_lets_the_empty_hand_draw_and_play_on():
    state = end_position("after_draw")
    play_end_trick(state)
    assert state.round == 0 and state.phase == "draw" and state.to_move() == [2]
    act(state, 2, type="draw")
    assert state.phase == "play" and state.position_state()["hands"][2] == ["smile-1"]


def test_end_check_after_draw_ends_when_the_empty_hand_does_not_draw():
    state = end_position("after_draw")
    play_end_trick(state)
    act(state, 2, type="no_draw")
    assert state.round == 1 and state.phase == "reserve"


def round_end_position(card, tricks, false_tricks, held, n=3, rest_to=0):
    """The last round, just before its last card, so a round-end phase follows."""
    hands = [[] for _ in range(n)]
    hands[2] = ["sun-12"]
    return build(n, hands=hands, rest_to=rest_to, round=n - 1, first=(n - 1) % n,
                 scoring_card=card, leader=0, turn=2,
                 trick=[[0, "sun-11"], [1, "sun-10"]], tricks=tricks,
                 false_tricks=false_tricks, bonus_available=[], bonus_held=held)


def play_round_end(state, choices):
    act(state, 2, type="play", card="sun-12")
    assert state.phase == "round_end"
    for seat, actions in choices.items():
        for action in actions:
            assert action in state.legal_actions(seat), (action, state.legal_actions(seat))
            state.apply(seat, action)
    assert state.is_terminal()
    return state.result()["rounds"][-1]


def test_round_end_choices_are_sealed_and_revealed_together():
    # seat 1 holds flip (one step), seat 0 holds wild_pile and var_1 (two steps)
    state = round_end_position("most_false_tricks", [[["moon-1"]], [["moon-2"], ["moon-3"]], []],
                               [["rain-1"], ["rain-2"], []], [["wild_pile", "var_1"], ["flip"], []])
    act(state, 2, type="play", card="sun-12")
    assert state.phase == "round_end" and state.to_move() == [0, 1]
    assert check_pending_hidden(state.clone(), random.Random(1)) is None
    before = seat_view(state, 0)
    act(state, 1, type="flip", card="moon-2", to="false_trick")
    assert seat_view(state, 0) == before  # seat 0 cannot see seat 1's choice
    assert state.to_move() == [0]
    act(state, 0, type="wild_pile", status="false_trick")
    assert state.to_move() == [0]
    assert state.observation(0)["my_choices"] == [{"type": "wild_pile", "status": "false_trick"}]
    act(state, 0, type="variable", bonus="var_1", family="moon")
    summary = state.result()["rounds"][-1]
    assert summary["choices"][1] == [{"type": "flip", "card": "moon-2", "to": "false_trick"}]


def test_flip_changes_the_most_false_tricks_ranking():
    tricks = [[["moon-1"], ["moon-2"]], [["moon-3"], ["moon-4"]], [["rain-5"], ["rain-6"]]]
    falses = [["rain-1", "rain-2"], ["rain-3"], ["smile-1"]]
    # without the flip: 2, 1, 1 false tricks -> 12, 7, 7
    plain = play_round_end(round_end_position("most_false_tricks", tricks, falses, [[], ["flip"], []]),
                           {1: [{"type": "decline", "bonus": "flip"}]})
    assert plain["card_stars"] == [12, 7, 7]
    # seat 1 flips a trick: 2, 2, 1 -> 12, 12, 3; it now holds 1 trick and 2 false tricks
    flipped = play_round_end(round_end_position("most_false_tricks", tricks, falses,
                                                [[], ["flip"], []]),
                             {1: [{"type": "flip", "card": "moon-3", "to": "false_trick"}]})
    assert flipped["card_stars"] == [12, 12, 3]
    assert flipped["tricks"][1] == 1 and len(flipped["false_tricks"][1]) == 2
    assert flipped["base"][1] == base_stars(1, 2) == 4


def test_flip_a_multi_card_trick_counts_only_the_chosen_top_card():
    tricks = [[["moon-1"]], [["smile-3", "smile-4", "smile-9"]], [["rain-5"]]]
    falses = [["rain-1"], [], ["smile-1"]]
    for top, evens in (("smile-4", 1), ("smile-9", 0)):
        summary = play_round_end(round_end_position("even_values", tricks, falses,
                                                    [[], ["flip"], []]),
                                 {1: [{"type": "flip", "card": top, "to": "false_trick"}]})
        assert summary["tricks"][1] == 0 and [f["id"] for f in summary["false_tricks"][1]] == [top]
        assert summary["card_stars"][1] == evens


def test_flip_a_false_trick_into_a_trick_changes_the_fewest_ranking():
    tricks = [[["moon-1"]], [["moon-3"]], [["rain-5"]]]
    falses = [["rain-1"], ["rain-3", "rain-4"], ["smile-1"]]
    summary = play_round_end(round_end_position("fewest_false_tricks", tricks, falses,
                                                [[], ["flip"], []]),
                             {1: [{"type": "flip", "card": "rain-4", "to": "trick"}]})
    # 1, 1, 1 false tricks (seat 2 takes the last, sun trick): all three tie first
    assert summary["card_stars"] == [12, 12, 12]
    assert summary["tricks"][1] == 2 and summary["base"][1] == base_stars(2, 1)


def test_wild_pile_as_trick_or_false_trick_counts_in_pairs_and_ranking():
    tricks = [[["moon-1"]], [["moon-3"]], [["rain-5"]]]
    falses = [["rain-1"], [], ["smile-1"]]
    as_false = play_round_end(round_end_position("fewest_false_tricks", tricks, falses,
                                                 [[], ["wild_pile"], []]),
                              {1: [{"type": "wild_pile", "status": "false_trick"}]})
    # seat 1: 1 trick and 1 false trick (the wild pile); everyone holds one false trick
    assert as_false["base"][1] == base_stars(1, 1) == 6
    assert as_false["card_stars"] == [12, 12, 12]
    as_trick = play_round_end(round_end_position("fewest_false_tricks", tricks, falses,
                                                 [[], ["wild_pile"], []]),
                              {1: [{"type": "wild_pile", "status": "trick"}]})
    assert as_trick["tricks"][1] == 2 and as_trick["base"][1] == 2
    assert as_trick["card_stars"] == [7, 12, 7]


def test_trick_premium_adds_a_star_per_trick():
    tricks = [[["moon-1"]], [["moon-3"], ["moon-4", "moon-5"], ["rain-7"]], [["rain-5"]]]
    falses = [["rain-1"], [], ["smile-1"]]
    state = round_end_position("even_values", tricks, falses, [[], ["trick_premium"], []])
    act(state, 2, type="play", card="sun-12")
    assert state.is_terminal()  # trick_premium asks nothing
    summary = state.result()["rounds"][-1]
    assert summary["premium"] == [0, 3, 0]
    assert summary["stars"][1] == base_stars(3, 0) + 3 + 0


def test_unframed_variable_faces_choose_a_family_and_count_everywhere():
    tricks = [[["moon-1"]], [["moon-3"]], [["rain-5"]]]
    falses = [["rain-1"], ["sun-2"], ["smile-1"]]
    state = round_end_position("families_moon_sun", tricks, falses,
                               [[], ["var_1", "var_2", "var_3", "var_4"], []])
    act(state, 2, type="play", card="sun-12")
    assert state.legal_actions(1) == [{"type": "decline", "bonus": "var_1"},
                                      {"type": "variable", "bonus": "var_1", "family": "moon"},
                                      {"type": "variable", "bonus": "var_1", "family": "sun"}]
    for action in ({"type": "variable", "bonus": "var_1", "family": "sun"},
                   {"type": "decline", "bonus": "var_2"},
                   {"type": "variable", "bonus": "var_3", "family": "moon"},
                   {"type": "variable", "bonus": "var_4", "family": "sun"}):
        state.apply(1, action)
    summary = state.result()["rounds"][-1]
    # seat 1: sun-2, sun (var_1), moon (var_3), sun (var_4): 3 sun -> 5 stars; 4 false tricks
    assert summary["card_stars"][1] == 5
    assert summary["base"][1] == base_stars(1, 4) == 4


def test_framed_variable_faces_choose_a_value():
    tricks = [[["moon-1"]], [["moon-3"]], [["rain-5"]]]
    falses = [["rain-1"], ["sun-2"], ["smile-1"]]
    state = round_end_position("odd_values", tricks, falses,
                               [[], ["var_1", "var_2", "var_3"], []])
    act(state, 2, type="play", card="sun-12")
    values = {a.get("value") for a in state.legal_actions(1)} - {None}
    assert values == {1, 3, 5, 7, 9, 11}
    state.apply(1, {"type": "variable", "bonus": "var_1", "value": 7})  # a 7: no Bonus card
    assert {a.get("value") for a in state.legal_actions(1)} - {None} == {2, 4, 6, 8, 10, 12}
    state.apply(1, {"type": "variable", "bonus": "var_2", "value": 4})
    assert {a.get("value") for a in state.legal_actions(1)} - {None} == set(range(1, 13))
    state.apply(1, {"type": "variable", "bonus": "var_3", "value": 11})
    summary = state.result()["rounds"][-1]
    assert summary["card_stars"][1] == 2  # odd: 7 and 11
    assert summary["base"][1] == base_stars(1, 4)


def test_var_4_adjusts_one_false_trick_within_1_to_12():
    tricks = [[["moon-1"]], [["moon-3"]], [["rain-5"]]]
    falses = [["rain-1"], ["sun-1", "moon-12", "smile-7"], ["smile-1"]]
    state = round_end_position("even_values", tricks, falses, [[], ["var_4"], []])
    act(state, 2, type="play", card="sun-12")
    adjust = [(a["target"], a["delta"]) for a in state.legal_actions(1) if a["type"] == "adjust"]
    assert sorted(adjust) == [("moon-12", -1), ("smile-7", -1), ("smile-7", 1), ("sun-1", 1)]
    state.apply(1, {"type": "adjust", "target": "smile-7", "delta": 1})
    summary = state.result()["rounds"][-1]
    assert summary["card_stars"][1] == 2  # 12 and 8 are even
    assert [f["value"] for f in summary["false_tricks"][1]] == [1, 12, 8]


def test_var_4_sees_its_seats_earlier_choices():
    tricks = [[["moon-1"]], [["moon-3", "moon-5"]], [["rain-5"]]]
    state = round_end_position("longest_run", tricks, [[], [], []], [[], ["flip", "var_3", "var_4"], []])
    act(state, 2, type="play", card="sun-12")
    state.apply(1, {"type": "flip", "card": "moon-5", "to": "false_trick"})
    state.apply(1, {"type": "variable", "bonus": "var_3", "value": 7})
    targets = {a["target"] for a in state.legal_actions(1) if a["type"] == "adjust"}
    assert targets == {"moon-5", "var_3"}
    state.apply(1, {"type": "adjust", "target": "var_3", "delta": -1})
    summary = state.result()["rounds"][-1]
    assert summary["card_stars"][1] == 2  # the run 5-6


def test_variable_faces_match_the_scoring_card():
    config = GAME.configure(3)
    framed_seen = set()
    for seed in range(40):
        state = GAME.new_state(config, seed)
        face = state.observation(0)["bonus"]["face"]
        framed = state.observation(0)["scoring_card"]["framed"]
        assert face == ("framed" if framed else "unframed")
        framed_seen.add(framed)
    assert framed_seen == {True, False}


# ---------------------------------------------------------------------- scoring
def test_rulebook_base_scores_9_12_24():
    assert base_stars(6, 1) == 9    # Tanguy: 6 tricks, 1 false trick
    assert base_stars(3, 4) == 12   # Elsa: 3 tricks, 4 false tricks
    assert base_stars(4, 4) == 24   # Sam: 4 and 4
    # and through the engine, at the end of a round
    state = scoring_position("even_values", [6, 3, 4],
                             [[[1, "moon"]], [[3, "sun"], [5, "sun"], [9, "rain"], [11, "rain"]],
                              [[1, "sun"], [3, "rain"], [5, "moon"], [9, "moon"]]])
    assert finish_last_card(state)["base"] == [9, 12, 24]


def test_rulebook_run_6_7_8():
    """7♣, 3♦, 6♣, 2★ and 8♦: the longest run is 6-7-8 (3 cards, 4 stars)."""
    assert longest_run([7, 3, 6, 2, 8]) == 3
    falses = [[7, "moon"], [3, "sun"], [6, "moon"], [2, "rain"], [8, "sun"]]
    assert scoring_card_stars("longest_run", [falses, [], []]) == [4, 0, 0]
    state = scoring_position("longest_run", [2, 1, 1], [falses, [], []])
    assert finish_last_card(state)["card_stars"] == [4, 0, 0]


def test_rulebook_scoring_card_examples():
    cards = [[7, "moon"], [3, "sun"], [6, "moon"], [2, "rain"]]
    assert scoring_card_stars("most_common_family", [cards + [[9, "moon"]]])[0] == 3
    assert scoring_card_stars("family_count", [cards + [[7, "sun"]]])[0] == 6
    assert scoring_card_stars("even_values", [cards + [[7, "sun"]]])[0] == 2
    assert scoring_card_stars("odd_values", [cards + [[7, "sun"]]])[0] == 4


def test_ranking_ties_take_the_rank_and_the_next_skips():
    assert scoring_card_stars("fewest_false_tricks", [[1] * 2, [1], [1], []]) == [0, 7, 7, 12]
    assert scoring_card_stars("most_false_tricks", [[1] * 3, [1], [1] * 2, [1] * 3]) == [12, 0, 3, 12]
    assert scoring_card_stars("most_false_tricks", [[], [1], [1]]) == [0, 12, 12]


def load_vectors():
    return json.loads(VECTORS.read_text())


@pytest.mark.parametrize("case", load_vectors(), ids=lambda c: c["scoring_card"])
def test_vector_through_the_engine(case):
    state = scoring_position(case["scoring_card"], case["tricks"], case["false_tricks"])
    summary = finish_last_card(state)
    assert summary["tricks"] == case["tricks"]
    assert summary["base"] == case["base"]
    assert summary["card_stars"] == case["scoring_card_stars"]
    assert summary["stars"] == [b + c for b, c in zip(case["base"], case["scoring_card_stars"])]
    # the pure functions agree with the engine
    pairs = [[tuple(f) for f in seat] for seat in case["false_tricks"]]
    assert scoring_card_stars(case["scoring_card"], pairs) == case["scoring_card_stars"]


# ---------------------------------------------------------------------- the whole game
def test_rounds_as_many_as_players_first_player_moves_left():
    for players in (3, 4):
        state = play_out(GAME.new_state(GAME.configure(players), 3), random.Random(3))
        rounds = state.result()["rounds"]
        assert [r["first_player"] for r in rounds] == list(range(players))
        assert len({r["scoring_card"] for r in rounds}) == players
        assert state.result()["scores"] == [sum(r["stars"][s] for r in rounds) for s in range(players)]


def test_shared_win():
    state = scoring_position("even_values", [1, 1, 1], [[], [], []])
    finish_last_card(state)
    assert state.result()["scores"] == [1, 1, 1] and state.result()["ranks"] == [1, 1, 1]
    state = scoring_position("even_values", [2, 2, 1], [[], [], []])
    finish_last_card(state)
    assert state.result()["ranks"] == [1, 1, 3]


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("end_check", ["after_trick", "after_draw"])
def test_random_games_end_validly(players, end_check):
    config = GAME.configure(players, options={"end_check": end_check})
    results = check_random_games(GAME, config, 250, seed=players)
    assert all(len(r["rounds"]) == players for r in results)


@pytest.mark.soak
@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("end_check", ["after_trick", "after_draw"])
def test_soak_random_games(players, end_check):
    config = GAME.configure(players, options={"end_check": end_check})
    check_random_games(GAME, config, 5_000, seed=100 + players)


def test_replayable_and_illegal_refused():
    for players in (3, 4):
        config = GAME.configure(players)
        check_replayable(GAME, config, 17 + players)
        check_illegal_refused(GAME.new_state(config, 1))


def test_bad_positions_refused():
    state = GAME.new_state(GAME.configure(3), 1)
    position = state.to_position()
    position["state"]["hands"][0] = position["state"]["hands"][0][1:]
    with pytest.raises(PositionError):
        GAME.from_position(position)
    position = state.to_position()
    position["state"]["phase"] = "dancing"
    with pytest.raises(PositionError):
        GAME.from_position(position)
