"""arena.competitions.stats against worked numbers: Wald's bounds, fishtest's GSPRT (checked against
an independent constrained optimisation, Wald's closed form and fishtest's normal approximation), the paired score
and Elo intervals worked by hand, forfeit-last ranks, and the batch Plackett–Luce fit on bots of
known strength."""
from __future__ import annotations

import ast
import math
import random
import sys
from pathlib import Path

import pytest

from arena.competitions.stats import (DuplicateSprt, constrained_mle, forfeit_last, head_to_head, llr, logistic_elo,
                         logistic_score, paired_estimate, pentanomial_llr, sprt_bounds)

ROOT = Path(__file__).resolve().parents[1]
VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)


def test_logistic_elo_by_hand() -> None:
    assert logistic_score(0) == 0.5
    assert logistic_score(400) == pytest.approx(10 / 11)  # 1 / (1 + 10^-1)
    assert logistic_elo(0.75) == pytest.approx(400 * math.log10(3))  # 190.85: odds of 3 to 1
    assert logistic_elo(0.75) == pytest.approx(190.849, abs=1e-3)
    assert logistic_elo(logistic_score(-123.4)) == pytest.approx(-123.4)
    assert logistic_elo(1.0) == math.inf and logistic_elo(0.0) == -math.inf


def test_wald_bounds() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-math.log(19)) and upper == pytest.approx(math.log(19))  # ±2.944
    lower, upper = sprt_bounds(0.025, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.975)) and upper == pytest.approx(math.log(0.95 / 0.025))
    with pytest.raises(ValueError):
        sprt_bounds(0.6, 0.5)


def test_two_outcomes_reduce_to_walds_classic_sprt() -> None:
    """With only wins and losses the mean fixes the distribution, and the generalized LLR is
    Wald's: W log(s1/s0) + L log((1-s1)/(1-s0))."""
    s0, s1 = 0.5, 1 / (1 + 10 ** (-20 / 400))
    assert s1 == pytest.approx(0.528750, abs=1e-6)
    expected = 60 * math.log(s1 / s0) + 40 * math.log((1 - s1) / (1 - s0))
    assert expected == pytest.approx(0.9857, abs=1e-4)  # 60 ln 1.0575 + 40 ln 0.9425
    assert llr((0.0, 1.0), (40, 60), s0, s1) == pytest.approx(expected, rel=1e-9)


def test_constrained_mle_matches_an_independent_optimisation() -> None:
    """fishtest's closed form q_i = p_i / (1 + x(a_i - s)) against SLSQP maximising
    sum p_i log q_i under sum q_i = 1 and sum q_i a_i = s."""
    optimize = pytest.importorskip("scipy.optimize")
    import numpy as np

    probs = np.array([0.05, 0.15, 0.40, 0.25, 0.15])
    values = np.array(VALUES)
    for mean in (0.5, 0.52875, 0.6, 0.3):
        found = optimize.minimize(lambda q: -probs @ np.log(q), np.full(5, 0.2), method="SLSQP",
                                  bounds=[(1e-9, 1)] * 5, options={"ftol": 1e-14, "maxiter": 500},
                                  constraints=[{"type": "eq", "fun": lambda q: q.sum() - 1},
                                               {"type": "eq", "fun": lambda q, m=mean: q @ values - m}])
        ours = constrained_mle(VALUES, list(probs), mean)
        assert sum(ours) == pytest.approx(1)
        assert sum(q * a for q, a in zip(ours, VALUES)) == pytest.approx(mean, abs=1e-12)
        assert ours == pytest.approx(list(found.x), abs=1e-5)


