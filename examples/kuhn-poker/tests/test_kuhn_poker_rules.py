"""Kuhn poker's rules from hand-built positions, and the known facts of the game: the value of a
hand under Kuhn's equilibria is -1/18 for the first seat, for every alpha in [0, 1/3], and no
strategy of the first seat does better against the equilibrium's second seat. Every expected
number is worked out from the rules (rules.md) or the literature, never from the engine."""
from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest
from engine_contract import (
    check_hiding_at,
    check_illegal_refused,
    check_public_labels_at,
    check_random_games,
    check_replayable,
    play_out,
)

from parlour_kuhn_poker.engine import GAME
from referee.games import IllegalActionError, PositionError

CARDS = ("jack", "queen", "king")


def position(cards, history=(), hand=1, hands=1, totals=(0, 0), rounds=()):
    """A hand in play: ``cards`` per seat, ``history`` its actions (seats alternate from the first)."""
    first = (hand - 1) % 2
    return GAME.from_position({
        "game": "kuhn-poker", "variant": "standard", "players": 2, "options": {"hands": hands}, "seed": 1,
        "state": {"round": hand, "cards": list(cards), "totals": list(totals), "rounds": list(rounds),
                  "history": [[(first + k) % 2, a] for k, a in enumerate(history)]}})


def play(state, *actions: str):
    for action in actions:
        state.apply(state.to_move()[0], {"type": action})
    return state


# ---------------------------------------------------------------------- one hand
@pytest.mark.parametrize("cards, actions, points", [
    (("king", "queen"), ("check", "check"), [1, -1]),       # showdown of the antes
    (("jack", "queen"), ("check", "check"), [-1, 1]),
    (("jack", "king"), ("bet", "call"), [-2, 2]),           # a bet called: 2 chips
    (("queen", "jack"), ("bet", "call"), [2, -2]),
    (("jack", "king"), ("bet", "fold"), [1, -1]),           # a bluff that works: the ante
    (("king", "jack"), ("check", "bet", "fold"), [-1, 1]),  # the first seat folds its ante
    (("queen", "king"), ("check", "bet", "call"), [-2, 2]),
])
def test_a_hand_ends_at_a_showdown_or_a_fold_with_the_rules_points(cards, actions, points):
    state = play(position(cards), *actions)
    assert state.is_terminal()
    assert state.result()["scores"] == points
    assert state.result()["ranks"] == ([1, 2] if points[0] > 0 else [2, 1])


def test_who_acts_and_what_they_may_do():
    state = position(("queen", "king"))
    assert state.to_move() == [0] and state.legal_actions(0) == [{"type": "check"}, {"type": "bet"}]
    assert state.legal_actions(1) == []
    play(state, "check")
    assert state.to_move() == [1] and state.legal_actions(1) == [{"type": "check"}, {"type": "bet"}]
    play(state, "bet")
    assert state.to_move() == [0] and state.legal_actions(0) == [{"type": "fold"}, {"type": "call"}]
    with pytest.raises(IllegalActionError):
        state.apply(0, {"type": "check"})


def test_the_default_action_checks_where_it_may_else_folds():
    state = position(("queen", "king"))
    assert state.default_action(0) == {"type": "check"}
    play(state, "bet")
    assert state.default_action(1) == {"type": "fold"}


def test_the_first_seat_alternates_and_the_scores_add_up_over_the_hands():
    state = GAME.new_state(GAME.configure(2, options={"hands": 5}), 11)
    firsts = []
    while not state.is_terminal():
        firsts.append(state.to_move()[0])
        play(state, "check", "check")  # every hand a showdown of the antes: the higher card takes 1
    assert firsts == [0, 1, 0, 1, 0]
    rounds = state.public_view()["rounds"]
    assert [r["first"] for r in rounds] == firsts
    ranks = {"jack": 1, "queen": 2, "king": 3}
    expected = [0, 0]
    for r in rounds:
        a, b = (ranks[c["id"]] for c in r["cards"])  # a showdown shows both cards
        expected[0] += 1 if a > b else -1
        expected[1] += 1 if b > a else -1
    assert state.result()["scores"] == expected and sum(expected) == 0


def test_a_folded_hand_shows_no_card_but_the_seats_own():
    state = play(position(("king", "jack"), hands=2), "bet", "fold")
    assert state.public_view()["rounds"][0]["cards"] == [{"hidden": True}, {"hidden": True}]
    assert state.observation(0)["rounds"][0]["cards"][0]["id"] == "king"
    assert state.observation(0)["rounds"][0]["cards"][1] == {"hidden": True}
    assert state.observation(1)["rounds"][0]["cards"] == [{"hidden": True}, {"id": "jack", "name": "Jack",
                                                                               "rank": 1, "value": "J"}]


