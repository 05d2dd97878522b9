"""Website speed with a big database, beside a trivial Django view timed in the same run.

    python bench/web.py [--bots 10000] [--matches 200000] [--requests 30] [--json]

Fills a fresh SQLite database (a temporary PARLOUR_HOME) with N bots rated on one ladder and M
finished two-seat matches, then times the ladder page, a match page and a trivial view through
Django's test client (the server's time: no network). Ratios, not absolutes, are the figures to
compare. First target: the ladder page within 10x the trivial view.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def setup(home: str) -> None:
    os.environ["PARLOUR_HOME"] = home
    os.environ.pop("DATABASE_URL", None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "parlour_site.settings"
    import django
    from django.conf import settings

    django.setup()
    from django.http import HttpResponse
    from django.urls import include, path

    urls = types.ModuleType("bench_urls")  # the site's URLs plus one trivial view
    urls.urlpatterns = [path("trivial/", lambda request: HttpResponse("ok")), path("", include("parlour_site.urls"))]
    sys.modules["bench_urls"] = urls
    settings.ROOT_URLCONF = "bench_urls"
    settings.ALLOWED_HOSTS = ["*"]
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def fill(bots: int, matches: int) -> tuple[int, str]:
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from arena.ladder import standard_ladder
    from arena.models import Bot, BotVersion, Match, MatchSeat, Rating

    rng = random.Random(1)
    ladder = standard_ladder("tussie-mussie")
    now = timezone.now()
    with transaction.atomic():
        users = get_user_model().objects.bulk_create(
            [get_user_model()(username=f"owner{i}") for i in range(bots // 10 + 1)])
        made = Bot.objects.bulk_create([Bot(owner=users[i // 10], name=f"bot{i}", game="tussie-mussie",
                                            kind=Bot.UPLOAD) for i in range(bots)], batch_size=2000)
        versions = BotVersion.objects.bulk_create([BotVersion(bot=b, number=1, spec="random") for b in made],
                                                  batch_size=2000)
        ratings = [Rating(ladder=ladder, bot_version=v, mu=rng.gauss(25, 3), sigma=rng.uniform(1, 8),
                          games=rng.randrange(1, 100), wins=0) for v in versions]
        for r in ratings:  # bulk_create skips save(), which keeps the stored conservative rating
            r.conservative = r.mu - 3 * r.sigma
        Rating.objects.bulk_create(ratings, batch_size=2000)
    step = 20_000
    for start in range(0, matches, step):
        with transaction.atomic():
            chunk = Match.objects.bulk_create(
                [Match(key=f"bench/{i}", game="tussie-mussie", seed=i, status=Match.FINISHED, ladder=ladder,
                       finished=now, result={"scores": [20, 18], "ranks": [1, 2]})
                 for i in range(start, min(matches, start + step))], batch_size=2000)
            seats = []
            for match in chunk:
                a, b = rng.sample(versions, 2)
                seats += [MatchSeat(match=match, seat=0, bot_version=a, score=20, rank=1, status="ok"),
                          MatchSeat(match=match, seat=1, bot_version=b, score=18, rank=2, status="ok")]
            MatchSeat.objects.bulk_create(seats, batch_size=4000)
    return Match.objects.order_by("-pk").values_list("pk", flat=True).first(), ladder


def median_ms(client, url: str, requests: int) -> float:
    client.get(url)  # warm
    times = []
    for _ in range(requests):
        start = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - start)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=10_000)
    parser.add_argument("--matches", type=int, default=200_000)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        setup(home)
        started = time.perf_counter()
        match_id, ladder = fill(args.bots, args.matches)
        filled = time.perf_counter() - started
        from django.test import Client

        client = Client()
        trivial = median_ms(client, "/trivial/", args.requests)
        ladder_ms = median_ms(client, "/ladder/tussie-mussie/", args.requests)
        match_ms = median_ms(client, f"/matches/{match_id}/", args.requests)
    figures = {"bots": args.bots, "matches": args.matches, "fill_seconds": round(filled, 1),
               "trivial_ms": round(trivial, 3), "ladder_ms": round(ladder_ms, 3), "match_ms": round(match_ms, 3),
               "ladder_ratio": round(ladder_ms / trivial, 1), "match_ratio": round(match_ms / trivial, 1)}
    if args.json:
        print(json.dumps(figures))
        return
    print(f"{args.bots} bots, {args.matches} matches (filled in {filled:.0f} s)")
    print(f"trivial view {trivial:.2f} ms · ladder page {ladder_ms:.2f} ms ({figures['ladder_ratio']}x, "
          f"target <= 10x) · match page {match_ms:.2f} ms ({figures['match_ratio']}x)")


if __name__ == "__main__":
    main()