def test_pentanomial_llr_worked_example() -> None:
    """100 pairs [5, 15, 40, 25, 15], H0 Elo 0 against H1 Elo 30: the LLR from the two
    likeliest distributions found independently (SLSQP), times the number of pairs."""
    optimize = pytest.importorskip("scipy.optimize")
    import numpy as np

    counts = [5, 15, 40, 25, 15]
    probs, values = np.array(counts) / 100, np.array(VALUES)
    s0, s1 = 0.5, 1 / (1 + 10 ** (-30 / 400))

    def likeliest(mean: float) -> np.ndarray:
        return optimize.minimize(lambda q: -probs @ np.log(q), probs, method="SLSQP", bounds=[(1e-9, 1)] * 5,
                                 options={"ftol": 1e-15, "maxiter": 500},
                                 constraints=[{"type": "eq", "fun": lambda q: q.sum() - 1},
                                              {"type": "eq", "fun": lambda q: q @ values - mean}]).x

    expected = 100 * float(probs @ np.log(likeliest(s1) / likeliest(s0)))
    assert pentanomial_llr(counts, 0, 30) == pytest.approx(expected, rel=1e-4)
    assert pentanomial_llr(counts, 0, 30) == pytest.approx(3.154, abs=1e-3)
    # A's side and B's side: the same counts read backwards test B
    assert pentanomial_llr(counts[::-1], 0, 30) < sprt_bounds(0.025, 0.05)[0]


def test_pentanomial_llr_near_fishtests_normal_approximation() -> None:
    """For close hypotheses fishtest approximates the LLR by N (s1-s0)(2 mu - s0 - s1) / (2 var),
    mu and var the mean and variance of the pair scores."""
    counts = [1000, 2200, 3600, 2100, 1100]
    n = sum(counts)
    mu = sum(c * a for c, a in zip(counts, VALUES)) / n
    assert mu == pytest.approx(0.5025)
    var = sum(c * (a - mu) ** 2 for c, a in zip(counts, VALUES)) / n
    s0, s1 = logistic_score(0), logistic_score(2)
    approximation = n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert pentanomial_llr(counts, 0, 2) == pytest.approx(approximation, rel=0.01)


def test_empty_cells_get_fishtests_small_count() -> None:
    """No pair seen yet: the regularised counts are all 1e-3, so the LLR is nearly 0."""
    assert abs(pentanomial_llr([0, 0, 0, 0, 0], 0, 30)) < 1e-3
    # A won all 40 pairs: the likeliest law of mean s keeps mass ~s on 1 (and the rest on 0), so the
    # LLR tends to 40 ln(s1 / s0) = 40 ln(0.543112 / 0.5) = 3.307 as the small count goes to 0
    assert pentanomial_llr([0, 0, 0, 0, 40], 0, 30) == pytest.approx(40 * math.log(0.543112 / 0.5), abs=0.01)


def test_paired_estimate_worked_by_hand() -> None:
    """[5, 15, 40, 25, 15]: mean (15/4 + 40/2 + 25*3/4 + 15) / 100 = 0.575; mean of squares 0.4,
    variance 0.4 - 0.575^2 = 0.069375; half-width 1.96 sqrt(0.069375 / 100) = 0.05162."""
    e = paired_estimate([5, 15, 40, 25, 15])
    assert e.pairs == 100 and e.score == pytest.approx(0.575)
    assert e.score_low == pytest.approx(0.575 - 0.051624, abs=1e-5)
    assert e.score_high == pytest.approx(0.575 + 0.051624, abs=1e-5)
    assert e.elo == pytest.approx(400 * math.log10(0.575 / 0.425))  # 52.51
    assert e.elo == pytest.approx(52.51, abs=0.01)
    assert e.elo_low == pytest.approx(400 * math.log10(0.523376 / 0.476624), abs=0.01)
    # every pair a whole win: the interval collapses and the Elo is unbounded
    sweep = paired_estimate([0, 0, 0, 0, 7])
    assert (sweep.score, sweep.score_low, sweep.elo) == (1.0, 1.0, math.inf)


def test_duplicate_sprt_verdicts() -> None:
    a_wins = DuplicateSprt(elo0=0, elo1=30)
    verdicts = [a_wins.update([0, 0, 0, 0, n]) for n in range(1, 60)]  # 44 pairs: 44 ln(s1/s0) > ln(0.95/0.025)
    assert "A" in verdicts and verdicts[-1] == "A" and a_wins.decisions == {"A": "H1", "B": "H0"}
    b_wins = DuplicateSprt(elo0=0, elo1=30)
    assert [b_wins.update([n, 0, 0, 0, 0]) for n in range(1, 60)][-1] == "B"
    level = DuplicateSprt(elo0=0, elo1=30)
    assert [level.update([n, 2 * n, 6 * n, 2 * n, n]) for n in range(1, 40)][-1] == "no difference shown"
    # a side's decision stands once taken, even if later counts would cross its other bound
    sticky = DuplicateSprt(elo0=0, elo1=30)
    assert sticky.update([40, 0, 0, 0, 0]) is None  # A: 40 ln(0.457/0.5) < -2.97, H0; B: 3.3, open
    assert sticky.decisions == {"A": "H0", "B": None}
    assert sticky.update([40, 0, 0, 0, 400]) == "no difference shown"
    assert sticky.decisions == {"A": "H0", "B": "H0"}
    with pytest.raises(ValueError):
        DuplicateSprt(elo0=10, elo1=5)


