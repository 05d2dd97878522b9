"""Website speed with a big database, beside a trivial Django view timed in the same run.

    python bench/web.py [--bots 10000] [--matches 200000] [--requests 30] [--json]

Fills a fresh SQLite database (a temporary PARLOUR_HOME) with N bots rated on one ladder and M
finished two-seat matches, then times the ladder page, a match page and a trivial view through
Django's test client (the server's time: no network). Ratios, not absolutes, are the figures to
compare. First target: the ladder page within 10x the trivial view (served from the cache of its
ladder's edition, arena/competitions/ladder_editions.py); its time right after a match, uncached, is
printed beside it. Then a bot page with 10,000 rated matches (one more bot, its charts and record
included) beside a trivial view timed right before it: target within 10x (served from the cache of its
record, webui/views/bot_record_cache.py; its time right after a match, uncached, is printed beside it).

Then a 6-seat Bszzzz replay (random bots) on a real site (gunicorn, tests/browser_site.py): its size
on the wire as a browser asks for it (gzip accepted) and, when Debian's chromium is installed, the
time from the match page's navigation to the viewer's first drawn step (its ``viewer-ready``
mark), median of three loads, and the first view of a freshly recorded copy (``first_view_ms``); the
time a page joining it live at two thirds takes to show the newest frame (``live_catch_up_ms``); and the size of the first part the viewer fetches (everything but the
seats' own views, which it fetches when a seat's perspective is picked: webui/views/matches.py).
Targets: <= 1.5 MB on the wire, ready, first view and live catch-up <= 1 s on localhost.

Then spectators (``--spectators N``, default 1,000; 0 skips): N viewers, asyncio clients on raw
sockets in this process, follow 10 running matches through one web service (``python -m webui serve``
with its default workers, tests/browser_site.py) as the page's viewer.js does, a long poll of
live.json from the next step, again at once. No bots play: a thread writes one frame per match per
second through ``arena.road.live_frames.LiveMatch``, as the arena's runner writes them, each frame
saying when it was written. After 10 s to connect everyone, for 20 s: the home page's p95 (a new
visitor's request, four a second) and the p95 delay from a frame written to Redis to a viewer
reading it (``"spectators": {"1000": {"home_p95_ms", "frame_delay_p95_ms", ...}}``). Targets: both
<= 1 s. The clients share the machine's cores with the site.

Then ``--people N`` (default 50; 0 skips it; ``--people-only`` runs nothing else) people play at once
against an instant house bot through a real site, worker and referee (bench/people_load.py): from
the answer's POST to the page's state showing the next decision, median <= 300 ms and p95 <= 1 s,
and the CPU each decision costs. Recorded in its own section (web/people).
"""
from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # browser_site: the site and browser the browser tests use

from benchmarks_doc import add_record_flag, record, verdict  # noqa: E402


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

    from arena.competitions.ladder import standard_ladder
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


