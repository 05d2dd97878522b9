"""The generalized sequential probability ratio test on pentanomial results, as fishtest runs it.

For outcome values a_i observed with frequencies p_i over N pairs, and a hypothesised mean score s,
the likeliest distribution q with mean s (the maximum-likelihood estimate under that constraint)
is q_i = p_i / (1 + x (a_i - s)), where x solves sum_i p_i (a_i - s) / (1 + x (a_i - s)) = 0. The
log-likelihood ratio of H1 (mean s1) against H0 (mean s0) is then
N * sum_i p_i log(q1_i / q0_i). Empty cells of the pentanomial get a small count (1e-3) first,
so that a pair value never seen so far is not ruled impossible. s0 and s1 come from the Elo bounds
in logistic Elo. Wald's bounds: accept H1 when the LLR reaches log((1 - beta) / alpha), H0 when it
falls to log(beta / (1 - alpha)).

``DuplicateSprt`` asks both questions of a comparison at once — is A stronger by elo1 rather than
elo0, and is B? — each at alpha/2, so that declaring either one stronger when they are equal
happens at most alpha of the time.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from .elo import PENTANOMIAL_VALUES, logistic_score

Decision = Literal["H0", "H1"]
Verdict = Literal["A", "B", "no difference shown"]
NO_DIFFERENCE: Verdict = "no difference shown"
EMPTY_CELL = 1e-3  # fishtest's regularisation of a pentanomial cell with no pair yet


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) bounds on the LLR for error rates alpha (false H1) and beta (false H0)."""
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError("alpha and beta must lie in (0, 1) with alpha + beta < 1")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def constrained_mle(values: Sequence[float], probs: Sequence[float], mean: float) -> list[float]:
    """The distribution on ``values`` with the given mean that is likeliest for the empirical
    ``probs`` (all positive): q_i = p_i / (1 + x (a_i - mean)), x found by Newton's method kept
    inside a shrinking bracket (the equation is decreasing in x on the interval where every
    1 + x (a_i - mean) stays positive, so the root is unique)."""
    low_value, high_value = min(values), max(values)
    if not low_value < mean < high_value:
        raise ValueError(f"mean {mean} must lie strictly between {low_value} and {high_value}")
    lo, hi = -1.0 / (high_value - mean), 1.0 / (mean - low_value)
    gaps = [a - mean for a in values]
    x = 0.0
    for _ in range(200):
        terms = [p * g / (1 + x * g) for p, g in zip(probs, gaps)]
        slope = sum(terms)
        if slope > 0:
            lo = x
        else:
            hi = x
        derivative = -sum(t * g / (1 + x * g) for t, g in zip(terms, gaps))
        step = x - slope / derivative
        following = step if lo < step < hi else (lo + hi) / 2
        if abs(following - x) <= 1e-15 * max(1.0, abs(x)):
            break
        x = following
    q = [p / (1 + x * g) for p, g in zip(probs, gaps)]
    total = sum(q)
    return [v / total for v in q]


def llr(values: Sequence[float], counts: Sequence[float], s0: float, s1: float) -> float:
    """The generalized log-likelihood ratio of mean ``s1`` against mean ``s0`` for outcomes
    ``values`` seen ``counts`` times (every count positive)."""
    n = sum(counts)
    probs = [c / n for c in counts]
    q0 = constrained_mle(values, probs, s0)
    q1 = constrained_mle(values, probs, s1)
    return n * sum(p * math.log(b / a) for p, a, b in zip(probs, q0, q1))


def pentanomial_llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """The LLR of A being ``elo1`` rather than ``elo0`` stronger (logistic Elo), from the counts of
    pairs scoring 0, 1/4, 1/2, 3/4, 1 for A."""
    if len(counts) != 5:
        raise ValueError(f"a pentanomial has 5 counts, not {len(counts)}")
    regularised = [c if c > 0 else EMPTY_CELL for c in counts]
    return llr(PENTANOMIAL_VALUES, regularised, logistic_score(elo0), logistic_score(elo1))


@dataclass
class DuplicateSprt:
    """Two one-sided tests run side by side on the same pairs: side ``A`` tests A − B = elo1
    against elo0, side ``B`` the same with the pentanomial mirrored; each at alpha/2 and beta.
    Each side stops at its first crossing (its decision then stands); the comparison stops when a
    side accepts H1 (that side is stronger) or both accept H0 (no difference shown)."""

    elo0: float = 0.0
    elo1: float = 30.0
    alpha: float = 0.05
    beta: float = 0.05
    llrs: dict[str, float] = field(default_factory=lambda: {"A": 0.0, "B": 0.0})
    decisions: dict[str, Decision | None] = field(default_factory=lambda: {"A": None, "B": None})

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({self.elo0}) must be below elo1 ({self.elo1})")
        self.lower, self.upper = sprt_bounds(self.alpha / 2, self.beta)

    def update(self, counts: Sequence[int]) -> Verdict | None:
        """Test the pentanomial counts so far (A's view); the verdict once reached, else None."""
        for side, seen in (("A", list(counts)), ("B", list(counts)[::-1])):
            if self.decisions[side] is not None:
                continue
            value = pentanomial_llr(seen, self.elo0, self.elo1)
            self.llrs[side] = value
            if value >= self.upper:
                self.decisions[side] = "H1"
            elif value <= self.lower:
                self.decisions[side] = "H0"
        return self.verdict()

    def verdict(self) -> Verdict | None:
        for side in ("A", "B"):
            if self.decisions[side] == "H1":
                return side  # type: ignore[return-value]
        if self.decisions["A"] == self.decisions["B"] == "H0":
            return NO_DIFFERENCE
        return None
