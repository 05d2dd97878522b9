"""``bots_sdk.search``: determinized states agree with the decision they come from, and the
``mcts`` house bot plays every game to the end, reproducibly for a fixed seed and playout count."""
from __future__ import annotations

import json
import random
from collections import Counter
from types import SimpleNamespace

import pytest

from bots_sdk.decision import Decision
from bots_sdk.loading import BotSpecError, parse_bot_spec
from bots_sdk.local import play_match
from bots_sdk.search import Determinizer, determinize
from bots_sdk.search.ismcts import evaluator, search
from bots_sdk.search.mcts import MctsBot
from referee.games import GAMES, GameState
from referee.games.tussie_mussie.data import TILE_IDS
from referee.games.tussie_mussie.search import _turns_left


def decision_for(state: GameState, seat: int) -> Decision:
    """What a bot receives for ``seat`` now: a copy, the observation built at once."""
    c = state.config
    return Decision(game=c.game, variant=c.variant, seat=seat, players=c.players, options=dict(c.options),
                    legal_actions=list(state.legal_actions(seat)), _observation=state.observation(seat))


def hidden_part(state: GameState) -> str:
    return json.dumps({**state.to_position(), "seed": None}, sort_keys=True)


# (game, variant, players, options): each checked at 800 decisions of random games
CASES = [
    ("tussie-mussie", "standard", 2, {}),
    ("tussie-mussie", "standard", 4, {"marigold_gap": "keep"}),
    ("tussie-mussie", "solo", 1, {}),
    ("tussie-mussie", "solo", 1, {"apprentice_keeps_facedown": True, "apprentice_head_start": True}),
    ("misty", "standard", 3, {"round_cap": 3}),
    ("misty", "beginner", 2, {"round_cap": 3}),
    ("tricky-twist", "standard", 3, {}),
    ("tricky-twist", "standard", 4, {"end_check": "after_draw"}),
    ("bszzzz", "standard", 3, {"round_cap": 2}),
    ("bszzzz", "total", 5, {"round_cap": 2, "priority": "arrival", "deck": "original"}),
]
DECISIONS = 800


@pytest.mark.parametrize("game_id,variant,players,options", CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}-{i}" for i, c in enumerate(CASES)])
def test_determinized_state_gives_the_seat_its_own_decision(game_id, variant, players, options):
    """At every decision of random games, a determinized state shows the deciding seat exactly
    its observation, legal actions and labels; it plays on legally; and its hidden cards vary."""
    game = GAMES[game_id]
    config = game.configure(players, variant, options)
    rng = random.Random(f"{game_id}-{variant}-{players}")
    checked = differing = 0
    g = 0
    while checked < DECISIONS:
        g += 1
        state = game.new_state(config, 1000 + g)
        while not state.is_terminal() and checked < DECISIONS:
            seats = list(state.to_move())
            rng.shuffle(seats)
            for seat in seats:
                if seat not in state.to_move():
                    continue
                decision = decision_for(state, seat)
                copy = determinize(decision, rng)
                assert copy.observation(seat) == decision.observation
                assert copy.legal_actions(seat) == decision.legal_actions
                assert [copy.action_label(seat, a) for a in decision.legal_actions] == \
                       [state.action_label(seat, a) for a in decision.legal_actions]
                differing += hidden_part(copy) != hidden_part(state)
                checked += 1
                if checked % 25 == 0:  # the copy is a whole game: it plays to its end
                    while not copy.is_terminal():
                        for s in copy.to_move():
                            if s in copy.to_move():
                                copy.apply(s, rng.choice(copy.legal_actions(s)))
                state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert differing > checked // 3, "determinized states barely differ from the real one"


