"""People at the table under load, for bench/web.py ``--people N``: N people play at once against an
instant house bot through the real site (gunicorn, ``python -m webui serve``), a real Celery worker
and referee, PostgreSQL and a private redis-server, each person a real HTTP client with its own
signed-in session (log in, post the "play against" form, long-poll ``state.json``, post answers).

Two figures per decision, from the moment the person's answer is posted:

- ``human_decision_ms``: until the page's state shows the next decision, the clients long-polling
  ``state.json`` as the page does (``table.js``: from what it shows, answered once that changes);
- ``published_ms``: until the next decision was published in Redis (its clock's ``started``: the
  road's own share, without the page's poll).

Each person thinks ``THINK_SECONDS`` (0.5 to 1.5 times it) before each answer, not timed.

CPU per decision: the site's, the worker's (its pool and house bots) and the referee's processes' CPU
time over the run, divided by the decisions answered.
"""
from __future__ import annotations

import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from person_client import Person  # noqa: E402 - a signed-in person's HTTP session, shared with the tests

GAME, OPPONENT = "kuhn-poker", "random"  # ten short hands; random answers at once
# a person's pace, on average: people who answered the instant a decision showed would ask the site
# for ~50 decisions a second, which no table of people does
THINK_SECONDS = 2.0


def play(person: Person, start: threading.Barrier, out: dict) -> None:
    """Start a table and play it to the end like the page: long-poll, answer each new decision at once
    (the first action), time the answer until the next decision shows."""
    person.get(f"/learn/{GAME}/")  # the form's CSRF cookie, as a person opening the page
    start.wait()
    try:
        play_table(person, out)
    except Exception as exc:  # noqa: BLE001 - counted and shown: the run goes on for the others
        out.update(error=repr(exc))


def play_table(person: Person, out: dict) -> None:
    table = person.post_form(f"/learn/{GAME}/play/", {"variant": "standard", "opponent": OPPONENT})
    path = urllib.parse.urlparse(table).path
    assert re.fullmatch(r"/table/\d+/", path), table
    shown, answered_at, times, published, refused, requests = None, None, [], [], 0, 0
    deadline, query = time.monotonic() + 300, ""
    while time.monotonic() < deadline:
        state = json.loads(person.get(path + "state.json" + query))
        requests += 1
        decision = state["decision"]
        if state["status"] in ("finished", "aborted"):
            out.update(status=state["status"])
            break
        if decision and decision["decision_id"] != shown:
            now = time.time()
            if answered_at is not None:
                times.append(now - answered_at)
                published.append(decision["clock"]["started"] - answered_at)
            shown = decision["decision_id"]
            time.sleep(THINK_SECONDS * random.uniform(0.5, 1.5))  # a person reads the table before clicking
            answered_at = time.time()
            code, _ = person.post_json(path + "answer/", {"decision_id": shown, "index": 0})
            requests += 1
            refused += code != 200
        query = f"?after={decision['decision_id'] if decision else ''}&status={state['status']}"
    out.update(times=times, published=published, refused=refused, match=path, requests=requests)


def cpu_seconds(pids: list[int]) -> float:
    """The CPU time of these processes and all their descendants alive now."""
    import psutil

    total = 0.0
    for pid in pids:
        try:
            root = psutil.Process(pid)
            for process in [root, *root.children(recursive=True)]:
                times = process.cpu_times()
                total += times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return total


def percentile(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1] if len(values) > 1 else values[0]