def test_bad_positions_are_refused():
    for cards, history in [(("king", "king"), ()), (("king", "ace"), ()), (("king", "jack"), ("call",))]:
        with pytest.raises(PositionError):
            position(cards, history)


# ---------------------------------------------------------------------- the game's value
def strategy(alpha: Fraction):
    """Kuhn's equilibrium family: the probability of each action for (seat's role, card, history)."""
    third = Fraction(1, 3)

    def first(card: str, history: tuple) -> dict[str, Fraction]:
        if not history:  # open: bet the Jack with alpha, the King with 3 alpha, check the Queen
            bet = {"jack": alpha, "queen": Fraction(0), "king": 3 * alpha}[card]
            return {"bet": bet, "check": 1 - bet}
        call = {"jack": Fraction(0), "queen": alpha + third, "king": Fraction(1)}[card]  # facing check-bet
        return {"call": call, "fold": 1 - call}

    def second(card: str, history: tuple) -> dict[str, Fraction]:
        if history == ("bet",):
            call = {"jack": Fraction(0), "queen": third, "king": Fraction(1)}[card]
            return {"call": call, "fold": 1 - call}
        bet = {"jack": third, "queen": Fraction(0), "king": Fraction(1)}[card]  # after a check
        return {"bet": bet, "check": 1 - bet}

    return first, second


def hand_value(state, first, second, history=()) -> Fraction:
    """The first seat's expected chips from this state of a one-hand match (built by hand), every
    decision asked of the strategies and every action played through the engine (exact: fractions)."""
    if state.is_terminal():
        return Fraction(state.result()["scores"][0])
    seat = state.to_move()[0]
    probabilities = (first if seat == 0 else second)(state.cards[seat], tuple(history))
    assert set(probabilities) == {a["type"] for a in state.legal_actions(seat)}
    value = Fraction(0)
    for action, p in probabilities.items():
        if p:
            child = state.clone()
            child.apply(seat, {"type": action})
            value += p * hand_value(child, first, second, history + (action,))
    return value


def game_value(first, second) -> Fraction:
    """Over the six equally likely deals."""
    deals = list(itertools.permutations(CARDS, 2))
    return sum((hand_value(position(deal), first, second) for deal in deals), Fraction(0)) / len(deals)


@pytest.mark.parametrize("alpha", [Fraction(0), Fraction(1, 12), Fraction(1, 6), Fraction(1, 4), Fraction(1, 3)])
def test_the_equilibrium_value_of_a_hand_is_minus_one_eighteenth(alpha):
    assert game_value(*strategy(alpha)) == Fraction(-1, 18)


def test_no_first_seat_strategy_beats_the_equilibriums_second_seat():
    """Against the equilibrium's second seat, the best of the first seat's 64 pure strategies (an
    opening and a reply to check-bet, per card) wins -1/18 too: the equilibrium's value."""
    _, second = strategy(Fraction(0))
    best = None
    for choice in itertools.product(("bet", "check"), ("call", "fold"), repeat=3):
        plan = {card: choice[2 * i:2 * i + 2] for i, card in enumerate(CARDS)}

        def first(card, history, plan=plan):
            action = plan[card][0 if not history else 1]
            other = {"bet": "check", "check": "bet", "call": "fold", "fold": "call"}[action]
            return {action: Fraction(1), other: Fraction(0)}

        value = game_value(first, second)
        best = value if best is None else max(best, value)
    assert best == Fraction(-1, 18)


# ---------------------------------------------------------------------- the engine contract
def test_random_matches_end_with_valid_results_and_replay():
    config = GAME.configure(2, options={"hands": 6})
    check_random_games(GAME, config, 200)
    for seed in range(5):
        check_replayable(GAME, config, seed)


def test_hidden_cards_stay_hidden_from_every_seat_and_the_spectator():
    """Resampling what a seat cannot know (the other card of this hand and of folded hands) never
    changes what it receives, and public labels name nothing hidden; the checks are not vacuous."""
    rng = random.Random(3)
    changed = labels = 0
    for seed in range(40):
        state = GAME.new_state(GAME.configure(2, options={"hands": 4}), seed)
        while not state.is_terminal():
            changed += check_hiding_at(state, rng)
            labels += check_public_labels_at(state, rng)
            check_illegal_refused(state)
            seat = state.to_move()[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))
        play_out(state, rng)
    assert changed > 100 and labels > 0