def test_determinize_never_touches_the_real_state():
    game = GAMES["tricky-twist"]
    state = game.new_state(game.configure(4), 5)
    for _ in range(30):
        seat = state.to_move()[0]
        state.apply(seat, state.legal_actions(seat)[0])
    before = state.to_position()
    seat = state.to_move()[0]
    copy = determinize(decision_for(state, seat), random.Random(1))
    copy.apply(seat, copy.legal_actions(seat)[0])
    assert state.to_position() == before


def test_the_face_down_tile_is_uniform_over_the_unseen_tiles():
    """Tussie Mussie, first offer: the receiver sees one face-up tile; the face-down one is any of
    the 17 others with equal chance (a chi-square test, fixed seed)."""
    game = GAMES["tussie-mussie"]
    state = game.new_state(game.configure(2), 3)
    offerer = state.to_move()[0]
    state.apply(offerer, state.legal_actions(offerer)[0])
    receiver = state.to_move()[0]
    decision = decision_for(state, receiver)
    up = decision.observation["offer"]["face_up"]["id"]
    sampler = Determinizer(decision)
    rng = random.Random(11)
    samples = 3400
    counts = Counter()
    for _ in range(samples):
        copy = sampler.sample(rng)
        counts[next(t for t in copy.offer["tiles"] if t != up)] += 1
    unseen = [t for t in TILE_IDS if t != up]
    assert set(counts) == set(unseen)
    expected = samples / len(unseen)
    chi2 = sum((counts[t] - expected) ** 2 / expected for t in unseen)
    assert chi2 < 39.25  # 16 degrees of freedom, p = 0.001


def test_solo_turn_deck_is_drawn_among_the_sequences_the_seat_saw():
    """The observation shows only the current Turn card: the earlier ones are inferred from their
    traces, and the real remaining deck is always among those drawn from."""
    game = GAMES["tussie-mussie"]
    config = game.configure(1, "solo")
    rng = random.Random(4)
    checked = 0
    for g in range(15):
        state = game.new_state(config, g)
        while not state.is_terminal():
            if state.phase == "distribute":
                sampler = Determinizer(decision_for(state, 0))
                _, sequences = sampler._context
                left = {frozenset(_turns_left(seq, state.observation(0))) for seq in sequences}
                assert frozenset(state.turns) in left
                checked += 1
            state.apply(0, rng.choice(state.legal_actions(0)))
    assert checked > 100


# ---------------------------------------------------------------------- the mcts house bot
MATCHES = [
    ("tussie-mussie", "standard", 2, {}),
    ("tussie-mussie", "solo", 1, {}),
    ("misty", "beginner", 3, {"round_cap": 3}),
    ("tricky-twist", "standard", 3, {}),
    ("bszzzz", "standard", 4, {"round_cap": 1}),
    ("bszzzz", "total", 3, {"round_cap": 1, "priority": "arrival"}),
]


@pytest.mark.parametrize("game_id,variant,players,options", MATCHES, ids=[f"{m[0]}-{m[1]}" for m in MATCHES])
def test_mcts_plays_a_whole_match_within_its_budget(game_id, variant, players, options, monkeypatch):
    """Every search stops once its clock has passed the budget. The search reads a clock of the
    test's (a millisecond per reading), so the check does not depend on how loaded the machine is."""
    import bots_sdk.search.ismcts as ismcts
    import bots_sdk.search.mcts as mcts

    readings = iter(range(10**9))
    monkeypatch.setattr(ismcts, "time", SimpleNamespace(perf_counter=lambda: next(readings) / 1000))
    searches = []

    def recorded_search(*args, **kwargs):
        action, stats = search(*args, **kwargs)
        searches.append((kwargs["seconds"], stats))
        return action, stats

    monkeypatch.setattr(mcts, "search", recorded_search)
    bots = [MctsBot(budget=0.004)] + [parse_bot_spec("greedy", game_id).make() for _ in range(players - 1)]
    outcome = play_match(game_id, bots, variant=variant, options=options, seed=9, strict=True)
    assert outcome.match.finished and not outcome.faults
    assert searches and all(seconds <= 0.004 for seconds, _ in searches)
    # one reading at the start, one before each iteration: four 1 ms ticks, at most four iterations
    assert all(stats.iterations <= 4 for _, stats in searches), [s.iterations for _, s in searches]
    assert any(stats.iterations > 0 for _, stats in searches)


