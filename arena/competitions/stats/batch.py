"""A batch Plackett–Luce fit over all of a ladder's matches, with intervals.

OpenSkill moves each rating a little after every match, so a rating depends on the order matches
were played in and keeps drifting. For bots whose skill does not change, a batch fit is the better
summary: the maximum of the Plackett–Luce likelihood over every match at once (``choix``'s
iterative Luce spectral ranking), lightly regularised so that a bot that never lost still gets a
finite strength.

A match's ranking is read as successive choices, best first: the winner is chosen from all the
seats, the second from the rest, and so on. Seats that tie are each counted as chosen over the seats
below them (and not over each other), which keeps the fit symmetric in them.

Strengths are reported on the logistic Elo scale (a natural-log strength θ is θ·400/ln 10 Elo, so
two bots 100 points apart have the Elo expected score of 0.64 against each other), centred on the
ladder's mean. The interval is ±1.96 standard deviations of the Laplace approximation of the
posterior (the inverse of the Hessian of the negative log-likelihood at the fit, plus a weak ridge
that plays the same part as the regularisation: it keeps an unbeaten bot's interval finite).
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import choix
import numpy as np

from .elo import Z95

ELO_PER_NAT = 400.0 / math.log(10.0)
REGULARISATION = 0.01  # choix's alpha: weak on purpose
RIDGE = 0.01  # added to the Hessian: a prior standard deviation of 10 nats (~1700 Elo)


@dataclass(frozen=True)
class BatchRating:
    elo: float
    low: float
    high: float
    games: int


def choices(ranking: Mapping[Hashable, int], index: Mapping[Hashable, int]) -> list[tuple[int, list[int]]]:
    """One match's ranking (entrant → rank, 1 best, ties shared) as choices (winner, losers)."""
    events = []
    for entrant, rank in ranking.items():
        below = [index[other] for other, r in ranking.items() if r > rank]
        if below:
            events.append((index[entrant], below))
    return events


def fit_plackett_luce(rankings: Sequence[Mapping[Hashable, int]]) -> dict[Hashable, BatchRating]:
    """Each entrant's batch strength (Elo, centred) with its 95 % interval, from every match's
    ranking (a mapping entrant → rank; give a forfeited seat the last rank)."""
    entrants = sorted({e for ranking in rankings for e in ranking}, key=str)
    if not entrants:
        return {}
    index = {e: i for i, e in enumerate(entrants)}
    games = dict.fromkeys(entrants, 0)
    data = []
    for ranking in rankings:
        for entrant in ranking:
            games[entrant] += 1
        data.extend(choices(ranking, index))
    n = len(entrants)
    theta = choix.ilsr_top1(n, data, alpha=REGULARISATION) if data else np.zeros(n)
    covariance = np.linalg.inv(hessian(theta, data) + RIDGE * np.eye(n))
    centre = np.eye(n) - 1.0 / n  # row i: θ_i minus the mean of all θ
    centred = centre @ theta
    spread = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", centre, covariance, centre), 0.0))
    return {e: BatchRating(elo=float(centred[i] * ELO_PER_NAT),
                           low=float((centred[i] - Z95 * spread[i]) * ELO_PER_NAT),
                           high=float((centred[i] + Z95 * spread[i]) * ELO_PER_NAT), games=games[e])
            for e, i in index.items()}


def hessian(theta: np.ndarray, data: Sequence[tuple[int, list[int]]]) -> np.ndarray:
    """The Hessian of the negative log-likelihood of top-1 choices: for each choice among the set
    C, the covariance of the softmax over C, diag(p) − p pᵀ (it depends on C alone, so each set
    is computed once and weighted by how often it was chosen from)."""
    n = len(theta)
    h = np.zeros((n, n))
    sets = Counter(tuple(sorted([winner, *losers])) for winner, losers in data)
    for members_tuple, times in sets.items():
        members = np.array(members_tuple)
        weights = np.exp(theta[members] - theta[members].max())
        p = weights / weights.sum()
        h[np.ix_(members, members)] += times * (np.diag(p) - np.outer(p, p))
    return h
