"""Calibration of the comparison, tested rather than assumed: synthetic bots of known strength play
simulated games (no engine), through the real driver and its two-sided GSPRT.

The simulated pair is a duplicate deal: the deal favours one of the two seats A and B hold (the
seed decides which), and A and B swap seats between the pair's two games, so each gets the good
seat once; A's mean score per game is exactly that of its Elo advantage. In CI a few hundred runs
check the false-positive rate and the power roughly; ``make soak`` runs thousands and holds the
false-positive rate to alpha.
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from arena.competitions import sequential_comparison
from arena.competitions.sequential_comparison import GameSpec
from arena.competitions.stats import logistic_score


class SimulatedPlayer:
    """A of a known Elo over B; a draw ``draw`` of the time; the favoured seat scores ``luck`` more."""

    def __init__(self, elo: float, rng: random.Random, draw: float = 0.1, luck: float = 0.2) -> None:
        self.score, self.rng, self.draw, self.luck = logistic_score(elo), rng, draw, luck

    def __call__(self, specs: Sequence[GameSpec]) -> list[Mapping[str, Any]]:
        results = []
        for spec in specs:
            seats = sorted((spec.a_seat, spec.b_seat))
            favoured = seats[random.Random(spec.seed).random() < 0.5]  # the deal's luck, the same in both games
            score = self.score + (self.luck if spec.a_seat == favoured else -self.luck)
            win, loss = score - self.draw / 2, 1 - score - self.draw / 2
            assert win >= 0 and loss >= 0
            draw = self.rng.random()
            ranks = [3] * len(spec.bots)
            if draw < win:
                ranks[spec.a_seat], ranks[spec.b_seat] = 1, 2
            elif draw < win + loss:
                ranks[spec.a_seat], ranks[spec.b_seat] = 2, 1
            else:
                ranks[spec.a_seat] = ranks[spec.b_seat] = 1
            results.append({"ranks": ranks})
        return results


def verdicts(elo: float, runs: int, seed: int, max_games: int, **settings: Any) -> Counter:
    rng = random.Random(seed)
    found = Counter()
    for _ in range(runs):
        done = sequential_comparison.run("a", "b", "tussie-mussie", SimulatedPlayer(elo, rng), seed=rng.randrange(10**9),
                           max_games=max_games, **settings)
        found[done.verdict] += 1
    return found


def test_simulated_pairs_have_the_known_mean_and_cancel_the_deal() -> None:
    player = SimulatedPlayer(30, random.Random(1))
    done = sequential_comparison.run("a", "b", "tussie-mussie", player, seed=5, max_games=20000, elo0=0, elo1=1)
    assert done.estimate().score == pytest.approx(logistic_score(30), abs=0.01)
    # the deal's luck cancels within a pair: fewer split pairs would mean it did not
    assert done.pentanomial[2] > done.pentanomial[0] + done.pentanomial[4]


def test_calibration_in_ci() -> None:
    """At H0 (equal bots) few runs name a stronger bot; at H1 (A 30 Elo stronger) nearly all name A."""
    at_h0 = verdicts(0, runs=200, seed=1, max_games=4000)
    assert at_h0["A"] + at_h0["B"] <= 200 * 0.05 + 5, at_h0  # alpha 0.05, with ~2 standard errors of slack
    at_h1 = verdicts(30, runs=100, seed=2, max_games=4000)
    assert at_h1["A"] >= 90 and at_h1["B"] == 0, at_h1  # power 1 - beta = 0.95


@pytest.mark.soak
@pytest.mark.parametrize("luck,draw", [(0.2, 0.1), (0.0, 0.3)])
def test_false_positive_rate_at_h0_stays_within_alpha(luck: float, draw: float) -> None:
    runs, rng = 4000, random.Random(20)
    found = Counter()
    for _ in range(runs):
        player = SimulatedPlayer(0, rng, draw=draw, luck=luck)
        found[sequential_comparison.run("a", "b", "tussie-mussie", player, seed=rng.randrange(10**9), max_games=100000).verdict] += 1
    assert (found["A"] + found["B"]) / runs <= 0.05, found
    assert found["A"] > 0 and found["B"] > 0  # both sides can err, and do, a little


@pytest.mark.soak
def test_power_at_h1_and_errors_at_h0_with_other_bounds() -> None:
    """elo0 10, elo1 40, alpha 0.1, beta 0.1: at A − B = 10 the test names A at most alpha/2 of the
    time; at A − B = 40 it names A at least 1 − beta of the time."""
    settings = {"elo0": 10, "elo1": 40, "alpha": 0.1, "beta": 0.1}
    at_elo0 = verdicts(10, runs=3000, seed=3, max_games=100000, **settings)
    assert at_elo0["A"] / 3000 <= 0.05, at_elo0
    at_elo1 = verdicts(40, runs=2000, seed=4, max_games=100000, **settings)
    assert at_elo1["A"] / 2000 >= 0.9, at_elo1