def test_a_fixed_seed_and_playout_count_give_the_same_decisions():
    def actions(seed: int) -> list:
        bots = [MctsBot(playouts=12, seed=seed), MctsBot(playouts=12, seed=seed + 1)]
        outcome = play_match("tussie-mussie", bots, seed=21, strict=True)
        return [e["action"] for e in outcome.log]

    first = actions(5)
    assert actions(5) == first
    assert actions(6) != first


def test_mcts_takes_a_flower_first_in_misty():
    """The first card of a window: a flower (2 points alone on its cell) beats every other card
    (1 point; an arrow may even be covered or leave the window). Search scored by random
    playouts missed it; scored by the window estimate, it takes the flower."""
    game = GAMES["misty"]
    config = game.configure(2)
    taken = 0
    for seed in range(40):
        state = game.new_state(config, seed)
        if not any(c.startswith("flower") for c in state.hands[0]):
            continue
        bot = MctsBot(playouts=60, seed=seed)
        bot.start("misty", 0, dict(config.options), seed)
        assert bot.decide(decision_for(state, 0)) == {"type": "take", "kind": "flower", "motif": "flower"}
        taken += 1
        if taken == 5:
            break
    assert taken == 5


def test_a_prior_action_is_tried_first_and_kept_when_nothing_beats_it():
    """``search(prior=)``: with one iteration the favoured action is the one tried, so it is played."""
    game = GAMES["tricky-twist"]
    state = game.new_state(game.configure(4), 3)
    seat = state.to_move()[0]
    decision = decision_for(state, seat)
    legal = decision.legal_actions
    for prior in (legal[-1], legal[len(legal) // 2]):
        action, _ = search(Determinizer(decision), seat, legal, random.Random(1),
                           evaluator=evaluator("tricky-twist"), iterations=1, prior=prior, prior_weight=0.5)
        assert action == prior


def test_house_bot_parameters():
    spec = parse_bot_spec("mcts?budget=0.2&playouts=30&seed=4", "misty")
    bot = spec.make()
    assert (bot.budget, bot.playouts, bot.fixed_seed) == (0.2, 30, 4)
    assert parse_bot_spec("mcts", "misty").make().budget == 0.05
    for bad, message in [("mcts?depth=3", "no parameter 'depth'"), ("mcts?budget=fast", "not a float"),
                         ("mcts?playouts=0", "playouts"), ("greedy?budget=1", "no parameter")]:
        with pytest.raises(BotSpecError, match=message):
            parse_bot_spec(bad, "misty")


@pytest.mark.parametrize("game_id,players", [("tussie-mussie", 3), ("tricky-twist", 4), ("misty", 2), ("bszzzz", 4)])
def test_a_clone_is_an_equal_and_independent_state(game_id, players):
    """``clone()`` (what every determinization starts from) equals the position round trip, and
    playing on the clone to the end never changes the original."""
    game = GAMES[game_id]
    rng = random.Random(game_id)
    state = game.new_state(game.configure(players), 8)
    checked = 0
    while not state.is_terminal() and checked < 120:
        if rng.random() < 0.5:
            before = state.to_position()
            copy = state.clone()
            assert copy.to_position() == before
            assert all(copy.observation(s) == state.observation(s) for s in range(players))
            while not copy.is_terminal():
                for s in copy.to_move():
                    if s in copy.to_move():
                        copy.apply(s, rng.choice(copy.legal_actions(s)))
            assert state.to_position() == before
            checked += 1
        for s in state.to_move():
            if s in state.to_move():
                state.apply(s, rng.choice(state.legal_actions(s)))
    assert checked > 10
