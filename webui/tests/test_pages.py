"""Public pages, the ladder (bounded queries, sorting, pages), tournaments, escaping, accounts."""
from __future__ import annotations

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from arena.ladder import standard_ladder
from arena.models import Bot, Entry, Match, MatchSeat, Rating, RatingHistory, Round, Tournament

from .helpers import WebTestCase, SCRIPT, bot, match, replay_file, user


class PublicPagesTest(WebTestCase):
    def setUp(self):
        self.alice = user("alice")
        self.mine = bot(self.alice, "Alicebot")
        self.house = bot(None, "random", kind=Bot.HOUSE)
        self.finished = match([self.mine, self.house], ranks=[1, 2], scores=[20, 10], replay=replay_file())

    def test_every_public_page_answers_anonymous_visitors(self):
        pages = [reverse("home"), reverse("tournaments"), reverse("bot", args=[self.mine.pk]),
                 reverse("match", args=[self.finished.pk]), reverse("solo", args=["tussie-mussie"]),
                 reverse("login"), reverse("signup")]
        pages += [reverse("ladder", args=[game]) for game in ("tussie-mussie", "tricky-twist", "misty", "bszzzz")]
        for url in pages:
            self.assertEqual(self.client.get(url).status_code, 200, url)

    def test_home_lists_the_four_games_and_recent_matches(self):
        page = self.client.get(reverse("home")).content.decode()
        for name in ("Tussie Mussie", "Tricky Twist", "Misty", "Bszzzz!"):
            self.assertIn(name, page)
        self.assertIn(reverse("match", args=[self.finished.pk]), page)
        self.assertIn("Alicebot", page)

    def test_unknown_game_and_objects_are_404(self):
        self.assertEqual(self.client.get("/ladder/chess/").status_code, 404)
        self.assertEqual(self.client.get(reverse("bot", args=[9999])).status_code, 404)
        self.assertEqual(self.client.get(reverse("match", args=[9999])).status_code, 404)
        self.assertEqual(self.client.get(reverse("tournament", args=[9999])).status_code, 404)

    def test_match_page_shows_seats_and_includes_the_viewer(self):
        response = self.client.get(reverse("match", args=[self.finished.pk]))
        page = response.content.decode()
        self.assertIn("Alicebot", page)
        self.assertIn(reverse("replay_json", args=[self.finished.pk]), page)
        self.assertIn("webui/viewer.html", [t.name for t in response.templates])

    def test_bot_page_draws_the_rating_history(self):
        rating = Rating.objects.create(ladder=standard_ladder("tussie-mussie"), bot_version=self.mine.versions.get(),
                                       mu=27, sigma=6, games=2, wins=1)
        for mu in (25.5, 27):
            other = match([self.mine, self.house], ranks=[1, 2], scores=[2, 1])
            RatingHistory.objects.create(rating=rating, match=other, mu=mu, sigma=6)
        response = self.client.get(reverse("bot", args=[self.mine.pk]))
        self.assertContains(response, "<svg")
        self.assertContains(response, "<polyline")
        self.assertEqual(response.context["chart"]["count"], 2)
        self.assertContains(response, "v1")

    def test_static_css_is_served(self):
        response = self.client.get("/static/webui/site.css")
        self.assertEqual(response.status_code, 200)

    def test_solo_high_scores(self):
        solo = bot(self.alice, "Solist")
        match([solo], variant="solo", ranks=[1], scores=[31])
        match([solo], variant="solo", ranks=[1], scores=[44])
        match([solo], variant="solo", status=Match.RUNNING)
        page = self.client.get(reverse("solo", args=["tussie-mussie"])).content.decode()
        self.assertIn("Solist", page)
        self.assertLess(page.index(">44<"), page.index(">31<"))


