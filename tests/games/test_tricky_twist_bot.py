"""Tricky Twist: the greedy house bot plays legal moves from its decision alone, and beats random."""
from __future__ import annotations

import random

from bots_sdk import Decision, RandomBot
from bots_sdk.greedy import greedy_bot_class
from referee.games.seeding import derive_seed
from referee.games.tricky_twist.engine import GAME


def decision(state, seat):
    config = state.config
    return Decision(game="tricky-twist", variant=config.variant, seat=seat, players=config.players,
                    options=dict(config.options), legal_actions=list(state.legal_actions(seat)),
                    _observe=lambda: state.observation(seat))


def play(seed: int, players: int, greedy_seat: int) -> dict:
    state = GAME.new_state(GAME.configure(players), seed)
    bots = [greedy_bot_class("tricky-twist")() if s == greedy_seat else RandomBot()
            for s in range(players)]
    for s, bot in enumerate(bots):
        bot.start("tricky-twist", s, dict(state.config.options), derive_seed(seed, "bot", s))
    while not state.is_terminal():
        for seat in list(state.to_move()):
            if seat in state.to_move():
                action = bots[seat].decide(decision(state, seat))
                assert action in state.legal_actions(seat)
                state.apply(seat, action)
    return state.result()


def test_greedy_beats_three_random_bots():
    games = 40
    wins = sum(play(seed, 4, seed % 4)["ranks"][seed % 4] == 1 for seed in range(games))
    assert wins / games >= 0.35, wins  # measured: about 0.93 over 500 games


def test_greedy_plays_three_players_validly():
    for seed in range(5):
        assert len(play(seed, 3, seed % 3)["rounds"]) == 3


def test_greedy_round_end_options_match_the_engine():
    """The bot plans its later round-end steps with the options the engine will offer."""
    bot = greedy_bot_class("tricky-twist")()
    rng = random.Random(5)
    compared = 0
    for seed in range(200):
        state = GAME.new_state(GAME.configure(4), seed)
        while not state.is_terminal() and compared < 30:
            seats = state.to_move()
            if state.phase == "round_end":
                seat = seats[0]
                obs = state.observation(seat)
                bonus = obs["round_end_steps"][len(obs["my_choices"])]
                pos = state.position_state()
                planned = bot.step_options(obs, bonus, pos["tricks"][seat], pos["false_tricks"][seat],
                                           obs["my_choices"])
                assert planned == state.legal_actions(seat)
                compared += 1
            seat = seats[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert compared >= 30


def test_playout_round_end_choice_matches_the_plain_computation():
    """The round-end Bonus choice computed from one ``effective_piles`` equals trying every action
    through it, on every round-end step of random games."""
    from bots_sdk.search.playouts import _round_end_choice, _round_end_choice_reference

    rng = random.Random(2)
    compared = 0
    for seed in range(40):
        state = GAME.new_state(GAME.configure(4), seed)
        while not state.is_terminal():
            for seat in list(state.to_move()):
                if seat not in state.to_move():
                    continue
                legal = state.legal_actions(seat)
                if state.phase == "round_end":
                    assert _round_end_choice(state, seat, legal) == _round_end_choice_reference(state, seat, legal)
                    compared += 1
                takes = [a for a in legal if a["type"] == "take_bonus"]  # hold Bonus cards to choose with
                state.apply(seat, rng.choice(takes or legal))
    assert compared > 200, compared
