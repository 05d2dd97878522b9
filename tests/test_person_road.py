"""People at the table on the real road: the site (gunicorn), a real Celery worker and referee and
Redis, shared by this module's tests. A person plays over HTTP (tests/person_client.py) or in
chromium; what is checked is what was recorded: the replay, the live frames, the seats' records."""
from __future__ import annotations

import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis
from browser_site import CHROMIUM, chromium, free_port, redis_server_binary
from engine_contract import check_hiding_at, check_public_hidden
from person_client import Person
from referee_process import ROOT
from test_arena_e2e import Platform
from test_person_e2e import django

from referee.replay import Resimulation, iter_frames, read_replay

PASSWORD = "pw-person-1"


class Road:
    """The module's platform and site, and what a test asks of them."""

    def __init__(self, fleet: Platform, env: dict, url: str) -> None:
        self.platform, self.env, self.url = fleet, env, url

    def person(self, name: str) -> Person:
        return Person(self.url, name, PASSWORD)

    def django(self, code: str) -> str:
        return django(self.env, code)

    def replace_worker(self, **settings: str) -> None:
        """Stop the worker and start one with these settings (the site's and scripts' too)."""
        for worker in self.platform.workers:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(20)
        self.platform.env.update(settings)
        self.env.update(settings)
        self.platform.start_worker()

    def recorded(self, match_id: int) -> dict:
        """The match's record: status, replay file, seats (kind, status) in seat order."""
        return json.loads(self.django(f"""
            import json
            from arena.models import Match
            m = Match.objects.get(pk={match_id})
            print(json.dumps({{"status": m.status, "replay": m.replay_path, "rated": m.rated,
                               "seats": list(m.seats.values_list("bot_version__bot__kind", "status"))}}))"""))


