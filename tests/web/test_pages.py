"""Public pages, the ladder (bounded queries, sorting, pages), tournaments, escaping, accounts."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pytest_django.asserts import assertContains, assertNotContains, assertRedirects

from arena.competitions.ladder import standard_ladder
from arena.models import Bot, Entry, Match, MatchSeat, Rating, RatingHistory, Round, Tournament

from .site_data import SCRIPT, bot, match, user

pytestmark = pytest.mark.django_db


# ---------------------------------------------------------------------- public pages
@pytest.fixture
def public(replay_file) -> SimpleNamespace:
    alice = user("alice")
    mine = bot(alice, "Alicebot")
    house = bot(None, "random", kind=Bot.HOUSE)
    finished = match([mine, house], ranks=[1, 2], scores=[20, 10], replay=replay_file)
    return SimpleNamespace(alice=alice, mine=mine, house=house, finished=finished)


def test_every_public_page_answers_anonymous_visitors(client, public) -> None:
    pages = [reverse("home"), reverse("tournaments"), reverse("bot", args=[public.mine.pk]),
             reverse("match", args=[public.finished.pk]), reverse("solo", args=["tussie-mussie"]),
             reverse("login"), reverse("signup")]
    pages += [reverse("ladder", args=[game]) for game in ("tussie-mussie", "tricky-twist", "misty", "bszzzz")]
    for url in pages:
        assert client.get(url).status_code == 200, url


def test_home_lists_the_four_games_and_recent_matches(client, public) -> None:
    page = client.get(reverse("home")).content.decode()
    for name in ("Tussie Mussie", "Tricky Twist", "Misty", "Bszzzz!"):
        assert name in page
    assert reverse("match", args=[public.finished.pk]) in page
    assert "Alicebot" in page


def test_unknown_game_and_objects_are_404(client, public) -> None:
    assert client.get("/ladder/chess/").status_code == 404
    assert client.get(reverse("bot", args=[9999])).status_code == 404
    assert client.get(reverse("match", args=[9999])).status_code == 404
    assert client.get(reverse("tournament", args=[9999])).status_code == 404


def test_match_page_shows_seats_and_includes_the_viewer(client, public) -> None:
    response = client.get(reverse("match", args=[public.finished.pk]))
    page = response.content.decode()
    assert "Alicebot" in page
    assert reverse("replay_json", args=[public.finished.pk]) in page
    assert "webui/viewer.html" in [t.name for t in response.templates]
    # the game's card texts for the viewer's tooltips, from the engine's data through the arena
    assert '<script id="viewer-card-texts" type="application/json">' in page and '"Red Rose"' in page


def test_bot_page_draws_the_rating_history(client, public) -> None:
    rating = Rating.objects.create(ladder=standard_ladder("tussie-mussie"), bot_version=public.mine.versions.get(),
                                   mu=27, sigma=6, games=2, wins=1)
    for mu in (25.5, 27):
        other = match([public.mine, public.house], ranks=[1, 2], scores=[2, 1])
        RatingHistory.objects.create(rating=rating, match=other, mu=mu, sigma=6)
    response = client.get(reverse("bot", args=[public.mine.pk]))
    assertContains(response, "<svg")
    assertContains(response, "<polyline")
    assert response.context["chart"]["count"] == 2
    assertContains(response, "v1")


def test_static_css_is_served(client, public) -> None:
    response = client.get("/static/webui/site.css")
    assert response.status_code == 200


def test_solo_high_scores(client, public) -> None:
    solo = bot(public.alice, "Solist")
    match([solo], variant="solo", ranks=[1], scores=[31])
    match([solo], variant="solo", ranks=[1], scores=[44])
    match([solo], variant="solo", status=Match.RUNNING)
    page = client.get(reverse("solo", args=["tussie-mussie"])).content.decode()
    assert "Solist" in page
    assert page.index(">44<") < page.index(">31<")


# ---------------------------------------------------------------------- the ladder
def rated(count: int, game: str = "misty") -> str:
    """``count`` bots rated on the game's standard ladder, a quarter of them house bots."""
    key = standard_ladder(game)
    owners = [user(f"owner{i}") for i in range(3)]
    for i in range(count):
        b = bot(owners[i % 3] if i % 4 else None, f"bot{i:03d}", game=game)
        Rating.objects.create(ladder=key, bot_version=b.versions.get(), mu=25 + i, sigma=8 - i * 0.1,
                              games=i, wins=i // 2)
    return key


def test_query_count_does_not_grow_with_the_number_of_bots(client, django_assert_num_queries,
                                                         django_capture_on_commit_callbacks) -> None:
    url = reverse("ladder", args=["misty"])
    with django_capture_on_commit_callbacks(execute=True):  # a new edition of the ladder: read anew
        rated(5)
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    few = len(captured.captured_queries)
    with django_capture_on_commit_callbacks(execute=True):
        Rating.objects.all().delete()
        key = standard_ladder("misty")
        for i in range(50):
            b = bot(None, f"more{i:03d}", game="misty")
            Rating.objects.create(ladder=key, bot_version=b.versions.get(), mu=20 + i, sigma=5, games=3, wins=1)
    with django_assert_num_queries(few):
        client.get(url)
    with django_assert_num_queries(few):
        client.get(url + "?sort=-win_rate&page=2")


def test_rank_columns_sorting_and_pages(client) -> None:
    rated(30)
    response = client.get(reverse("ladder", args=["misty"]))
    rows = list(response.context["page"].object_list)
    assert len(rows) == 25
    assert rows[0]["name"] == "bot029"  # best mu - 3 sigma
    assert rows[0]["rank"] == 1
    assert rows[0]["conservative"] == pytest.approx(rows[0]["mu"] - 3 * rows[0]["sigma"], abs=5e-8)
    assert rows[0]["win_rate"] == pytest.approx(14 / 29, abs=5e-8)
    assert rows[0]["win_text"] == "48%"
    # the name cut with an ellipsis when long, whole (with its version) on hover
    assertContains(response, f'<a class="long-name" href="{reverse("bot", args=[rows[0]["bot_id"]])}" '
                             f'title="bot029 v{rows[0]["version"]}">bot029</a>')
    page = response.content.decode()
    for heading in ("Rank", "Bot", "Owner", "Win rate", "Games"):
        assert heading in page
    by_name = client.get(reverse("ladder", args=["misty"]) + "?sort=bot").context["page"].object_list
    assert by_name[0]["name"] == "bot000"
    assert by_name[0]["rank"] == 30  # the rank stays the ladder's rank
    second = client.get(reverse("ladder", args=["misty"]) + "?page=2").context["page"].object_list
    assert len(second) == 5
    zero_games = client.get(reverse("ladder", args=["misty"]) + "?sort=-games").context["page"].object_list
    assert zero_games[0]["win_rate"] == 0.0  # bot000 has no games: no division by zero
    for bad in ("?sort=password", "?sort=-", "?page=x", "?ladder=../../etc"):
        assert client.get(reverse("ladder", args=["misty"]) + bad).status_code == 200, bad


def test_other_ladders_of_a_game_by_key(client) -> None:
    b = bot(None, "variantbot", game="misty")
    Rating.objects.create(ladder="misty/beginner/round_cap=7,smile_pairs=disjoint", bot_version=b.versions.get(),
                          mu=30, sigma=2)
    default = client.get(reverse("ladder", args=["misty"]))
    assertNotContains(default, "variantbot")
    chosen = client.get(reverse("ladder", args=["misty"]), {"ladder": "misty/beginner/round_cap=7,smile_pairs=disjoint"})
    assertContains(chosen, "variantbot")


def ladder_cells(client, key: str) -> dict[str, list[str]]:
    """The ladder table as a reader sees it: each bot's row, by its name, as the cells' texts."""
    import re

    page = client.get(reverse("ladder", args=["tussie-mussie"]), {"ladder": key}).content.decode()
    body = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0] if "<tbody>" in page else ""
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
        cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        rows[cells[1].split()[0]] = cells
    return rows


