"""How a bot fares, on its page: the rating chart's points are its rating rows (μ, σ, one per rated
match, version changes marked), its head-to-head record and results by seat are a recount of its
matches; a tournament's crosstable is a recount of the tournament's matches."""
from __future__ import annotations

import random
import re
from collections import defaultdict
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from arena.models import Bot, BotVersion, Entry, Match, MatchSeat, Rating, RatingHistory, Round, Tournament

from .site_data import bot, match, user

pytestmark = pytest.mark.django_db
LADDER = "tussie-mussie/standard/"


def test_the_rating_chart_has_a_point_per_rating_row(client) -> None:
    mine = bot(user("ada"), "Mine")
    other = bot(None, "house")
    v2 = BotVersion.objects.create(bot=mine, number=2, spec="random", state=BotVersion.ACTIVE)
    start = timezone.now() - timedelta(days=1)
    for number, version in ((1, mine.versions.get(number=1)), (2, v2)):
        rating = Rating.objects.create(ladder=LADDER, bot_version=version, mu=25, sigma=8)
        for i in range(4):
            played = match([mine, other], ranks=[1, 2], scores=[3.0, 1.0])
            RatingHistory.objects.create(rating=rating, match=played, mu=24 + i + number, sigma=8 - i,
                                         created=start + timedelta(minutes=10 * number + i))
    response = client.get(reverse("bot", args=[mine.pk]))
    rows = list(RatingHistory.objects.filter(rating__bot_version__bot=mine).order_by("created")
                .values_list("match_id", "mu", "sigma", "rating__bot_version__number"))
    chart = response.context["chart"]
    assert [(d["match"], d["mu"], d["sigma"], d["version"]) for d in chart["dots"]] == rows
    page = response.content.decode()
    svg = page.split('id="rating-chart"', 1)[1].split("</svg>", 1)[0]
    assert [int(m) for m in re.findall(r'<circle [^>]*data-match="(\d+)"', svg)] == [r[0] for r in rows]
    assert [v["version"] for v in chart["versions"]] == [2]  # the version change, marked once
    assert 'class="band"' in svg and "<title>match" in svg


def test_head_to_head_and_results_by_seat_are_a_recount(client) -> None:
    mine, ann, ben = bot(user("ada"), "Mine"), bot(None, "ann"), bot(None, "ben")
    rng = random.Random(4)
    tables = []
    for i in range(12):
        seated = [mine, ann, ben] if i % 2 else [ann, mine]
        rng.shuffle(seated)
        scores = [float(rng.randint(0, 5)) for _ in seated]
        ranks = [1 + sum(other > score for other in scores) for score in scores]  # competition ranks, ties shared
        match(seated, ranks=ranks, scores=scores, variant="standard" if i % 3 else "short")
        tables.append((seated, ranks, scores))
    match([mine, ann], status=Match.RUNNING)  # not finished: not counted
    context = client.get(reverse("bot", args=[mine.pk])).context

    met: dict[str, list] = defaultdict(lambda: [0, 0, 0, []])
    by_seat: dict[int, list[int]] = defaultdict(list)
    for seated, ranks, scores in tables:
        s = seated.index(mine)
        by_seat[s].append(ranks[s])
        for o, other in enumerate(seated):
            if other is not mine:
                row = met[other.name]
                row[0 if ranks[s] < ranks[o] else 1 if ranks[s] > ranks[o] else 2] += 1
                row[3].append(scores[s] - scores[o])
    shown = {r["name"]: r for r in context["head_to_head"]}
    assert set(shown) == {"ann", "ben"}
    for name, (won, lost, level, differences) in met.items():
        row = shown[name]
        assert (row["wins"], row["losses"], row["level"], row["met"]) == (won, lost, level, len(differences))
        assert row["mean_difference"] == round(sum(differences) / len(differences), 2)
        assert row["low"] <= row["mean_difference"] <= row["high"]
    seats = {r["key"]: r for r in context["results_by"]["seat"]}
    assert {k: (r["seats"], r["wins"]) for k, r in seats.items()} == \
        {k: (len(v), v.count(1)) for k, v in by_seat.items()}
    assert {r["key"] for r in context["results_by"]["players"]} == {2, 3}
    assert {r["key"] for r in context["results_by"]["variant"]} == {"standard", "short"}
    # the record is cached until the bot finishes another match
    before = {r["name"]: r["met"] for r in context["head_to_head"]}
    match([mine, ben], ranks=[1, 2], scores=[5.0, 1.0])
    after = {r["name"]: r["met"] for r in client.get(reverse("bot", args=[mine.pk])).context["head_to_head"]}
    assert after == {**before, "ben": before["ben"] + 1}