def start_site(fleet: Platform, **settings: str) -> tuple[dict, subprocess.Popen, str]:
    env = dict(fleet.env, PYTHONPATH=str(ROOT), DJANGO_SETTINGS_MODULE="parlour_site.settings", **settings)
    subprocess.run([sys.executable, "-m", "webui", "migrate"], env=env, cwd=ROOT, check=True, capture_output=True)
    django(env, f"""
        from django.contrib.auth.models import User
        for name in ("ann", "bob"):
            User.objects.create_user(name, password={PASSWORD!r})""")
    port = free_port()
    site = subprocess.Popen([sys.executable, "-m", "webui", "serve", "--port", str(port), "--workers", "1",
                             "--threads", "4"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/accounts/login/", timeout=5)
            return env, site, url
        except OSError:
            assert time.monotonic() < deadline and site.poll() is None, "the site did not start"
            time.sleep(0.2)


@contextmanager
def private_redis(folder: Path):
    """A redis-server of the test's own: other test runs on this machine share the usual one."""
    port = free_port()
    server = subprocess.Popen([redis_server_binary(), "--port", str(port), "--save", "", "--appendonly", "no",
                               "--dir", str(folder)], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis(port=port).ping()
                break
            except redis.ConnectionError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.kill()
        server.wait(10)


@pytest.fixture(scope="module")
def road(tmp_path_factory):
    home = tmp_path_factory.mktemp("road")
    with private_redis(home) as redis_url:
        fleet = Platform(home, "sqlite", redis_url=redis_url, PARLOUR_PERSON_DECISION_SECONDS="20")
        yield from road_on(fleet)


def road_on(fleet: Platform):
    site = None
    try:
        env, site, url = start_site(fleet)
        fleet.start_worker()
        yield Road(fleet, env, url)
    finally:
        if site is not None:
            os.killpg(site.pid, signal.SIGTERM)
            site.wait(10)
        fleet.close()


def start_table(person: Person, game: str, opponents: list[str]) -> str:
    """"Play against" from the game's page: the table's path."""
    person.get(f"/learn/{game}/")
    landed = person.post_form(f"/learn/{game}/play/", {"variant": "standard", "opponent": opponents})
    path = urllib.parse.urlparse(landed).path
    assert path.startswith("/table/"), landed
    return path


def play_to_end(person: Person, table: str, choose, seconds: float = 60) -> list[dict]:
    """Answer every decision the table shows (``choose(decision)``: an index) until the match is
    recorded; the decisions the person was shown."""
    shown: list[dict] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = json.loads(person.get(table + "state.json"))
        if state["status"] == "finished":
            return shown
        decision = state["decision"]
        if decision and (not shown or shown[-1]["decision_id"] != decision["decision_id"]):
            shown.append(decision)
            code, body = person.post_json(table + "answer/", {"decision_id": decision["decision_id"],
                                                               "index": choose(decision)})
            assert code == 200, body
        time.sleep(0.02)
    raise AssertionError(f"the match at {table} did not end in {seconds} s")


def match_of(table: str) -> int:
    return int(table.strip("/").split("/")[1])


def test_the_persons_hand_never_reaches_the_bot_nor_a_spectator(road) -> None:
    """Kuhn poker against greedy, played over HTTP, then checked as recorded: what the person was
    sent is their seat's recorded view; the live frames are the replay's public frames; and at every
    step the bot's recorded view and the public frame are what the engine shows them, unchanged when
    the person's card is redrawn (the engine-contract property: nothing of the hand beyond the rules)."""
    ann = road.person("ann")
    table = start_table(ann, "kuhn-poker", ["greedy"])
    rng = random.Random(4)
    shown = play_to_end(ann, table, lambda d: rng.randrange(len(d["legal_actions"])))
    record = road.recorded(match_of(table))
    assert record["seats"] == [["person", "ok"], ["house", "ok"]]
    replay = read_replay(record["replay"])
    views = [list(iter_frames(frames)) for frames in replay["views"]]
    assert shown and all(d["observation"] in views[0] for d in shown)

    live = redis.Redis.from_url(road.platform.env["REDIS_URL"])
    frames = [json.loads(f) for f in live.lrange(f"parlour:live:{match_of(table)}:frames", 0, -1)]
    assert frames == replay["public"]
    public = list(iter_frames(replay["public"]))

    sim, check_rng, redrawn = Resimulation(replay["header"], replay["log"]), random.Random(1), 0
    states = itertools.chain([sim.state], (step.state for step in sim.steps()))  # one state, stepped on
    for step, state in enumerate(states):
        assert views[1][step] == state.observation(1) and public[step] == state.public_view()
        redrawn += check_hiding_at(state, check_rng, samples=2)
        check_public_hidden(state, check_rng)
    assert step == len(replay["log"]) and redrawn  # every step checked; the person's card was redrawn


def test_bad_answers_over_http_are_refused_and_change_nothing(road) -> None:
    """Garbage JSON, a stale decision, an index as text, a second tab answering the same decision,
    another person's table: each refused with a clear message, and the decision waits as it was."""
    ann, bob = road.person("ann"), road.person("bob")
    table = start_table(ann, "kuhn-poker", ["random"])
    deadline = time.monotonic() + 30
    while not (state := json.loads(ann.get(table + "state.json")))["decision"]:
        assert time.monotonic() < deadline, state
        time.sleep(0.05)
    decision = state["decision"]
    answer = table + "answer/"
    refusals = {
        "the answer is not JSON": ann.post_raw(answer, b"{index: 0,"),
        "the table has moved on": ann.post_json(answer, {"decision_id": decision["decision_id"] - 1, "index": 0}),
        "names a decision and one of its actions by number":
            ann.post_json(answer, {"decision_id": decision["decision_id"], "index": "the first"}),
        "not a legal action": ann.post_json(answer, {"decision_id": decision["decision_id"], "index": -1}),
        "no seat at this table": bob.post_json(answer, {"decision_id": decision["decision_id"], "index": 0}),
    }
    for message, (code, body) in refusals.items():
        assert code in (400, 403) and message in body["error"], (message, code, body)
    assert refusals["no seat at this table"][0] == 403
    assert bob.status(table) == 404 and bob.status(table + "state.json") == 404
    assert json.loads(ann.get(table + "state.json"))["decision"] == decision  # nothing changed

    second_tab = road.person("ann")  # the same person signed in again: another tab, the phone
    assert second_tab.post_json(answer, {"decision_id": decision["decision_id"], "index": 0})[0] == 200
    code, body = ann.post_json(answer, {"decision_id": decision["decision_id"], "index": 1})
    assert code == 400 and "answered already" in body["error"]
    play_to_end(ann, table, lambda d: 0)
    replay = read_replay(road.recorded(match_of(table))["replay"])
    first = next(entry for entry in replay["log"] if entry["seat"] == 0)
    assert first["action"] == decision["legal_actions"][0] and first["source"] == "bot"


BROWSER = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="chromium is installed by make test")


def play_in_browser(road: Road, table: str, seconds: float) -> int:
    """Sign ann in at a phone's width and click the first choice at every decision until the page
    says the match is finished; the clicks."""
    clicks = 0
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 390, "height": 800})
        page.goto(road.url + "/accounts/login/")
        page.fill("input[name=username]", "ann")
        page.fill("input[name=password]", PASSWORD)
        page.click("form [type=submit]")
        page.goto(road.url + table)
        deadline = time.monotonic() + seconds
        while "finished" not in page.inner_text("#table-status"):
            assert time.monotonic() < deadline, f"{clicks} clicks, then: {page.inner_text('#table-status')}"
            choices = page.locator("button.choice:enabled")
            if choices.count():
                choices.first.click()
                clicks += 1
            page.wait_for_timeout(30)
    return clicks