def test_a_cached_ladder_page_follows_every_change_it_shows(client, django_capture_on_commit_callbacks) -> None:
    from arena.competitions.ladder import refit_ladder
    from arena.road.lifecycle import PlayedMatch, record
    from referee.client import MatchOutcome, SeatOutcome

    owner = user("ada")
    ann, ben, cal = bot(owner, "Ann"), bot(owner, "Ben"), bot(None, "Cal", kind=Bot.HOUSE)
    key = "tussie-mussie/standard/"  # the ladder of a match without options, as match() makes them
    for i, b in enumerate((ann, ben, cal)):
        Rating.objects.create(ladder=key, bot_version=b.versions.get(), mu=30 - i, sigma=1, games=3, wins=1,
                              fit_elo=100.0 - 50 * i, fit_low=0.0, fit_high=200.0)
    # every change below is committed (the test's transaction never is: run what waits for the commit)
    def committed():
        return django_capture_on_commit_callbacks(execute=True)

    first = ladder_cells(client, key)
    assert first["Ann"][0] == "1" and first["Ben"][6] == "3" and first["Cal"][5] == "+0 [+0, +200]"
    with CaptureQueriesContext(connection) as again:
        assert ladder_cells(client, key) == first
    assert not [q for q in again.captured_queries if "arena_rating" in q["sql"]], "served from the cache"

    # a recorded match (Ben beats Ann): new ratings, games and ranks
    made = match([ann, ben], status=Match.SCHEDULED)
    seats = [SeatOutcome(score=s, rank=r, status="ok", fault_counts={}) for s, r in ((1.0, 2), (9.0, 1))]
    played = PlayedMatch(outcome=MatchOutcome(match_id="m", status="finished", seats=seats, replay_gz=None,
                                              result={"scores": [1.0, 9.0], "ranks": [2, 1]}), replay_path="")
    with committed():
        assert record(made.pk, played)
    after_match = ladder_cells(client, key)
    assert after_match["Ben"][6] == "4" and after_match["Ann"][6] == "4"
    assert after_match["Ben"][3] != first["Ben"][3]
    # the batch fit (no match of this ladder has seats with ranks but the recorded one)
    with committed():
        refit_ladder(key)
    assert ladder_cells(client, key)["Cal"][5] == "—"
    # the owner switches Ben off, then deletes Ann: both leave the ladder
    client.force_login(owner)
    with committed():
        client.post(reverse("bot_active", args=[ben.pk]), {"active": "0"})
    assert "Ben" not in ladder_cells(client, key)
    with committed():
        client.post(reverse("bot_delete", args=[ann.pk]), {"confirm": "Ann"})
    assert list(ladder_cells(client, key)) == ["Cal"]


