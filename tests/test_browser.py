"""The site in a real browser (Debian's chromium driven by Playwright), on the whole platform as
`make demo` runs it: sign up, upload a bot, see it rated, watch a replay from a seat's perspective."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from referee.replay import decode_frames
from browser_site import CHROMIUM, chromium, free_port, wait_until
from referee_process import ROOT, as_from_a_terminal

ARTIFACTS = ROOT / "test-artifacts"
BOT = '''
from bots_sdk import Bot


class FaceUpFirst(Bot):
    def decide(self, decision):
        for action in decision.legal_actions:
            if action.get("side") == "face_up":
                return action
        return decision.legal_actions[0]
'''

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium is installed by make test")


def step_count(page) -> int:
    text = page.locator("#viewer-step-count").inner_text()
    return int(text) if text.isdigit() else 0


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    home = tmp_path_factory.mktemp("parlour")
    port = free_port()
    env = dict(os.environ, PARLOUR_HOME=str(home), PARLOUR_DEMO_TOURNAMENTS="0",
               PARLOUR_LADDER_GAMES="tussie-mussie", PARLOUR_LADDER_EVERY="2", PARLOUR_LADDER_OPEN="2")
    env.pop("REDIS_URL", None)
    env.pop("DATABASE_URL", None)
    demo = subprocess.Popen(as_from_a_terminal([sys.executable, "-m", "arena", "demo", "--port", str(port)]), env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = demo.stdout.readline()
        lines.append(line)
        if "Press Ctrl-C to stop" in line or demo.poll() is not None:
            break
    assert any("Parlour is running" in line for line in lines), "".join(lines[-40:])
    yield f"http://127.0.0.1:{port}", home
    os.killpg(demo.pid, signal.SIGINT)
    try:
        demo.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(demo.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def signed_up(browser, base: str, username: str):
    """A new page, signed up and logged in as ``username``."""
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    page.goto(f"{base}/accounts/signup/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password1]", "a-long-Passw0rd!")
    page.fill("input[name=password2]", "a-long-Passw0rd!")
    page.click("form:has(input[name=password2]) [type=submit]")
    page.wait_for_load_state()
    return page


def test_sign_up_upload_rated_and_watch_a_replay(site, browser, tmp_path) -> None:
    base, home = site
    page = signed_up(browser, base, "alice")
    assert "alice" in page.content()

    bot_file = tmp_path / "face_up_first.py"
    bot_file.write_text(BOT)
    page.goto(f"{base}/bots/upload/")
    page.fill("input[name=name]", "faceup")
    page.select_option("select[name=game]", "tussie-mussie")
    page.set_input_files("input[name=file]", str(bot_file))
    page.click("form:has(input[name=file]) [type=submit]")
    page.wait_for_load_state()
    bot_url = page.url
    assert re.search(r"/bots/\d+/", bot_url), page.content()[:2000]
    assert '<span class="status pending">pending</span>' in page.content()  # the upload did not wait
    # the page follows its check match (an arena task) until the verdict
    page.wait_for_selector('td > span.status.active', timeout=90_000)

    # the ladder picks the new bot up (its sigma is high) and rates it
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        page.goto(f"{base}/ladder/tussie-mussie/")
        if "faceup" in page.content():
            break
        time.sleep(3)
    assert "faceup" in page.content(), "the uploaded bot was never rated"

    page.goto(bot_url)
    links = page.locator("a[href^='/matches/']")
    assert links.count() > 0
    finished = []
    for href in dict.fromkeys(links.evaluate_all("els => els.map(e => e.getAttribute('href'))")):
        data = json.loads(urllib.request.urlopen(f"{base}{href}replay.json").read())
        if "views" in data:  # seat views exist once a match is over
            finished.append(href)
    assert finished, "no finished match of the new bot"
    match_url = finished[0]
    page.goto(f"{base}{match_url}")
    wait_until(lambda: step_count(page) > 0)
    page.locator("body").press("End")
    last = int(page.locator("#viewer-step-count").inner_text())
    assert int(page.locator("#viewer-step").inner_text()) == last
    page.locator("body").press("ArrowLeft")
    assert int(page.locator("#viewer-step").inner_text()) == last - 1
    page.locator("body").press("Home")
    assert int(page.locator("#viewer-step").inner_text()) == 0
    for _ in range(5):
        page.locator("body").press("ArrowRight")
    assert int(page.locator("#viewer-step").inner_text()) == 5
    assert "step=5" in page.url

    # seat 1's perspective: every card named on the page is one seat 1 could know at that step
    replay = json.loads(urllib.request.urlopen(f"{base}{match_url}replay.json").read())
    seat_views = decode_frames(replay["views"][1])
    page.select_option("#viewer-perspective", "seat-1")
    page.wait_for_timeout(300)
    for step in (5, 9, 14):
        page.evaluate(f"location.hash = 'step={step}&view=seat-1'")
        page.wait_for_timeout(300)
        assert int(page.locator("#viewer-step").inner_text()) == step
        shown = set(page.locator(".card[data-card-id]").evaluate_all("els => els.map(e => e.dataset.cardId)"))
        known = set(re.findall(r'"id": "([a-z_]+)"', json.dumps(seat_views[step])))
        assert shown <= known, f"step {step}: cards seat 1 cannot know are on the page: {shown - known}"
        assert page.locator(".card[data-hidden='true']").count() >= 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "replay-viewer-seat-1.png"), full_page=True)
    assert (ARTIFACTS / "replay-viewer-seat-1.png").stat().st_size > 10_000


RAISES = '''from bots_sdk import Bot


class Boom(Bot):
    def decide(self, decision):
        raise ValueError("no idea what to play")  # line 6
'''


def test_a_bug_named_a_challenge_opened_live_and_a_revoked_remote_bot_disconnected(site, browser, tmp_path) -> None:
    base, _ = site
    page = signed_up(browser, base, "bob")

    # a bot whose decide raises: the upload answers at once, the report names the bug
    (tmp_path / "boom.py").write_text(RAISES)
    page.goto(f"{base}/bots/upload/")
    page.fill("input[name=name]", "boom")
    page.select_option("select[name=game]", "tussie-mussie")
    page.set_input_files("input[name=file]", str(tmp_path / "boom.py"))
    started = time.monotonic()
    page.click("form:has(input[name=file]) [type=submit]")
    page.wait_for_load_state()
    assert time.monotonic() - started < 2.0, "the upload waited for its check"
    page.wait_for_selector("td > span.status.rejected", timeout=90_000)
    page.click("text=report")
    page.wait_for_load_state()
    report = page.content()
    assert "crash: ValueError: no idea what to play (at boom.py:6, in decide)" in report
    assert 'File "boom.py", line 6, in decide' in report
    step = int(re.search(r"on its decision 1 \(step (\d+) of the match\)", report).group(1))  # the bot's count, then the match's
    page.click("text=The check match, at the step of the fault")
    wait_until(lambda: page.locator("#viewer-step").inner_text() == str(step))
    page.wait_for_selector("#viewer-logs:not([hidden])")
    assert 'File "boom.py", line 6, in decide' in page.locator("#viewer-logs").inner_text()
    assert "ValueError" in page.locator("#viewer-action").inner_text(), "the fault is at this very step"

    # a good bot, challenged at once: the match opens live
    (tmp_path / "good.py").write_text(BOT)
    page.goto(f"{base}/bots/upload/")
    page.fill("input[name=name]", "good")
    page.select_option("select[name=game]", "tussie-mussie")
    page.set_input_files("input[name=file]", str(tmp_path / "good.py"))
    page.click("form:has(input[name=file]) [type=submit]")
    page.wait_for_selector("td > span.status.active", timeout=90_000)
    page.reload()
    page.select_option("select[name=opponents]", ["house:greedy"])
    page.click("form:has(select[name=opponents]) [type=submit]")
    page.wait_for_load_state()
    assert re.search(r"/matches/\d+/(#.*)?$", page.url), page.url
    wait_until(lambda: step_count(page) > 0)

    # a remote bot at the address the site gives, then its token revoked: disconnected within seconds
    page.goto(f"{base}/bots/remote/new/")
    page.fill("input[name=name]", "faraway")
    page.select_option("select[name=game]", "tussie-mussie")
    page.click("form:has(input[name=name]) [type=submit]")
    page.wait_for_load_state()
    remote_url = page.url
    page.click("text=Issue a new token")
    page.wait_for_load_state()
    command = page.locator("pre:has-text('--referee')").inner_text()
    address = re.search(r"--referee (\S+)", command).group(1)
    token = re.search(r"--api-token=(\S+)", command).group(1)  # "=": a token may start with "-"
    remote = subprocess.Popen([sys.executable, "-m", "bots_sdk", "serve-remote", "random", "--referee", address,
                               f"--api-token={token}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        first = remote.stdout.readline()
        if not first.startswith("connected as bot-"):  # say why: what it printed, how it ended
            remote.wait(10)
            pytest.fail(f"serve-remote said {first!r}, ended {remote.returncode}: {remote.stderr.read()[-2000:]}")
        page.goto(remote_url)
        page.click("form[action*='/revoke/'] [type=submit]")
        page.wait_for_load_state()
        assert "revoked" in page.content()
        assert remote.wait(10) != 0
        assert "the API token was revoked" in remote.stderr.read()
    finally:
        remote.kill()
        remote.wait()