def fill_busy_bot(ladder: str, matches: int = 10_000) -> int:
    """One more bot with ``matches`` finished, rated two-seat matches against the filled bots (one
    rating row after each): the bot page's record, chart and recent matches at their biggest."""
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from arena.models import Bot, BotVersion, Match, MatchSeat, Rating, RatingHistory

    rng = random.Random(2)
    opponents = list(BotVersion.objects.exclude(bot__name="busy").values_list("pk", flat=True)[:500])
    start = timezone.now() - timedelta(days=30)
    with transaction.atomic():
        owner = get_user_model().objects.create(username="busy-owner")
        bot = Bot.objects.create(owner=owner, name="busy", game="tussie-mussie", kind=Bot.UPLOAD)
        versions = [BotVersion.objects.create(bot=bot, number=n, spec="random") for n in (1, 2)]
        rating = Rating.objects.create(ladder=ladder, bot_version=versions[1], mu=25, sigma=2, games=matches, wins=0)
        made = Match.objects.bulk_create(
            [Match(key=f"busy/{i}", game="tussie-mussie", seed=i, status=Match.FINISHED, ladder=ladder,
                   finished=start + timedelta(minutes=i), result={"scores": [20, 18], "ranks": [1, 2]})
             for i in range(matches)], batch_size=2000)
        seats = []
        for i, match in enumerate(made):
            mine, other = (0, 1) if i % 2 else (1, 0)
            won = rng.random() < 0.5
            seats += [MatchSeat(match=match, seat=mine, bot_version=versions[i * 2 // matches], score=20 if won else 18,
                                rank=1 if won else 2, status="ok"),
                      MatchSeat(match=match, seat=other, bot_version_id=rng.choice(opponents), score=18 if won else 20,
                                rank=2 if won else 1, status="ok")]
        MatchSeat.objects.bulk_create(seats, batch_size=4000)
        RatingHistory.objects.bulk_create(
            [RatingHistory(rating=rating, match=match, mu=25 + rng.gauss(0, 1), sigma=max(1.0, 8 - i / 1000),
                           created=start + timedelta(minutes=i)) for i, match in enumerate(made)], batch_size=4000)
    return bot.pk


def median_ms(client, url: str, requests: int, before=None) -> float:
    client.get(url)  # warm
    times = []
    for _ in range(requests):
        if before:
            before()
        start = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - start)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(times) * 1000


def replay_figures(players: int = 6, seed: int = 3) -> dict:
    """Wire size and viewer-ready time of a big replay (see the module's docstring)."""
    import subprocess
    import urllib.request

    from browser_site import CHROMIUM, chromium, make_match, running_site

    with tempfile.TemporaryDirectory() as home:
        replay = Path(home) / "bszzzz-6.replay.json.gz"
        subprocess.run([sys.executable, "-m", "bots_sdk", "play", "bszzzz", *["random"] * players, "--seed", str(seed),
                        "--replay", str(replay)], cwd=ROOT, check=True, capture_output=True)
        raw = len(gzip.decompress(replay.read_bytes()))
        (Path(home) / "site").mkdir()  # its Redis (live frames) keeps its socket there
        with running_site(Path(home) / "site") as site:
            match_id = make_match(site, "bench/bszzzz", "bszzzz", players, "finished", seed=seed, replay=str(replay),
                                  result={"scores": [0] * players, "ranks": list(range(1, players + 1))})

            def wire_size(query: str = "") -> tuple[int, str]:
                request = urllib.request.Request(f"{site.url}/matches/{match_id}/replay.json{query}",
                                                 headers={"Accept-Encoding": "gzip, deflate, br"})
                with urllib.request.urlopen(request) as response:
                    return len(response.read()), response.headers.get("Content-Encoding", "")

            wire, encoding = wire_size()
            first, _ = wire_size("?part=spectator")  # what the viewer needs to draw; the seats' views wait
            seats, _ = wire_size("?part=seats")  # until a seat's perspective is picked
            figures = {"replay_steps": len(json.loads(gzip.decompress(replay.read_bytes()))["log"]),
                       "replay_json_mb": round(raw / 1e6, 2), "replay_wire_mb": round(wire / 1e6, 3),
                       "replay_encoding": encoding, "first_part_wire_mb": round(first / 1e6, 3),
                       "seats_part_wire_mb": round(seats / 1e6, 3), "viewer_ready_ms": None,
                       "first_view_ms": None, "live_catch_up_ms": None, "step_ms": None}
            if Path(CHROMIUM).exists():
                times = []
                with chromium() as browser:
                    figures["first_view_ms"] = first_view_ms(site, browser, replay, players, seed)
                    figures["live_catch_up_ms"] = live_catch_up_ms(site, browser, replay, players)
                    figures["step_ms"] = step_ms(site, browser, match_id)
                    for _ in range(3):
                        page = browser.new_page(viewport={"width": 1280, "height": 900})
                        page.goto(f"{site.url}/matches/{match_id}/")
                        page.wait_for_selector("#viewer[data-ready]", timeout=60_000)
                        times.append(page.evaluate("performance.getEntriesByName('viewer-ready')[0].startTime"))
                        page.close()
                figures["viewer_ready_ms"] = round(statistics.median(times))
    return figures