# ---------------------------------------------------------------------- tournaments
def test_standings_crosstable_rounds_and_progress(client) -> None:
    bots = [bot(None, name) for name in ("ann", "ben", "cat")]
    t = Tournament.objects.create(name="Cup", game="tussie-mussie", format=Tournament.SWISS, rounds=2,
                                  table_size=3, seed=5, status=Tournament.RUNNING)
    entries = [Entry.objects.create(tournament=t, bot_version=b.versions.get(), label=b.name) for b in bots]
    r1 = Round.objects.create(tournament=t, number=1)
    played = Match.objects.create(key="t/1", game="tussie-mussie", seed=1, status=Match.FINISHED,
                                  tournament=t, round=r1, result={"ranks": [1, 2, 3]})
    for seat, (entry, rank) in enumerate(zip(entries, [1, 2, 3])):
        MatchSeat.objects.create(match=played, seat=seat, bot_version=entry.bot_version, entry=entry, rank=rank,
                                 score=10 - rank, status="ok")
    r2 = Round.objects.create(tournament=t, number=2)
    live = Match.objects.create(key="t/2", game="tussie-mussie", seed=2, status=Match.SCHEDULED, tournament=t, round=r2)
    for seat, entry in enumerate(entries):
        MatchSeat.objects.create(match=live, seat=seat, bot_version=entry.bot_version, entry=entry)
    response = client.get(reverse("tournament", args=[t.pk]))
    assert response.status_code == 200
    standings = response.context["standings"]
    assert [row["label"] for row in standings] == ["ann", "ben", "cat"]
    cross = {row["label"]: row["cells"] for row in response.context["crosstable"]}
    assert cross["ann"] == [None, 1.0, 1.0]
    assert cross["ben"] == [0.5, None, 0.5]
    assert cross["cat"] == [0.0, 0.0, None]
    assert (response.context["done"], response.context["total"]) == (1, 2)
    assertContains(response, "1 of 2 matches finished")
    listing = client.get(reverse("tournaments"))
    assertContains(listing, "Cup")
    assertContains(listing, "1 / 2")
    assertContains(client.get(reverse("home")), "Cup")
    assert [r.shown_status for r in response.context["rounds"]] == ["finished", "playing"]
    assert response.context["playing"] == [] and "data-refresh-seconds" in response.content.decode()
    # the second round's match is being played: the tournament's page and the home page list it
    Match.objects.filter(pk=live.pk).update(status=Match.RUNNING)
    assert [row["match"].pk for row in client.get(reverse("tournament", args=[t.pk])).context["playing"]] == [live.pk]
    home = client.get(reverse("home"))
    assert [row["match"].pk for row in home.context["playing"]] == [live.pk]
    assertContains(home, f'href="/matches/{live.pk}/"')
    # over: every round says finished, and the page no longer refreshes itself
    Match.objects.filter(pk=live.pk).update(status=Match.ABORTED)
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.FINISHED)
    over = client.get(reverse("tournament", args=[t.pk]))
    assert [r.shown_status for r in over.context["rounds"]] == ["finished", "finished"]
    assert "data-refresh-seconds" not in over.content.decode()


