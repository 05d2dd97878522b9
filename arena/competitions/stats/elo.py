"""Logistic Elo and the score of paired games with its 95 % interval.

A pair is two games on the same deal with A and B in swapped seats; A's pair score is the mean of
its two game scores (1 win, 1/2 draw, 0 loss), so it takes one of the five values 0, 1/4, 1/2, 3/4, 1
(the pentanomial). Pairs are independent where single games of a pair are not (they share a deal),
so the variance is taken over pairs, as fishtest does.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

PENTANOMIAL_VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)
Z95 = 1.959963984540054  # the normal quantile of 0.975


def logistic_score(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger: 1 / (1 + 10^(-elo/400))."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def logistic_elo(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (±inf at 1 and 0)."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True)
class PairedEstimate:
    """A's mean score per game and its Elo difference over B, each with a 95 % interval."""

    pairs: int
    score: float
    score_low: float
    score_high: float
    elo: float
    elo_low: float
    elo_high: float


def paired_estimate(counts: Sequence[int]) -> PairedEstimate:
    """The estimate from pentanomial ``counts`` (pairs scoring 0, 1/4, 1/2, 3/4, 1 for A).

    score = the mean pair score; its standard error = sqrt(variance of pair scores / pairs); the
    interval is score ± 1.96 standard errors (cut to [0, 1]); the Elo interval is the Elo of the
    score interval's ends (the logistic curve is monotone).
    """
    if len(counts) != len(PENTANOMIAL_VALUES):
        raise ValueError(f"a pentanomial has 5 counts, not {len(counts)}")
    pairs = sum(counts)
    if pairs == 0:
        return PairedEstimate(0, 0.5, 0.0, 1.0, 0.0, -math.inf, math.inf)
    score = sum(n * a for n, a in zip(counts, PENTANOMIAL_VALUES)) / pairs
    variance = sum(n * (a - score) ** 2 for n, a in zip(counts, PENTANOMIAL_VALUES)) / pairs
    half = Z95 * math.sqrt(variance / pairs)
    low, high = max(0.0, score - half), min(1.0, score + half)
    return PairedEstimate(pairs, score, low, high, logistic_elo(score), logistic_elo(low), logistic_elo(high))