def first_view_ms(site, browser, replay: Path, players: int, seed: int) -> int:
    """A freshly recorded replay (a copy stored, its parts made as recording makes them), its first
    view: from the match page's navigation to the viewer's first drawn step."""
    import shutil

    from arena.road import replay_copies
    from browser_site import make_match

    fresh = replay.with_name("fresh-" + replay.name)
    shutil.copy(replay, fresh)
    replay_copies.prepare(fresh)
    match_id = make_match(site, "bench/fresh", "bszzzz", players, "finished", seed=seed, replay=str(fresh),
                          result={"scores": [0] * players, "ranks": list(range(1, players + 1))})
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{site.url}/matches/{match_id}/")
    page.wait_for_selector("#viewer[data-ready]", timeout=60_000)
    ready = page.evaluate("performance.getEntriesByName('viewer-ready')[0].startTime")
    page.close()
    return round(ready)


STEP_CLICKS = 40


def step_ms(site, browser, match_id: int) -> float:
    """Stepping through a replay: the median time of one step forward (the viewer draws a step
    synchronously: the click, then a forced layout), over STEP_CLICKS steps from its middle."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{site.url}/matches/{match_id}/")
    page.wait_for_selector("#viewer[data-ready]", timeout=60_000)
    times = page.evaluate("""(clicks) => {
        const viewer = document.getElementById("viewer"), forward = document.getElementById("viewer-forward");
        const slider = document.getElementById("viewer-slider");
        if (slider) { slider.value = String(Math.floor(Number(slider.max) / 2)); slider.dispatchEvent(new Event("input")); }
        const times = [];
        for (let i = 0; i < clicks; i++) {
            const start = performance.now();
            forward.click();
            void viewer.offsetHeight;  // the layout the step causes, counted
            times.push(performance.now() - start);
        }
        return times;
    }""", STEP_CLICKS)
    page.close()
    return round(statistics.median(times), 1)


def live_catch_up_ms(site, browser, replay: Path, players: int) -> int:
    """A page joining the same match live at two thirds of its steps: from the navigation until the
    page shows the newest frame."""
    from arena.road import live_frames
    from browser_site import make_match, shown_step, wait_until

    frames = [json.dumps(f) for f in json.loads(gzip.decompress(replay.read_bytes()))["public"]]
    head = len(frames) * 2 // 3
    match_id = make_match(site, "bench/live", "bszzzz", players, "running")
    live_frames.LiveMatch(match_id, site.redis()).add(0, frames[:head])
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    started = time.perf_counter()
    page.goto(f"{site.url}/matches/{match_id}/")
    wait_until(lambda: shown_step(page) == head - 1, timeout=60)
    elapsed = time.perf_counter() - started
    page.close()
    return round(elapsed * 1000)


# --- spectators: many viewers following live matches through one web service (issue 39) -------------

SPECTATOR_MATCHES = 10


async def http_get(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str) -> tuple[int, bytes]:
    """One HTTP/1.1 GET on a kept-alive connection: (status, body)."""
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n".encode())
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in
               (line.partition(b":") for line in head.split(b"\r\n")[1:] if line)}
    if b"content-length" in headers:
        return status, await reader.readexactly(int(headers[b"content-length"]))
    body = b""
    while True:  # chunked
        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
        chunk = await reader.readexactly(size + 2)
        if not size:
            return status, body
        body += chunk[:-2]


async def spectator(port: int, match_id: int, measuring: dict, delays: list[float], errors: list[str]) -> None:
    """A viewer as the page's viewer.js follows a live match: a long poll from the next step, again at once."""
    start = 0
    while not measuring["over"]:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            try:
                while not measuring["over"]:
                    status, body = await http_get(reader, writer, f"/matches/{match_id}/live.json?from={start}")
                    now = time.time()
                    if status != 200:
                        raise OSError(f"HTTP {status}")
                    news = json.loads(body)
                    delays.extend(now - f["d"]["sent"] for f in news["frames"] if f["d"]["sent"] >= measuring["from"])
                    start = news["first"] + len(news["frames"])
            finally:
                writer.close()
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            errors.append(type(exc).__name__)
            await asyncio.sleep(1)