def test_the_crosstable_is_a_recount_of_the_matches(client) -> None:
    bots = [bot(None, name) for name in ("ann", "ben", "cat", "dan")]
    t = Tournament.objects.create(name="Cup", game="tussie-mussie", format=Tournament.ROUND_ROBIN, rounds=3,
                                  table_size=3, seed=5, status=Tournament.FINISHED)
    entries = [Entry.objects.create(tournament=t, bot_version=b.versions.get(), label=b.name) for b in bots]
    rng = random.Random(7)
    recount: dict[tuple[str, str], float] = defaultdict(float)
    for number in range(1, 4):
        r = Round.objects.create(tournament=t, number=number)
        for table in range(2):
            seated = rng.sample(entries, 3)
            scores = [rng.randint(0, 3) for _ in seated]
            ranks = [1 + sum(other > score for other in scores) for score in scores]  # ties shared
            played = Match.objects.create(key=f"cup/{number}/{table}", game="tussie-mussie", seed=number,
                                          status=Match.FINISHED, tournament=t, round=r)
            for seat, (entry, rank) in enumerate(zip(seated, ranks)):
                MatchSeat.objects.create(match=played, seat=seat, bot_version=entry.bot_version, entry=entry,
                                         rank=rank, score=scores[seat], status="ok")
            for a, rank in zip(seated, ranks):
                for b in seated:
                    if a is not b:
                        recount[(a.label, b.label)] += (3 - rank) / 2
    response = client.get(reverse("tournament", args=[t.pk]))
    labels = response.context["labels"]
    for row in response.context["crosstable"]:
        for column, cell in zip(labels, row["cells"]):
            if column == row["label"]:
                assert cell is None
            elif (row["label"], column) in recount:
                assert cell == round(recount[(row["label"], column)], 2)
            else:
                assert cell == ""  # never met


def test_a_cached_bot_page_follows_every_change_it_shows(client, django_capture_on_commit_callbacks) -> None:
    """The bot page's record is cached (webui/views/bot_record_cache.py): after each change it shows,
    the owner's and a stranger's pages equal pages drawn afresh, and a stranger never sees the
    owner's parts."""
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from arena.road.lifecycle import PlayedMatch, record
    from referee.client import MatchOutcome, SeatOutcome

    ada = user("ada")
    mine, rival = bot(ada, "Mine"), bot(None, "Rival", kind=Bot.HOUSE)
    Rating.objects.create(ladder=LADDER, bot_version=mine.versions.get(), mu=25, sigma=8)
    Rating.objects.create(ladder=LADDER, bot_version=rival.versions.get(), mu=25, sigma=8)
    owner, stranger = Client(), client
    owner.force_login(ada)
    url = reverse("bot", args=[mine.pk])
    owner_only = ['id="notes-public"', "Log lines (only you see these)", 'id="webhooks"', "csrfmiddlewaretoken",
                  reverse("bot_active", args=[mine.pk]), "<th>Check</th>"]

    def seen(who: Client) -> str:  # the page, its CSRF tokens (new on each render) blanked
        return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', 'name="csrfmiddlewaretoken" value="-"', who.get(url).content.decode())

    def cached_and_fresh() -> dict[str, str]:
        pages = {"owner": seen(owner), "stranger": seen(stranger)}
        assert pages == {"owner": seen(owner), "stranger": seen(stranger)}  # served again from the cache
        cache.clear()
        assert pages == {"owner": seen(owner), "stranger": seen(stranger)}, "the cached page is what is drawn afresh"
        assert all(part in pages["owner"] for part in owner_only)
        assert not [part for part in owner_only if part in pages["stranger"]]
        return pages

    def committed():  # the test's transaction never commits: run what waits for the commit
        return django_capture_on_commit_callbacks(execute=True)

    first = cached_and_fresh()
    assert "Not rated yet." in first["stranger"] and "No matches yet." in first["stranger"]
    with CaptureQueriesContext(connection) as again:
        assert seen(stranger) == first["stranger"]
    assert not [q for q in again.captured_queries if "arena_rating" in q["sql"]], "served from the cache"

    # a match scheduled, then claimed (a bulk update: no signal), then recorded (rated)
    made = match([mine, rival], status=Match.SCHEDULED)
    assert f"#{made.pk}</a>" in cached_and_fresh()["stranger"]
    Match.objects.filter(pk=made.pk).update(status=Match.RUNNING)
    assert '<span class="status running">running</span>' in cached_and_fresh()["stranger"]
    seats = [SeatOutcome(score=s, rank=r, status="ok", fault_counts={}) for s, r in ((9.0, 1), (1.0, 2))]
    played = PlayedMatch(outcome=MatchOutcome(match_id="m", status="finished", seats=seats, replay_gz=None,
                                              result={"scores": [9.0, 1.0], "ranks": [1, 2]}), replay_path="")
    with committed():
        assert record(made.pk, played)
    after_match = cached_and_fresh()["stranger"]
    assert 'id="rating-chart"' in after_match and "over 1 rated match " in after_match
    assert "Rival</a> (1, #2)" in after_match and 'id="head-to-head"' in after_match
    # a rating changed (saved), a new version, the bot and its opponent renamed
    with committed():
        rating = Rating.objects.get(bot_version__bot=mine)
        rating.mu, rating.sigma = 31.5, 2.25
        rating.save()
    assert "μ 31.50 ± 2.25" in cached_and_fresh()["stranger"]
    BotVersion.objects.create(bot=mine, number=2, spec="random", state=BotVersion.PENDING)
    assert "<td>v2</td>" in cached_and_fresh()["stranger"]
    with committed():
        mine.name = "Renamed"
        mine.save()
        rival.name = "Foe"
        rival.save()
    renamed = cached_and_fresh()["stranger"]
    assert "<h1>Renamed</h1>" in renamed and "Foe</a> (1, #2)" in renamed and "Rival" not in renamed
    # the owner's switch: its notes public
    with committed():
        owner.post(reverse("bot_notes_public", args=[mine.pk]), {"public": "1"})
    assert "now public" in seen(owner)  # its message, shown once
    assert "Show its notes to me only" in cached_and_fresh()["owner"]
