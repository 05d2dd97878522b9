"""The author's microscope in a real browser (Debian's chromium, Playwright, a real site), at 1280
and 390 px: the owner reads an mcts bot's notes beside a step (bars, the value chart, the command
that asks the bot that decision again), and the bot page draws its rating chart."""
from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from browser_site import CHROMIUM, ROOT, chromium, make_match, running_site

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium is installed by make test")

OWN_AND_RATE = """
from datetime import timedelta
from django.contrib.auth.models import User
from django.utils import timezone
from arena.models import Bot, Match, MatchSeat, Rating, RatingHistory
ada = User.objects.create_user("ada", password="a-long-Passw0rd!")
bot = Bot.objects.get(name="player0")
Bot.objects.filter(pk=bot.pk).update(owner=ada)
Bot.objects.filter(name="player1").update(kind=Bot.HOUSE)  # an uploaded bot always has an owner
version = bot.versions.get()
rating = Rating.objects.create(ladder="tussie-mussie/standard/", bot_version=version, mu=25, sigma=8)
start = timezone.now() - timedelta(hours=1)
for i in range(6):
    m = Match.objects.create(key=f"rated/{i}", game="tussie-mussie", seed=i, status="finished")
    MatchSeat.objects.create(match=m, seat=0, bot_version=version, rank=1 + i % 2, score=3)
    RatingHistory.objects.create(rating=rating, match=m, mu=25 + i, sigma=8 - i, created=start + timedelta(minutes=i))
print(bot.pk)
"""


def test_the_owner_reads_the_notes_and_the_rating_chart_at_both_widths(tmp_path) -> None:
    replay_path = tmp_path / "mcts.replay.json.gz"
    subprocess.run([sys.executable, "-m", "bots_sdk", "play", "tussie-mussie", "mcts?playouts=20&seed=1", "random",
                    "--seed", "4", "--replay", str(replay_path)], cwd=ROOT, check=True, capture_output=True)
    replay = json.loads(gzip.decompress(replay_path.read_bytes()))
    searched = next(n for n in replay["notes"] if "visits" in n["note"])
    with running_site(tmp_path / "site") as site, chromium() as browser:
        match_id = make_match(site, "notes/1", "tussie-mussie", 2, "finished", seed=4, replay=str(replay_path),
                              result=replay["result"])
        bot_id = int(site.django(OWN_AND_RATE))
        for width in (1280, 390):
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto(f"{site.url}/accounts/login/")
            page.fill("input[name=username]", "ada")
            page.fill("input[name=password]", "a-long-Passw0rd!")
            page.click("form:has(input[name=password]) [type=submit]")
            page.wait_for_load_state()

            page.goto(f"{site.url}/matches/{match_id}/#step={searched['step']}")
            page.wait_for_selector("#viewer[data-ready]", timeout=30_000)
            page.wait_for_selector("#viewer-notes .viewer-note", timeout=20_000)
            note = page.locator("#viewer-notes .viewer-note")
            assert note.get_attribute("data-seat") == "0"
            assert note.locator(".viewer-note-bar").count() == len(searched["note"]["visits"])
            assert f"Value {searched['note']['value']}" in note.inner_text()
            assert note.locator("svg.viewer-note-chart polyline").count() == 1
            command = page.locator("#viewer-notes .viewer-decide-command").inner_text()
            assert command == (f"python -m bots_sdk replay decide match-{match_id}.replay.json.gz "
                               f"--step {searched['step']} --seat 0 my_bot.py:MyBot --pdb")
            box = page.locator("#viewer-notes").bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= width  # readable: nothing beyond the screen
            page.locator("#viewer-notes").screenshot(path=str(tmp_path / f"notes-{width}.png"))

            page.goto(f"{site.url}/bots/{bot_id}/")
            chart = page.locator("#rating-chart")
            assert chart.locator("circle.point").count() == 6 and chart.locator("polygon.band").count() == 1
            chart.screenshot(path=str(tmp_path / f"chart-{width}.png"))
            box = chart.bounding_box()
            assert box["width"] > 0.5 * min(width, 640) and box["x"] + box["width"] <= width
            page.close()