async def home_prober(port: int, measuring: dict, times: list[float]) -> None:
    """The home page as a new visitor asks for it (a new connection), four times a second."""
    while not measuring["over"]:
        started = time.perf_counter()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        status, _ = await http_get(reader, writer, "/")
        writer.close()
        if time.time() >= measuring["from"] and status == 200:
            times.append(time.perf_counter() - started)
        await asyncio.sleep(0.25)


def publish_frames(site, match_ids: list[int], every: float, stop: threading.Event) -> None:
    """The arena's side, without bots: a frame for each match every ``every`` seconds, written through
    LiveMatch as the runner writes them, each saying when it was written."""
    from arena.road.live_frames import LiveMatch

    feeds = [LiveMatch(m, site.redis()) for m in match_ids]
    step = 0
    while not stop.wait(every):
        for feed in feeds:
            feed.add(step, [json.dumps({"d": {"sent": time.time()}})])
        step += 1


def p95_ms(values: list[float]) -> float | None:
    return round(statistics.quantiles(values, n=20)[-1] * 1000, 1) if len(values) >= 2 else None


def spectators_figures(count: int, seconds: float = 20, every: float = 1.0) -> dict:
    """``count`` viewers spread over SPECTATOR_MATCHES running matches, following them through one site
    (``python -m webui serve`` with its default workers) while frames come at a steady rate: the home
    page's p95 and the p95 delay from a frame written to Redis to a viewer reading it."""
    import resource

    from browser_site import make_match, running_site

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4 * count + 1024)), hard))
    with tempfile.TemporaryDirectory() as home, running_site(Path(home), serve_args=()) as site:
        match_ids = [make_match(site, f"bench/spectators/{i}", "tussie-mussie", 2, "running")
                     for i in range(SPECTATOR_MATCHES)]
        stop = threading.Event()
        publisher = threading.Thread(target=publish_frames, args=(site, match_ids, every, stop), daemon=True)
        publisher.start()
        delays: list[float] = []
        home_times: list[float] = []
        errors: list[str] = []

        async def run() -> None:
            measuring = {"from": time.time() + 10, "over": False}  # 10 s to connect everyone first
            viewers = []
            for i in range(count):
                viewers.append(asyncio.create_task(
                    spectator(site.port, match_ids[i % len(match_ids)], measuring, delays, errors)))
                if i % 50 == 49:
                    await asyncio.sleep(0.1)
            prober = asyncio.create_task(home_prober(site.port, measuring, home_times))
            await asyncio.sleep(max(0.0, measuring["from"] - time.time()) + seconds)
            measuring["over"] = True
            for task in [*viewers, prober]:
                task.cancel()
            await asyncio.gather(*viewers, prober, return_exceptions=True)

        asyncio.run(run())
        stop.set()
        publisher.join()
    expected = seconds / every * count
    return {"home_p95_ms": p95_ms(home_times), "home_requests": len(home_times),
            "frame_delay_p95_ms": p95_ms(delays), "frames_read": len(delays),
            "frames_read_share": round(len(delays) / expected, 2), "errors": len(errors)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=10_000)
    parser.add_argument("--matches", type=int, default=200_000)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-replay", action="store_true", help="skip the replay's wire size and viewer time")
    parser.add_argument("--spectators", type=int, default=1000,
                        help="viewers following live matches through one web service (0: skip)")
    add_people_flags(parser)
    add_record_flag(parser)
    args = parser.parse_args()
    if args.people_only:
        people_main(args)
        return
    with tempfile.TemporaryDirectory() as home:
        setup(home)
        started = time.perf_counter()
        match_id, ladder = fill(args.bots, args.matches)
        filled = time.perf_counter() - started
        from django.test import Client

        client = Client()
        trivial = median_ms(client, "/trivial/", args.requests)
        ladder_ms = median_ms(client, "/ladder/tussie-mussie/", args.requests)
        from arena.competitions import ladder_editions

        # the same page right after a recorded match: a new edition, so nothing cached serves it
        fresh_ms = median_ms(client, "/ladder/tussie-mussie/", args.requests, lambda: ladder_editions.renew("tussie-mussie"))
        match_ms = median_ms(client, f"/matches/{match_id}/", args.requests)
        # a bot with 10,000 rated matches (its own fill, not counted in fill_seconds), beside a trivial
        # view timed right before it
        busy = fill_busy_bot(ladder)
        bot_trivial = median_ms(client, "/trivial/", args.requests)
        bot_ms = median_ms(client, f"/bots/{busy}/", args.requests)
        # right after a match of its game: a new ladder edition, so its cached record serves nothing
        bot_fresh_ms = median_ms(client, f"/bots/{busy}/", args.requests, lambda: ladder_editions.renew("tussie-mussie"))
    figures = {"bots": args.bots, "matches": args.matches, "fill_seconds": round(filled, 1),
               "trivial_ms": round(trivial, 3), "ladder_ms": round(ladder_ms, 3),
               "ladder_fresh_ms": round(fresh_ms, 3), "match_ms": round(match_ms, 3),
               "ladder_ratio": round(ladder_ms / trivial, 1), "match_ratio": round(match_ms / trivial, 1),
               "bot_page_10k": {"ratio": round(bot_ms / bot_trivial, 1), "ms": round(bot_ms, 3),
                                "trivial_ms": round(bot_trivial, 3), "fresh_ms": round(bot_fresh_ms, 3)}}
    if not args.no_replay:
        figures.update(replay_figures())
    if args.spectators:
        figures["spectators"] = {str(args.spectators): spectators_figures(args.spectators)}
    if args.people:
        figures.update(people_figures(args.people))
    if args.record:
        record_results(figures)
        if args.people:
            record_people(figures)
    if args.json:
        print(json.dumps(figures))
        return
    if args.people:
        print_people(figures)
    print(f"{args.bots} bots, {args.matches} matches (filled in {filled:.0f} s)")
    print(f"trivial view {trivial:.2f} ms · ladder page {ladder_ms:.2f} ms ({figures['ladder_ratio']}x, "
          f"target <= 10x; {fresh_ms:.2f} ms right after a match, {fresh_ms / trivial:.1f}x) · match page {match_ms:.2f} ms ({figures['match_ratio']}x)")
    bot_page = figures["bot_page_10k"]
    print(f"a bot page with 10,000 rated matches {bot_page['ms']:.2f} ms ({bot_page['ratio']}x a trivial view's "
          f"{bot_page['trivial_ms']:.2f} ms, target <= 10x; {bot_page['fresh_ms']:.2f} ms right after a match)")
    if not args.no_replay:
        ready = figures["viewer_ready_ms"]
        print(f"6-seat Bszzzz replay, {figures['replay_steps']} steps: {figures['replay_json_mb']} MB of JSON, "
              f"{figures['replay_wire_mb']} MB on the wire ({figures['replay_encoding'] or 'not compressed'}; "
              f"target <= 1.5 MB), of which the viewer's first part {figures['first_part_wire_mb']} MB "
              f"(the seats' views, {figures['seats_part_wire_mb']} MB, when a seat is picked) · viewer ready in "
              + (f"{ready} ms (target <= 1000 ms)" if ready is not None else "? (no chromium)"))
        if ready is not None:
            print(f"a freshly recorded one's first view {figures['first_view_ms']} ms · joining it live at two thirds, "
                  f"at the head in {figures['live_catch_up_ms']} ms (targets <= 1000 ms) · a step forward "
                  f"{figures['step_ms']} ms (target <= 50 ms)")
    for count, seen in figures.get("spectators", {}).items():
        print(f"{count} spectators following {SPECTATOR_MATCHES} live matches: the home page's p95 {seen['home_p95_ms']} ms, "
              f"a frame's delay to its viewers p95 {seen['frame_delay_p95_ms']} ms (targets <= 1000 ms; "
              f"{seen['frames_read_share']:.0%} of the frames read, {seen['errors']} errors)")


