"""A person plays a whole match on the real road: the site (gunicorn), a real Celery worker and
referee, the real Redis, in chromium at a phone's width: the person signs in, picks "play against
greedy" on the game's page and clicks a choice at every decision (a reload mid-match resumes the
seat), to the end. The replay checks out."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import urllib.parse
import urllib.request

import pytest
from browser_site import CHROMIUM, chromium, free_port
from referee_process import ROOT
from test_arena_e2e import platform  # noqa: F401 - the fixture

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="chromium is installed by make test")

GAME = "kuhn-poker"  # short: ten hands of one to three decisions each


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
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url + "/accounts/login/", timeout=5)
                break
            except OSError:
                assert time.monotonic() < deadline and site.poll() is None, "the site did not start"
                time.sleep(0.2)
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 390, "height": 800})  # a phone's width
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(url + "/accounts/login/")
            page.fill("input[name=username]", "ann")
            page.fill("input[name=password]", "pw-ann-1")
            page.click("form [type=submit]")
            page.goto(url + f"/learn/{GAME}/")
            page.select_option("select[name=opponent] >> nth=0", "greedy")
            page.click("text=Play against them")
            page.wait_for_url("**/table/*/")
            table = urllib.parse.urlparse(page.url).path
            assert "you play seat 1" in page.content()
            clicks, reloaded = 0, False
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and "The match is finished" not in page.inner_text("#table-status"):
                choices = page.locator("button.choice:enabled")
                if not choices.count():
                    page.wait_for_timeout(50)
                    continue
                view = json.loads(page.text_content("#table-view"))  # the observation as it came, hidden
                assert view["cards"][0].get("rank") and view["cards"][1] == {"hidden": True}  # mine, never the bot's
                # drawn by the game's renderer: my card face up, the bot's a card back; the clock runs
                mine = page.locator('#table-board .seat-panel.is-me[data-seat="0"] .card[data-card-id]')
                assert mine.first.get_attribute("data-card-id") == view["cards"][0]["id"]
                assert page.locator('#table-board .seat-panel[data-seat="1"] .card-back').count() == 1
                assert "s left for this decision" in page.inner_text("#table-clock")
                if clicks == 3 and not reloaded:  # a reload mid-match resumes the seat
                    page.reload()
                    reloaded = True
                    continue
                choices.last.click()
                clicks += 1
                page.wait_for_timeout(30)
            assert "The match is finished" in page.inner_text("#table-status"), (clicks, errors, p.worker_logs()[-3000:])
            assert not errors
            assert reloaded and clicks >= 10  # a decision at least in each of the ten hands

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