def people_figures(people: int = 50) -> dict:
    """Run the load (see the module's docstring) and return its figures."""
    from browser_site import free_port, redis_server_binary
    from test_arena_e2e import Platform

    with tempfile.TemporaryDirectory() as home:
        redis_port = free_port()
        redis_server = subprocess.Popen([redis_server_binary(), "--port", str(redis_port), "--save", "",
                                         "--appendonly", "no", "--dir", home], stdout=subprocess.DEVNULL)
        platform = Platform(Path(home), "postgres", redis_url=f"redis://127.0.0.1:{redis_port}/0")
        site = None
        try:
            # a pool process per table: every person's match plays at once
            platform.env.update(PARLOUR_WORKERS=str(people), PARLOUR_PERSON_DECISION_SECONDS="60",
                                PYTHONPATH=str(ROOT), DJANGO_SETTINGS_MODULE="parlour_site.settings")
            subprocess.run([sys.executable, "-m", "webui", "migrate"], env=platform.env, cwd=ROOT, check=True,
                           capture_output=True)
            # the house bot made once beforehand, as on a site where anyone played it before: made by
            # many first tables at once, it races (NULL owners do not collide in its unique constraint)
            make_users = ("import django\ndjango.setup()\nfrom django.contrib.auth.models import User\n"
                          "from arena.bots.house_entrants import house_version\n"
                          f"house_version({GAME!r}, {OPPONENT!r})\n"
                          f"for i in range({people}): User.objects.create_user(f'person{{i}}', password='pw-person')")
            subprocess.run([sys.executable, "-c", make_users], env=platform.env, cwd=ROOT, check=True)
            port = free_port()
            site_log = open(Path(home) / "site.log", "w")
            site = subprocess.Popen([sys.executable, "-m", "webui", "serve", "--port", str(port)], env=platform.env,
                                    cwd=ROOT, stdout=site_log, stderr=subprocess.STDOUT, start_new_session=True)
            worker = platform.start_worker()
            url = f"http://127.0.0.1:{port}"
            wait_for(url + "/accounts/login/")
            wait_for_pool(platform, people)
            persons = [Person(url, f"person{i}", "pw-person") for i in range(people)]
            start = threading.Barrier(people + 1)
            outs = [{} for _ in range(people)]
            threads = [threading.Thread(target=play, args=(p, start, o), daemon=True)
                       for p, o in zip(persons, outs)]
            for thread in threads:
                thread.start()
            pids = {"site": site.pid, "worker": worker.pid, "referee": platform.referee.pid}
            cpu_before = {part: cpu_seconds([pid]) for part, pid in pids.items()}
            start.wait()
            began = time.perf_counter()
            for thread in threads:
                thread.join(360)
            elapsed = time.perf_counter() - began
            cpu = {part: cpu_seconds([pid]) - cpu_before[part] for part, pid in pids.items()}
            errors = [o["error"] for o in outs if "error" in o]
            if errors:
                raise RuntimeError(f"{len(errors)} of {people} people failed: {errors[0]}\n"
                                   + (Path(home) / "site.log").read_text()[-3000:] + platform.worker_logs())
        finally:
            if site is not None:
                import os
                import signal

                os.killpg(site.pid, signal.SIGTERM)
                site.wait(10)
            platform.close()
            redis_server.kill()
            redis_server.wait(10)
    times = [t for o in outs for t in o.get("times", [])]
    published = [t for o in outs for t in o.get("published", [])]
    finished = sum(o.get("status") == "finished" for o in outs)
    requests = sum(o.get("requests", 0) for o in outs)
    decisions = sum(len(o.get("times", [])) + 1 for o in outs if o.get("times") is not None)
    return {"human_decision_ms": {"p50": round(percentile(times, 50) * 1000), "p95": round(percentile(times, 95) * 1000),
                                  "people": people, "think_s": THINK_SECONDS, "decisions": len(times),
                                  "published_p50": round(percentile(published, 50) * 1000),
                                  "published_p95": round(percentile(published, 95) * 1000),
                                  "cpu_ms_per_decision": round(sum(cpu.values()) / max(1, decisions) * 1000, 1),
                                  "cpu_ms_per_decision_by_part": {part: round(seconds / max(1, decisions) * 1000, 1)
                                                                  for part, seconds in cpu.items()},
                                  # the site's CPU a request (its polls and answers): what a poll costs
                                  "site_cpu_ms_per_request": round(cpu["site"] / max(1, requests) * 1000, 2),
                                  "requests": requests, "matches_finished": finished, "refused": sum(o.get("refused", 0) for o in outs),
                                  "seconds": round(elapsed, 1)}}


def wait_for(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(url, timeout=5)
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer") from None
            time.sleep(0.3)


def wait_for_pool(platform, processes: int, seconds: float = 180) -> None:
    """The worker's pool is up: its heartbeat lists ``processes`` pool processes (a table queued
    before would wait for a process to start, which is no decision's time)."""
    import redis

    connection = redis.Redis.from_url(platform.env["REDIS_URL"])
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for key in connection.scan_iter("parlour:worker:*"):
            info = json.loads(connection.get(key) or "{}")
            if len(info.get("pool", [])) >= processes:
                return
        time.sleep(0.5)
    raise RuntimeError("the worker's pool did not start:\n" + platform.worker_logs())