def record_results(f: dict) -> None:
    rows = [["a trivial Django view", f"{f['trivial_ms']:.2f} ms", "", ""],
            ["the ladder page", f"{f['ladder_ms']:.2f} ms", f"{f['ladder_ratio']}× the trivial view",
             f"≤ 10×: {verdict(f['ladder_ratio'] <= 10)}"],
            ["the ladder page right after a match (uncached)", f"{f['ladder_fresh_ms']:.2f} ms",
             f"{f['ladder_fresh_ms'] / f['trivial_ms']:.1f}× the trivial view", ""],
            ["a match page", f"{f['match_ms']:.2f} ms", f"{f['match_ratio']}× the trivial view", ""],
            ["a bot page with 10,000 rated matches (charts included)", f"{f['bot_page_10k']['ms']:.2f} ms",
             f"{f['bot_page_10k']['ratio']}× the trivial view ({f['bot_page_10k']['trivial_ms']:.2f} ms)",
             f"≤ 10×: {verdict(f['bot_page_10k']['ratio'] <= 10)}"],
            ["the bot page right after a match (uncached)", f"{f['bot_page_10k']['fresh_ms']:.2f} ms",
             f"{f['bot_page_10k']['fresh_ms'] / f['bot_page_10k']['trivial_ms']:.1f}× the trivial view", ""]]
    if "replay_wire_mb" in f:
        ready = f["viewer_ready_ms"]
        rows += [[f"a 6-seat Bszzzz replay ({f['replay_steps']} steps) on the wire", f"{f['replay_wire_mb']} MB",
                  f"{f['replay_json_mb']} MB of JSON, {f['replay_encoding'] or 'not compressed'}",
                  f"≤ 1.5 MB: {verdict(f['replay_wire_mb'] <= 1.5)}"],
                 ["its first part (all but the seats' views)", f"{f['first_part_wire_mb']} MB",
                  f"the seats' views: {f['seats_part_wire_mb']} MB, when a seat is picked", ""],
                 ["the viewer's first drawn step (median of 3 loads)",
                  "no chromium" if ready is None else f"{ready} ms", "from the match page's navigation",
                  "" if ready is None else f"≤ 1,000 ms: {verdict(ready <= 1000)}"]]
        if f.get("first_view_ms") is not None:
            rows += [["a freshly recorded one's first view", f"{f['first_view_ms']} ms", "parts made at recording",
                      f"≤ 1,000 ms: {verdict(f['first_view_ms'] <= 1000)}"],
                     ["joining it live at two thirds, until the newest frame shows", f"{f['live_catch_up_ms']} ms", "",
                      f"≤ 1,000 ms: {verdict(f['live_catch_up_ms'] <= 1000)}"],
                     ["a step forward (median of 40, from its middle)", f"{f['step_ms']} ms", "click to layout",
                      f"≤ 50 ms: {verdict(f['step_ms'] <= 50)}"]]
    for count, seen in f.get("spectators", {}).items():
        rows += [[f"the home page's p95 with {int(count):,} spectators following live matches",
                  f"{seen['home_p95_ms']} ms", f"{seen['home_requests']} requests, one web service (default workers)",
                  f"≤ 1,000 ms: {verdict((seen['home_p95_ms'] or 1e9) <= 1000)}"],
                 ["a frame's delay from Redis to its viewers (p95)", f"{seen['frame_delay_p95_ms']} ms",
                  f"{seen['frames_read_share']:.0%} of the frames read, {seen['errors']} errors",
                  f"≤ 1,000 ms: {verdict((seen['frame_delay_p95_ms'] or 1e9) <= 1000)}"]]
    record("web", "Web: pages with a big database, a big replay",
           f"A fresh SQLite database with {f['bots']:,} bots rated on one ladder and {f['matches']:,} finished "
           "matches; each page's median time through Django's test client (the server's time, no network) "
           "beside a trivial view timed in the same run; the bot page's bot has 10,000 finished, rated matches of its own. Then a 6-seat Bszzzz replay on a real site (gunicorn, "
           "Debian's chromium).",
           ["measure", "time or size", "beside", "target"], rows)


