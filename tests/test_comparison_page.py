"""A comparison from a bot page, for its owner only: asked with the form, recorded, queued, played
by the driver (here with the in-process player, house bots only), and its figures on its page.
(pytest-django: ``db``, ``client``; skipped where pytest-django has no Django settings.)"""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytest_django")
from django.conf import settings

if not settings.configured:
    pytest.skip("Django settings are not configured for pytest-django", allow_module_level=True)

from django.contrib.auth.models import User
from django.urls import reverse

from arena.competitions import comparison_requests
from arena.competitions.sequential_comparison import LocalPlayer
from arena.competitions.comparison_requests import run_recorded
from arena.bots.house_entrants import house_version
from arena.models import Bot, BotVersion, Comparison
from arena.road import replay_copies

pytestmark = pytest.mark.django_db
GAME = "tussie-mussie"


@pytest.fixture
def owned():
    owner = User.objects.create_user("ada", password="pw-ada-12345")
    bot = Bot.objects.create(owner=owner, name="mine", game=GAME, kind=Bot.UPLOAD)
    BotVersion.objects.create(bot=bot, number=1, spec="uploads/mine.py:Mine")
    return owner, bot


def test_only_the_owner_sees_and_asks_for_comparisons(client, owned, monkeypatch,
                                                      django_capture_on_commit_callbacks) -> None:
    owner, bot = owned
    User.objects.create_user("eve", password="pw-eve-12345")
    client.login(username="eve", password="pw-eve-12345")
    assert "Is one version stronger?" not in client.get(reverse("bot", args=[bot.pk])).content.decode()
    greedy, random_ = house_version(GAME, "greedy"), house_version(GAME, "random")
    assert client.post(reverse("comparison_start", args=[bot.pk]), {"a": greedy.pk, "b": random_.pk}).status_code == 403
    assert not Comparison.objects.exists()

    client.login(username="ada", password="pw-ada-12345")
    assert "Is one version stronger?" in client.get(reverse("bot", args=[bot.pk])).content.decode()
    queued = []
    monkeypatch.setattr(comparison_requests, "enqueue_comparison", queued.append)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("comparison_start", args=[bot.pk]),
                               {"a": greedy.pk, "b": random_.pk, "elo1": "40", "max_games": "400"})
    comparison = Comparison.objects.get()
    assert response.status_code == 302 and response.url == reverse("comparison", args=[comparison.pk])
    assert queued == [comparison.pk]
    assert (comparison.owner, comparison.a, comparison.b, comparison.elo1, comparison.max_games, comparison.players) == \
        (owner, greedy, random_, 40.0, 400, 2)
    assert "No game played yet" in client.get(response.url).content.decode()

    # the same version twice, or a version of someone else's bot, is refused
    client.post(reverse("comparison_start", args=[bot.pk]), {"a": greedy.pk, "b": greedy.pk})
    stranger = Bot.objects.create(owner=User.objects.get(username="eve"), name="theirs", game=GAME, kind=Bot.UPLOAD)
    theirs = BotVersion.objects.create(bot=stranger, number=1, spec="uploads/theirs.py:Theirs")
    client.post(reverse("comparison_start", args=[bot.pk]), {"a": theirs.pk, "b": greedy.pk})
    assert Comparison.objects.count() == 1

    client.login(username="eve", password="pw-eve-12345")
    assert client.get(reverse("comparison", args=[comparison.pk])).status_code == 404  # as if there were none


def test_a_recorded_comparison_plays_to_its_verdict_and_shows_its_figures(client, owned) -> None:
    owner, bot = owned
    from arena.competitions.comparison_requests import start_comparison

    comparison = start_comparison(owner, bot, house_version(GAME, "greedy"), house_version(GAME, "random"))
    assert run_recorded(comparison.pk, player=LocalPlayer()) == Comparison.FINISHED
    comparison.refresh_from_db()
    assert comparison.verdict == "A" and comparison.figures["verdict"] == "A"
    assert comparison.figures["games"] == 2 * comparison.figures["pairs"] > 0
    client.login(username="ada", password="pw-ada-12345")
    page = client.get(reverse("comparison", args=[comparison.pk])).content.decode()
    assert "<strong>house greedy is stronger than house random: +" in page and "Score of A (95 % interval)" in page
    assert "Cancel this comparison" not in page  # over: nothing to cancel
    assert f"{comparison.figures['wins']} / {comparison.figures['draws']} / {comparison.figures['losses']}" in page
    assert 'http-equiv="refresh"' not in page  # finished: the page no longer follows it
    assert run_recorded(comparison.pk, player=LocalPlayer()) == Comparison.FINISHED  # played once only