def check_recorded(road: Road, table: str, kinds: list[str]) -> None:
    record = road.recorded(match_of(table))
    assert record["status"] == "finished" and [kind for kind, _ in record["seats"]] == kinds
    assert record["seats"][0][1] == "ok"  # the person answered every decision in time
    check = subprocess.run([sys.executable, "-m", "bots_sdk", "replay", "check", record["replay"]], cwd=ROOT,
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


@BROWSER
def test_a_whole_tussie_mussie_match_in_the_browser(road) -> None:
    """Tussie Mussie, two seats, against greedy: "play against" from the game's page, then a click
    at every decision to the end; the replay checks out."""
    table = start_table(road.person("ann"), "tussie-mussie", ["greedy"])
    assert play_in_browser(road, table, 90) >= 10
    check_recorded(road, table, ["person", "house"])


@BROWSER
def test_a_whole_bszzzz_match_with_its_reaction_windows_in_the_browser(road) -> None:
    """Bszzzz, three seats, against two house bots, every decision a sealed reaction window; one
    round (``round_cap`` 1: a whole game of 20 rounds is some 500 decisions a seat), on a deal where
    clicking the first choice takes some 20 decisions (most take 20 to 33)."""
    match_id = int(road.django("""
        from django.contrib.auth.models import User
        from django.db import transaction
        from arena.models import Match
        from arena.people.tables import start_table
        with transaction.atomic():  # queued once this commits: with the deal's seed
            match = start_table(User.objects.get(username="ann"), "bszzzz", "standard", ["greedy", "random"],
                                options={"round_cap": 1})
            Match.objects.filter(pk=match.pk).update(seed=163)
        print(match.pk)"""))
    table = f"/table/{match_id}/"
    assert play_in_browser(road, table, 120) >= 5
    check_recorded(road, table, ["person", "house", "house"])


def test_a_person_who_walks_away_is_played_by_the_fault_policy(road) -> None:
    """Nobody answers (a one-second clock and a one-second bank): the first decision waits for both,
    the next ones for their second (the bank is spent); each gets the default action and a strike; at
    three the autopilot plays the seat; the match ends and is recorded, the seat forfeited. (Last in
    the module: its worker, with the short clock, replaces the module's.)"""
    road.replace_worker(PARLOUR_PERSON_DECISION_SECONDS="1", PARLOUR_PERSON_BANK_SECONDS="1")
    match_id = int(road.django("""
        from django.contrib.auth.models import User
        from arena.people.tables import start_table
        print(start_table(User.objects.get(username="ann"), "kuhn-poker", "standard", ["greedy"]).pk)"""))
    deadline = time.monotonic() + 60
    while (record := road.recorded(match_id))["status"] != "finished":
        assert time.monotonic() < deadline, road.platform.worker_logs()
        time.sleep(0.5)
    assert record["seats"] == [["person", "forfeited"], ["house", "ok"]]
    replay = read_replay(record["replay"])
    sources = [entry["source"] for entry in replay["log"] if entry["seat"] == 0]
    assert sources[:3] == ["default"] * 3 and set(sources[3:]) == {"autopilot"}
    faults = [entry["fault"] for entry in replay["log"] if entry["seat"] == 0 and entry["source"] == "default"]
    assert "did not answer within 2 s" in faults[0] and all("did not answer within 1 s" in f for f in faults[1:])
    check = subprocess.run([sys.executable, "-m", "bots_sdk", "replay", "check", record["replay"]], cwd=ROOT,
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
