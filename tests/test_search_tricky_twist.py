"""``bots_sdk.search`` in Tricky Twist: the other seats' reserves are drawn among the cards a
player puts away (its shortest families), never against the follow rule's evidence; and the
``mcts`` bot leaves reserve picks to the greedy rule."""
from __future__ import annotations

import random

from bots_sdk.decision import Decision
from bots_sdk.search import Determinizer
from bots_sdk.search.mcts import MctsBot
from referee.games.tricky_twist.search import _dealable, redraw, reserve_guess
from referee.games.tricky_twist.data import BONUS_IDS, CARD_IDS
from referee.games.tricky_twist.engine import ALL_FAMILIES, FAMILY_BIT, GAME

def decision_for(state, seat: int) -> Decision:
    c = state.config
    return Decision(game=c.game, variant=c.variant, seat=seat, players=c.players, options=dict(c.options),
                    legal_actions=list(state.legal_actions(seat)), _observation=state.observation(seat))


def position(hands, reserves, log=(), tricks=None, false_tricks=None, leader=0):
    n = len(hands)
    data = {
        "round": 0, "first": 0, "phase": "play", "scoring_card": "even_values",
        "hands": hands, "reserves": reserves, "reserve_step": 5, "picks": [None] * n,
        "leader": leader, "turn": leader, "draw_offered": n, "draws": [], "trick": [],
        "tricks": tricks or [[] for _ in range(n)], "false_tricks": false_tricks or [[] for _ in range(n)],
        "bonus_available": list(BONUS_IDS), "bonus_held": [[] for _ in range(n)], "bonus_spent": [],
        "bonus_queue": [], "known_in_hand": [[] for _ in range(n)], "log": list(log),
        "batch": [], "choices": [[] for _ in range(n)], "history": [], "totals": [0] * n,
    }
    return GAME.from_position({"game": "tricky-twist", "players": n, "options": {}, "seed": 4, "state": data})


def test_reserve_guess_puts_the_shortest_families_away_keeping_sevens_and_high_cards():
    dealt = ["moon-3", "sun-7", "sun-10", "rain-1", "rain-5", "rain-9", "rain-12",
             "smile-2", "smile-4", "smile-6", "smile-8", "smile-11"]
    # moon (1 card) first; sun (2): the 10 before the 7; then sun's last card; rain (4) < smile (5)
    assert reserve_guess(dealt, 5) == {"moon-3", "sun-10", "sun-7", "rain-1", "rain-5"}
    assert reserve_guess(dealt, 2) == {"moon-3", "sun-10"}


def test_dealable_follows_the_families_each_slot_allows():
    no_moon = ALL_FAMILIES & ~FAMILY_BIT["moon"]
    assert _dealable(["moon-1", "sun-2"], [ALL_FAMILIES, no_moon])
    assert not _dealable(["moon-1", "moon-2"], [ALL_FAMILIES, no_moon])
    assert not _dealable(["moon-1"], [FAMILY_BIT["sun"] | FAMILY_BIT["rain"]])


def test_the_others_reserves_are_drawn_among_the_cards_they_would_put_away():
    """After a reserve built by the shortest-families rule, every sample gives each other seat a
    reserve the rule would have built from the cards the sample deals it; the engine's own even
    draw does not."""
    deck = list(CARD_IDS)
    random.Random(7).shuffle(deck)
    dealt = [deck[12 * s:12 * s + 12] for s in range(4)]
    reserves = [sorted(reserve_guess(d, 5)) for d in dealt]
    hands = [[c for c in d if c not in r] for d, r in zip(dealt, reserves)]
    state = position(hands, reserves)
    sampler = Determinizer(decision_for(state, 0))
    rng = random.Random(1)
    plain = 0
    for _ in range(30):
        sample = sampler.sample(rng)
        for y in (1, 2, 3):
            assert set(sample.reserves[y]) <= reserve_guess(sample.hands[y] + sample.reserves[y], 5)
        engine = state.resample_hidden(0, rng)
        plain += all(set(engine.reserves[y]) <= reserve_guess(engine.hands[y] + engine.reserves[y], 5)
                     for y in (1, 2, 3))
    assert plain < 3


def test_a_shown_void_still_holds_when_the_reserve_is_redrawn():
    """Seat 1 holds 8 suns, a rain and a smile, 5 moons in reserve: the rule would have put the
    rain, the smile and 3 moons away. With no trick played the redraw does so; once seat 1 has
    shown it holds no moon (it did not follow moon at trick 1, no draw since), no moon may come
    back to its hand and the draw stays as it was."""
    hand1 = ["rain-4", "smile-4"] + [f"sun-{v}" for v in range(3, 11)]
    reserve1 = ["moon-5", "moon-6", "moon-8", "moon-9", "moon-10"]
    rest = [c for c in CARD_IDS if c not in hand1 + reserve1 + ["moon-1", "sun-2", "moon-3"]]
    guess = {"rain-4", "smile-4", "moon-5", "moon-6", "moon-8"}
    assert reserve_guess(hand1 + reserve1 + ["sun-2"], 5) == guess

    fresh = position([rest[:11] + ["moon-1"], hand1 + ["sun-2"], rest[11:21] + ["moon-3"]],
                     [rest[21:26], reserve1, rest[26:31]])
    redraw(fresh, 0, random.Random(1), None)
    assert set(fresh.reserves[1]) == guess

    trick = {"leader": 0, "draws": [], "plays": [[0, "moon-1"], [1, "sun-2"], [2, "moon-3"]],
             "winner": 2, "trick": ["moon-1", "moon-3"], "false_tricks": [[1, "sun-2"]],
             "bonus": [], "take_back": []}
    void = position([rest[:10], hand1, rest[10:20]], [rest[20:25], reserve1, rest[25:30]], log=[trick],
                    tricks=[[], [], [["moon-1", "moon-3"]]], false_tricks=[[], ["sun-2"], []], leader=2)
    for seed in range(10):
        redraw(void, 0, random.Random(seed), None)
        assert sorted(void.hands[1]) == sorted(hand1) and sorted(void.reserves[1]) == sorted(reserve1)


def test_mcts_leaves_a_reserve_pick_to_the_greedy_rule():
    state = GAME.new_state(GAME.configure(4), 11)
    bot = MctsBot(playouts=5, seed=1)
    bot.start("tricky-twist", 0, {}, 1)
    decision = decision_for(state, 0)
    assert bot.decide(decision) == bot.greedy.decide(decision)