def test_forfeited_seats_rank_last() -> None:
    assert forfeit_last([1, 2, 3]) == [1, 2, 3]
    assert forfeit_last([1, 2, 3], ["forfeited", "ok", "ok"]) == [3, 1, 2]  # its autopilot's win is not its own
    assert forfeit_last([1, 1, 3], ["ok", "ok", "ok"]) == [1, 1, 3]
    assert forfeit_last([2, 1, 1], ["ok", "forfeited", "forfeited"]) == [1, 2, 2]
    assert head_to_head([1, 2], ["forfeited", "ok"], 0, 1) == 0.0
    assert head_to_head([1, 2], None, 0, 1) == 1.0
    assert head_to_head([2, 1, 1], None, 1, 2) == 0.5
    assert head_to_head([1, 2, 3], ["ok", "forfeited", "forfeited"], 1, 2) == 0.5


def test_batch_fit_recovers_known_strengths() -> None:
    """Three bots at Elo 0, 100, 200 (centred: -100, 0, +100) play 3000 two-seat games drawn from
    the logistic model, and 1000 three-seat games from Plackett–Luce; the fit's intervals cover the
    truth and are narrower than 40 points."""
    pytest.importorskip("choix")
    from arena.competitions.stats.batch import fit_plackett_luce

    rng = random.Random(1)  # over 60 seeds the intervals covered the truth 97 % of the time
    elo = {"weak": 0.0, "middle": 100.0, "strong": 200.0}
    rankings = []
    for _ in range(3000):
        x, y = rng.sample(sorted(elo), 2)
        x_wins = rng.random() < logistic_score(elo[x] - elo[y])
        rankings.append({x: 1, y: 2} if x_wins else {x: 2, y: 1})
    for _ in range(1000):  # Plackett–Luce: each place drawn in proportion to 10^(elo/400)
        left, order = sorted(elo), []
        while left:
            pick = rng.choices(left, [10 ** (elo[e] / 400) for e in left])[0]
            order.append(pick)
            left.remove(pick)
        rankings.append({e: place for place, e in enumerate(order, 1)})
    fit = fit_plackett_luce(rankings)
    for name, truth in (("weak", -100.0), ("middle", 0.0), ("strong", 100.0)):
        rating = fit[name]
        assert rating.low <= truth <= rating.high, (name, rating)
        assert rating.high - rating.low < 40
    assert fit["strong"].games == sum("strong" in r for r in rankings)


def test_batch_fit_keeps_an_unbeaten_bot_finite_and_ties_symmetric() -> None:
    pytest.importorskip("choix")
    from arena.competitions.stats.batch import fit_plackett_luce

    fit = fit_plackett_luce([{"a": 1, "b": 2}] * 20)
    assert math.isfinite(fit["a"].elo) and fit["a"].elo > fit["b"].elo and math.isfinite(fit["a"].high)
    tied = fit_plackett_luce([{"x": 1, "y": 1, "z": 3}] * 10 + [{"x": 2, "y": 1, "z": 3}, {"x": 1, "y": 2, "z": 3}])
    assert tied["x"].elo == pytest.approx(tied["y"].elo, abs=1e-6) and tied["x"].elo > tied["z"].elo
    assert fit_plackett_luce([]) == {}


def test_statistics_are_pure() -> None:
    """No Django, Celery or I/O in arena/stats: only the standard library, numpy and choix."""
    for path in (ROOT / "arena" / "stats").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top in ("__future__", "numpy", "choix"), f"{path}: {name}"
                assert top not in ("os", "io", "pathlib", "socket", "subprocess"), f"{path}: {name}"