def add_people_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--people", type=int, default=50, help="people playing at once against a house bot (0: skip)")
    parser.add_argument("--people-only", action="store_true", help="measure the people at the table only")


def people_figures(people: int) -> dict:
    from people_load import people_figures as measure

    return measure(people)


def people_main(args: argparse.Namespace) -> None:
    figures = people_figures(args.people)
    if args.record:
        record_people(figures)
    if args.json:
        print(json.dumps(figures))
    else:
        print_people(figures)


def print_people(f: dict) -> None:
    h = f["human_decision_ms"]
    print(f"{h['people']} people at once, long-polling, thinking ~{h['think_s']} s a decision: an answer to the next decision shown "
          f"p50 {h['p50']} ms, p95 {h['p95']} ms (targets <= 300 ms, <= 1000 ms) over {h['decisions']} decisions; "
          f"published after p50 {h['published_p50']} ms, p95 {h['published_p95']} ms; "
          f"{h['cpu_ms_per_decision']} ms of CPU a decision ({h['cpu_ms_per_decision_by_part']}); "
          f"the site {h['site_cpu_ms_per_request']} ms a request; {h['matches_finished']} matches finished")


def record_people(f: dict) -> None:
    h = f["human_decision_ms"]
    rows = [["an answer until the page's state shows the next decision", f"p50 {h['p50']} ms, p95 {h['p95']} ms",
             f"{h['decisions']} decisions, the state long-polled as the page does, each person thinking ~{h['think_s']} s",
             f"p50 ≤ 300 ms: {verdict(h['p50'] <= 300)}; p95 ≤ 1,000 ms: {verdict(h['p95'] <= 1000)}"],
            ["an answer until the next decision is published (in Redis)",
             f"p50 {h['published_p50']} ms, p95 {h['published_p95']} ms", "the road's own share, no poll", ""],
            ["CPU a decision", f"{h['cpu_ms_per_decision']} ms",
             ", ".join(f"{part} {ms} ms" for part, ms in h["cpu_ms_per_decision_by_part"].items()), ""],
            ["the site's CPU a request (a poll or an answer)", f"{h['site_cpu_ms_per_request']} ms",
             f"{h['requests']:,} requests", ""],
            ["matches finished", f"{h['matches_finished']} of {h['people']}", f"in {h['seconds']} s", ""]]
    record("web/people", "Web: people at the table",
           f"{h['people']} people play Kuhn poker at once against the instant `random` house bot through a real "
           "site (gunicorn's uvicorn workers), Celery worker and referee on PostgreSQL and Redis, each a real HTTP "
           "client with its own signed-in session long-polling its table's state as the page does and answering each "
           f"decision after thinking {h['think_s'] / 2:g} to {h['think_s'] * 1.5:g} s (not timed).",
           ["measure", "time", "beside", "target"], rows)


if __name__ == "__main__":
    main()