# ---------------------------------------------------------------------- escaping
def test_a_bot_named_like_a_script_is_escaped_everywhere(client) -> None:
    owner = user("mallory")
    evil = bot(owner, SCRIPT, game="misty")
    other = bot(None, "random", game="misty", kind=Bot.HOUSE)
    Rating.objects.create(ladder=standard_ladder("misty"), bot_version=evil.versions.get(), mu=25, sigma=8)
    played = match([evil, other], game="misty", ranks=[1, 2], scores=[3, 1])
    t = Tournament.objects.create(name=SCRIPT, game="misty", format=Tournament.SWISS, rounds=1, table_size=2, seed=1)
    Entry.objects.create(tournament=t, bot_version=evil.versions.get(), label=SCRIPT)
    client.force_login(owner)
    urls = [reverse("home"), reverse("ladder", args=["misty"]), reverse("bot", args=[evil.pk]),
            reverse("match", args=[played.pk]), reverse("tournament", args=[t.pk]), reverse("tournaments"),
            reverse("my_bots")]
    for url in urls:
        page = client.get(url).content.decode()
        assert SCRIPT not in page, url
        assert "&lt;script&gt;" in page, url


# ---------------------------------------------------------------------- accounts
def test_sign_up_log_out_by_post_log_in(client) -> None:
    response = client.post(reverse("signup"), {"username": "newbie", "password1": "a-long-pass-phrase-9",
                                               "password2": "a-long-pass-phrase-9"}, follow=True)
    assert response.redirect_chain == [(reverse("learn"), 302)]  # the short path: write a bot, test it, upload it
    assertContains(response, "Welcome, newbie")
    assertContains(client.get(reverse("home")), "newbie")
    assert client.get(reverse("logout")).status_code == 405  # logout by POST only
    client.post(reverse("logout"))
    assertNotContains(client.get(reverse("home")), "My bots")
    response = client.post(reverse("login"), {"username": "newbie", "password": "a-long-pass-phrase-9"})
    assertRedirects(response, reverse("home"))


def test_csrf_is_enforced() -> None:
    owner = user("carol")
    mine = bot(owner, "Carolbot")
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    response = client.post(reverse("bot_active", args=[mine.pk]), {"active": "0"})
    assert response.status_code == 403
    mine.refresh_from_db()
    assert mine.active
