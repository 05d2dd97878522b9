"""Honest ladder statistics: a forfeited seat is rated last and never credited with its autopilot's
win; the batch Plackett–Luce fit over a ladder's matches orders bots of known strength, with
intervals, and the ladder page shows it beside μ ± σ. (pytest-django: the ``db`` and ``client``
fixtures; skipped where pytest-django has no Django settings.)"""
from __future__ import annotations

import itertools
import random

import pytest

pytest.importorskip("pytest_django")
from django.conf import settings

if not settings.configured:
    pytest.skip("Django settings are not configured for pytest-django", allow_module_level=True)

from django.urls import reverse

from arena.bots.house_entrants import house_version
from arena.competitions.ladder import ladder_rankings, refit_ladder, standard_ladder
from arena.models import Match, MatchSeat, Rating
from arena.competitions.ratings import rate_match
from arena.competitions.stats import logistic_score

pytestmark = pytest.mark.django_db
GAME = "tussie-mussie"
KEYS = itertools.count(1)


def finished(versions, ranks, statuses=None) -> Match:
    """A recorded two-seat match on the standard ladder, rated as the arena rates it."""
    number = next(KEYS)
    match = Match.objects.create(key=f"test/{number}", game=GAME, seed=number, status=Match.FINISHED,
                                 options=default_options(), ladder=standard_ladder(GAME))
    for seat, (version, rank) in enumerate(zip(versions, ranks)):
        MatchSeat.objects.create(match=match, seat=seat, bot_version=version, rank=rank, score=10 - rank,
                                 status=(statuses or ["ok"] * len(versions))[seat])
    rate_match(match)
    return match


def default_options() -> dict:
    from referee.games import GAMES

    return dict(GAMES[GAME].configure(2).options)


def test_a_forfeited_seat_is_rated_last_and_never_wins() -> None:
    quitter, stayer = house_version(GAME, "random"), house_version(GAME, "greedy")
    finished([quitter, stayer], ranks=[1, 2], statuses=["forfeited", "ok"])  # its autopilot came first
    ladder = standard_ladder(GAME)
    q, s = (Rating.objects.get(ladder=ladder, bot_version=v) for v in (quitter, stayer))
    assert (q.games, q.wins) == (1, 0) and (s.games, s.wins) == (1, 1)
    assert s.mu > q.mu  # rated as if the stayer had won
    assert ladder_rankings(ladder) == [{quitter.pk: 2, stayer.pk: 1}]


def test_batch_fit_orders_bots_of_known_strength_and_shows_on_the_ladder(client) -> None:
    rng = random.Random(3)
    elo = {"random": 0.0, "random#2": 200.0, "greedy": 400.0}
    versions = {name: house_version(GAME, name) for name in elo}
    for _ in range(90):
        x, y = rng.sample(sorted(elo), 2)
        x_wins = rng.random() < logistic_score(elo[x] - elo[y])
        finished([versions[x], versions[y]], ranks=[1, 2] if x_wins else [2, 1])
    ladder = standard_ladder(GAME)
    assert refit_ladder(ladder) == 90
    fits = {name: Rating.objects.get(ladder=ladder, bot_version=v) for name, v in versions.items()}
    assert fits["greedy"].fit_elo > fits["random#2"].fit_elo > fits["random"].fit_elo
    assert sum(f.fit_elo for f in fits.values()) == pytest.approx(0, abs=1e-6)  # centred on the mean
    for name, truth in elo.items():  # the truth, centred, lies in each interval
        assert fits[name].fit_low <= truth - 200 <= fits[name].fit_high, (name, fits[name].fit_low, fits[name].fit_high)
    page = client.get(reverse("ladder", args=[GAME]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Batch fit (Elo, 95 %)" in text and "μ ± σ" in text
    greedy = fits["greedy"]
    assert f"{greedy.fit_elo:+.0f} [{greedy.fit_low:+.0f}, {greedy.fit_high:+.0f}]" in text
    assert f"{greedy.mu:.2f} ± {greedy.sigma:.2f}" in text