class LadderTest(WebTestCase):
    def make(self, count: int, game: str = "misty") -> str:
        key = standard_ladder(game)
        owners = [user(f"owner{i}") for i in range(3)]
        for i in range(count):
            b = bot(owners[i % 3] if i % 4 else None, f"bot{i:03d}", game=game)
            Rating.objects.create(ladder=key, bot_version=b.versions.get(), mu=25 + i, sigma=8 - i * 0.1,
                                  games=i, wins=i // 2)
        return key

    def queries(self, url: str) -> int:
        with CaptureQueriesContext(connection) as context:
            self.assertEqual(self.client.get(url).status_code, 200)
        return len(context.captured_queries)

    def test_query_count_does_not_grow_with_the_number_of_bots(self):
        url = reverse("ladder", args=["misty"])
        self.make(5)
        few = self.queries(url)
        Rating.objects.all().delete()
        self.make_more(50)
        with self.assertNumQueries(few):
            self.client.get(url)
        with self.assertNumQueries(few):
            self.client.get(url + "?sort=-win_rate&page=2")

    def make_more(self, count: int) -> None:
        key = standard_ladder("misty")
        for i in range(count):
            b = bot(None, f"more{i:03d}", game="misty")
            Rating.objects.create(ladder=key, bot_version=b.versions.get(), mu=20 + i, sigma=5, games=3, wins=1)

    def test_rank_columns_sorting_and_pages(self):
        self.make(30)
        response = self.client.get(reverse("ladder", args=["misty"]))
        rows = list(response.context["page"].object_list)
        self.assertEqual(len(rows), 25)
        self.assertEqual(rows[0]["name"], "bot029")  # best mu - 3 sigma
        self.assertEqual(rows[0]["rank"], 1)
        self.assertAlmostEqual(rows[0]["conservative"], rows[0]["mu"] - 3 * rows[0]["sigma"])
        self.assertAlmostEqual(rows[0]["win_rate"], 14 / 29)
        self.assertEqual(rows[0]["win_text"], "48%")
        self.assertContains(response, f'<a href="{reverse("bot", args=[rows[0]["bot_id"]])}">bot029</a>')
        page = response.content.decode()
        for heading in ("Rank", "Bot", "Owner", "Win rate", "Games"):
            self.assertIn(heading, page)
        by_name = self.client.get(reverse("ladder", args=["misty"]) + "?sort=bot").context["page"].object_list
        self.assertEqual(by_name[0]["name"], "bot000")
        self.assertEqual(by_name[0]["rank"], 30)  # the rank stays the ladder's rank
        second = self.client.get(reverse("ladder", args=["misty"]) + "?page=2").context["page"].object_list
        self.assertEqual(len(second), 5)
        zero_games = self.client.get(reverse("ladder", args=["misty"]) + "?sort=-games").context["page"].object_list
        self.assertEqual(zero_games[0]["win_rate"], 0.0)  # bot000 has no games: no division by zero
        for bad in ("?sort=password", "?sort=-", "?page=x", "?ladder=../../etc"):
            self.assertEqual(self.client.get(reverse("ladder", args=["misty"]) + bad).status_code, 200, bad)

    def test_other_ladders_of_a_game_by_key(self):
        b = bot(None, "variantbot", game="misty")
        Rating.objects.create(ladder="misty/beginner/round_cap=7,smile_pairs=disjoint", bot_version=b.versions.get(),
                              mu=30, sigma=2)
        default = self.client.get(reverse("ladder", args=["misty"]))
        self.assertNotContains(default, "variantbot")
        chosen = self.client.get(reverse("ladder", args=["misty"]), {"ladder": "misty/beginner/round_cap=7,smile_pairs=disjoint"})
        self.assertContains(chosen, "variantbot")


class TournamentPageTest(WebTestCase):
    def test_standings_crosstable_rounds_and_progress(self):
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
        response = self.client.get(reverse("tournament", args=[t.pk]))
        self.assertEqual(response.status_code, 200)
        standings = response.context["standings"]
        self.assertEqual([row["label"] for row in standings], ["ann", "ben", "cat"])
        cross = {row["label"]: row["cells"] for row in response.context["crosstable"]}
        self.assertEqual(cross["ann"], [None, 1.0, 1.0])
        self.assertEqual(cross["ben"], [0.5, None, 0.5])
        self.assertEqual(cross["cat"], [0.0, 0.0, None])
        self.assertEqual((response.context["done"], response.context["total"]), (1, 2))
        self.assertContains(response, "1 of 2 matches finished")
        listing = self.client.get(reverse("tournaments"))
        self.assertContains(listing, "Cup")
        self.assertContains(listing, "1 / 2")
        self.assertContains(self.client.get(reverse("home")), "Cup")


class EscapingTest(WebTestCase):
    def test_a_bot_named_like_a_script_is_escaped_everywhere(self):
        owner = user("mallory")
        evil = bot(owner, SCRIPT, game="misty")
        other = bot(None, "random", game="misty", kind=Bot.HOUSE)
        Rating.objects.create(ladder=standard_ladder("misty"), bot_version=evil.versions.get(), mu=25, sigma=8)
        played = match([evil, other], game="misty", ranks=[1, 2], scores=[3, 1])
        t = Tournament.objects.create(name=SCRIPT, game="misty", format=Tournament.SWISS, rounds=1, table_size=2, seed=1)
        Entry.objects.create(tournament=t, bot_version=evil.versions.get(), label=SCRIPT)
        self.client.force_login(owner)
        urls = [reverse("home"), reverse("ladder", args=["misty"]), reverse("bot", args=[evil.pk]),
                reverse("match", args=[played.pk]), reverse("tournament", args=[t.pk]), reverse("tournaments"),
                reverse("my_bots")]
        for url in urls:
            page = self.client.get(url).content.decode()
            self.assertNotIn(SCRIPT, page, url)
            self.assertIn("&lt;script&gt;", page, url)


class AccountsTest(WebTestCase):
    def test_sign_up_log_out_by_post_log_in(self):
        response = self.client.post(reverse("signup"), {"username": "newbie", "password1": "a-long-pass-phrase-9",
                                                        "password2": "a-long-pass-phrase-9"})
        self.assertRedirects(response, reverse("home"))
        self.assertContains(self.client.get(reverse("home")), "newbie")
        self.assertEqual(self.client.get(reverse("logout")).status_code, 405)  # logout by POST only
        self.client.post(reverse("logout"))
        self.assertNotContains(self.client.get(reverse("home")), "My bots")
        response = self.client.post(reverse("login"), {"username": "newbie", "password": "a-long-pass-phrase-9"})
        self.assertRedirects(response, reverse("home"))

    def test_csrf_is_enforced(self):
        owner = user("carol")
        mine = bot(owner, "Carolbot")
        client = Client(enforce_csrf_checks=True)
        client.force_login(owner)
        response = client.post(reverse("bot_active", args=[mine.pk]), {"active": "0"})
        self.assertEqual(response.status_code, 403)
        mine.refresh_from_db()
        self.assertTrue(mine.active)
