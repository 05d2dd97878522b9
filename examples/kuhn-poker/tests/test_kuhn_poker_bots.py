"""Kuhn poker's package as Parlour finds it, its greedy policy and its search hooks: the policy
plays the rule policy.py states, the search rebuilds exactly what a seat knows, and the greedy
and mcts house bots (the SDK's wrappers of both) beat random play."""
from __future__ import annotations

import random

from bots_sdk import Decision
from bots_sdk.local import play_match
from bots_sdk.loading import parse_bot_spec
from bots_sdk.search import determinize
from parlour_kuhn_poker.engine import GAME
from referee.games import MatchConfig
from referee.games.hooks import Turn
from referee.games.registry import package


def decision_for(state, seat: int) -> Decision:
    c = state.config
    return Decision(game=c.game, variant=c.variant, seat=seat, players=c.players, options=dict(c.options),
                    legal_actions=list(state.legal_actions(seat)), _observation=state.observation(seat))


def test_the_package_is_found_by_its_entry_point_with_everything_it_holds():
    found = package("kuhn-poker")
    assert found.distribution == "parlour-kuhn-poker" and found.module == "parlour_kuhn_poker"
    assert found.folder.parent.name == "kuhn-poker" and found.folder.parent.parent.name == "examples"
    assert found.house_bots == ("random", "greedy", "mcts")
    assert {p.name for p in found.viewer_folder.iterdir()} >= {"renderer.js", "renderer.css"}
    assert found.rules.read_text().startswith("# Kuhn poker (`kuhn-poker`, engine 1.0.0)")


def test_the_greedy_policy_plays_its_card_strength():
    greedy = package("kuhn-poker").policy
    config = MatchConfig("kuhn-poker", "standard", 2, {"hands": 1})
    for card, opening, facing_a_bet in [("king", "bet", "call"), ("queen", "check", "call"),
                                        ("jack", "check", "fold")]:
        state = GAME.from_position({"game": "kuhn-poker", "players": 2, "options": {"hands": 1}, "seed": 0,
                                    "state": {"round": 1, "cards": [card, "queen" if card != "queen" else "king"]}})
        turn = Turn(config, 0, state.observation(0), state.legal_actions(0), random.Random(0))
        assert greedy(turn) == {"type": opening}
        state.apply(0, {"type": "check"})
        state.apply(1, {"type": "bet"})
        turn = Turn(config, 0, state.observation(0), state.legal_actions(0), random.Random(0))
        assert greedy(turn) == {"type": facing_a_bet}


def test_a_determinized_state_gives_the_seat_exactly_what_it_was_given():
    """At every decision of random matches: the seat's observation, legal actions and labels; the
    other seat's card drawn among the two the seat does not hold, both of them."""
    rng = random.Random(5)
    others: dict[str, set] = {}
    checked = 0
    for seed in range(30):
        state = GAME.new_state(GAME.configure(2, options={"hands": 3}), seed)
        while not state.is_terminal():
            seat = state.to_move()[0]
            decision = decision_for(state, seat)
            copy = determinize(decision, rng)
            assert copy.observation(seat) == decision.observation
            assert copy.legal_actions(seat) == decision.legal_actions
            assert [copy.action_label(seat, a) for a in decision.legal_actions] == \
                [state.action_label(seat, a) for a in decision.legal_actions]
            others.setdefault(state.cards[seat], set()).add(copy.cards[1 - seat])
            checked += 1
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert checked > 100
    assert others == {mine: {c for c in ("jack", "queen", "king") if c != mine} for mine in others}


def test_greedy_and_mcts_beat_random_play():
    for spec in ("greedy", "mcts"):
        total = 0
        for seed in range(16):
            bots = [parse_bot_spec(spec, "kuhn-poker").make(), parse_bot_spec("random", "kuhn-poker").make()]
            order = bots if seed % 2 == 0 else bots[::-1]
            outcome = play_match("kuhn-poker", order, seed=seed, strict=True)
            total += outcome.result["scores"][seed % 2]
        assert total > 0, (spec, total)
