"""A person plays a whole match on the real road: the site (gunicorn), a real Celery worker and
referee, the real Redis; the person signs in, picks "play against greedy" on the game's page and
answers every decision through the table's endpoints, as the page does. The replay checks out."""
from __future__ import annotations

import http.cookiejar
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import urllib.parse
import urllib.request

from browser_site import free_port
from referee_process import ROOT
from test_arena_e2e import platform  # noqa: F401 - the fixture

GAME = "kuhn-poker"  # short: ten hands of one to three decisions each


class Person:
    """A signed-in person's HTTP client (cookies, Django's CSRF token)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def csrf(self) -> str:
        return next(c.value for c in self.jar if c.name == "csrftoken")

    def get(self, path: str) -> tuple[int, bytes, str]:
        with self.opener.open(self.url + path, timeout=10) as response:
            return response.status, response.read(), response.geturl()

    def post(self, path: str, data: dict | None = None, body: dict | None = None) -> tuple[int, bytes, str]:
        if body is not None:
            request = urllib.request.Request(self.url + path, json.dumps(body).encode(), method="POST", headers={
                "Content-Type": "application/json", "X-CSRFToken": self.csrf(), "Referer": self.url + path})
        else:
            fields = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": self.csrf()}, doseq=True).encode()
            request = urllib.request.Request(self.url + path, fields, method="POST", headers={"Referer": self.url + path})
        try:
            with self.opener.open(request, timeout=10) as response:
                return response.status, response.read(), response.geturl()
        except urllib.error.HTTPError as error:
            return error.code, error.read(), path


def django(env: dict, code: str) -> str:
    script = "import django\ndjango.setup()\n" + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_a_person_plays_a_whole_match_against_greedy_on_the_road(platform) -> None:  # noqa: F811
    p = platform(PARLOUR_PERSON_DECISION_SECONDS="20")
    env = dict(p.env, PYTHONPATH=str(ROOT), DJANGO_SETTINGS_MODULE="parlour_site.settings")
    subprocess.run([sys.executable, "-m", "webui", "migrate"], env=env, cwd=ROOT, check=True, capture_output=True)
    django(env, 'from django.contrib.auth.models import User\nUser.objects.create_user("ann", password="pw-ann-1")')
    port = free_port()
    site = subprocess.Popen([sys.executable, "-m", "webui", "serve", "--port", str(port), "--workers", "1",
                             "--threads", "4"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        p.start_worker()
        person = Person(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 30
        while True:
            try:
                person.get("/accounts/login/")
                break
            except OSError:
                assert time.monotonic() < deadline and site.poll() is None, "the site did not start"
                time.sleep(0.2)
        status, _, _ = person.post("/accounts/login/", {"username": "ann", "password": "pw-ann-1"})
        assert status == 200
        status, _, where = person.post(f"/learn/{GAME}/play/", {"variant": "standard", "opponent": "greedy"})
        table = urllib.parse.urlparse(where).path
        assert status == 200 and table.startswith("/table/"), where
        assert b"you play seat 1" in person.get(table)[1]

        answered, state, last = 0, {}, None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            state = json.loads(person.get(table + "state.json")[1])
            if state["status"] in ("finished", "aborted"):
                break
            decision = state["decision"]
            if decision is None or decision["decision_id"] == last:
                time.sleep(0.05)
                continue
            cards = decision["observation"]["cards"]
            assert cards[0].get("rank") and cards[1] == {"hidden": True}  # my card, never the bot's
            bad = person.post(table + "answer/", body={"decision_id": decision["decision_id"], "index": 7})
            assert bad[0] == 400 and b"not a legal action" in bad[1]
            status, body, _ = person.post(table + "answer/", body={"decision_id": decision["decision_id"],
                                                                   "index": len(decision["legal_actions"]) - 1})
            assert status == 200, body
            answered, last = answered + 1, decision["decision_id"]
        assert state["status"] == "finished", (state, p.worker_logs())
        assert answered >= 10  # a decision at least in each of the ten hands

        match_id = int(table.strip("/").split("/")[1])
        recorded = json.loads(django(env, f"""
            import json
            from arena.models import Match
            m = Match.objects.get(pk={match_id})
            print(json.dumps({{"replay": m.replay_path, "rated": m.rated,
                               "seats": list(m.seats.values_list("bot_version__bot__kind", "status"))}}))"""))
        assert recorded["rated"] is False
        assert recorded["seats"] == [["person", "ok"], ["house", "ok"]]
        check = subprocess.run([sys.executable, "-m", "bots_sdk", "replay", "check", recorded["replay"]],
                               cwd=ROOT, capture_output=True, text=True)
        assert check.returncode == 0, check.stdout + check.stderr
    finally:
        os.killpg(site.pid, signal.SIGTERM)
        site.wait(10)