def test_a_comparison_plays_its_games_on_the_one_road(client, owned, monkeypatch) -> None:
    """The site's comparisons use the arena's runner and recording function: every game is an
    unrated match with its replay, and a comparison run again finds its games played."""
    from arena.models import Match, Rating

    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/15")  # the live frames, as on the platform
    owner, bot = owned
    greedy, random_ = house_version(GAME, "greedy"), house_version(GAME, "random")
    comparison = comparison_requests.start_comparison(owner, bot, greedy, random_, max_games=4)
    assert run_recorded(comparison.pk) == Comparison.FINISHED
    games = Match.objects.filter(key__startswith=f"compare/{comparison.pk}/")
    assert games.count() == 4 and all(m.status == Match.FINISHED and not m.rated and m.replay_path for m in games)
    # the viewer's parts are made as the match is recorded, not on its first view (issue 40)
    assert all(p.is_file() for m in games for p in replay_copies.part_paths(Path(m.replay_path)).values())
    assert not Rating.objects.exists()
    comparison.refresh_from_db()
    assert comparison.figures["games"] == 4
    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.RUNNING)
    assert run_recorded(comparison.pk) == Comparison.FINISHED  # its games were played: none again
    assert Match.objects.filter(key__startswith=f"compare/{comparison.pk}/").count() == 4
    client.login(username="ada", password="pw-ada-12345")
    page = client.get(reverse("comparison", args=[comparison.pk])).content.decode()
    assert "Its games (4)" in page and all(reverse("match", args=[m.pk]) in page for m in games)
    assert "No difference shown between house greedy and house random (after 4 games" in page  # the cap


def test_earlier_versions_are_offered_and_bad_settings_are_explained(client, owned,
                                                                     django_capture_on_commit_callbacks) -> None:
    owner, bot = owned
    v1 = bot.versions.get()
    v1.state = BotVersion.RETIRED  # a newer upload retired it
    v1.save()
    v2 = BotVersion.objects.create(bot=bot, number=2, spec="uploads/mine2.py:Mine")
    client.login(username="ada", password="pw-ada-12345")
    page = client.get(reverse("bot", args=[bot.pk])).content.decode()
    assert f'<option value="{v1.pk}">mine v1 (earlier)</option>' in page  # still there to compare with
    assert "mine v1 (yours, earlier)" in page  # and to challenge
    url = reverse("comparison_start", args=[bot.pk])
    for given, said in ((dict(elo1="abc"), "Elo difference to detect: Enter a number."),
                        (dict(elo1="1e308", max_games="99999999999"),
                         "Elo difference to detect: Ensure this value is less than or equal to 1000.0.; "
                         "At most (games): Ensure this value is less than or equal to 20000."),
                        (dict(b=v2.pk), "A and B are the same: choose two different versions")):
        refused = client.post(url, {"a": v2.pk, "b": v1.pk, **given}, follow=True).content.decode()
        assert f"Comparison not started: {said}" in refused.replace("&quot;", '"'), given
    assert not Comparison.objects.exists()
    with django_capture_on_commit_callbacks(execute=False):
        client.post(url, {"a": v2.pk, "b": v1.pk, "elo1": "20", "max_games": "600"})
    assert Comparison.objects.values_list("a", "b", "elo1", "max_games").get() == (v2.pk, v1.pk, 20.0, 600)


def test_a_comparison_shows_its_progress_and_is_cancelled(client, owned) -> None:
    """Two equal bots: no verdict soon. After its first batch the page shows the games and each
    side's test between its bounds; the owner's cancel stops it before its next game."""
    owner, bot = owned
    from arena.competitions.comparison_requests import start_comparison

    comparison = start_comparison(owner, bot, house_version(GAME, "random"), house_version(GAME, "random#2"), elo1=5)
    client.login(username="ada", password="pw-ada-12345")
    local, seen = LocalPlayer(), {}

    def player(specs):
        if "page" not in seen:  # the first batch: nothing to show yet
            seen["page"] = None
        else:  # the second: the page shows the first, and its owner cancels
            seen["page"] = client.get(reverse("comparison", args=[comparison.pk])).content.decode()
            client.post(reverse("comparison_cancel", args=[comparison.pk]))
        return local(specs)

    assert run_recorded(comparison.pk, player=player) == Comparison.CANCELLED
    page = seen["page"]
    assert "16 of at most 2000 games" in page and page.count("<meter") == 2 and "Cancel this comparison" in page
    comparison.refresh_from_db()
    assert comparison.status == Comparison.CANCELLED and comparison.figures["games"] == 32
    page = client.get(reverse("comparison", args=[comparison.pk])).content.decode()
    assert "Cancelled after 32 games." in page and 'http-equiv="refresh"' not in page
