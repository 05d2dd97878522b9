"""A finished replay in a real browser (Debian's chromium, Playwright, a real site): the viewer draws
its first step and answers its controls before the seats' views have arrived, fetches them when a
seat's perspective is picked, then shows that seat's own hand."""
from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from browser_site import CHROMIUM, ROOT, chromium, make_match, running_site, shown_step, wait_until
from referee.replay import decode_frames

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium is installed by make test")
PLAYERS = 3


def test_the_viewer_is_ready_before_the_seats_views_and_shows_a_seat_once_they_come(tmp_path) -> None:
    replay_path = tmp_path / "bszzzz.replay.json.gz"
    subprocess.run([sys.executable, "-m", "bots_sdk", "play", "bszzzz", *["random"] * PLAYERS, "--seed", "4",
                    "--replay", str(replay_path)], cwd=ROOT, check=True, capture_output=True)
    replay = json.loads(gzip.decompress(replay_path.read_bytes()))
    with running_site(tmp_path / "site") as site, chromium() as browser:
        match_id = make_match(site, "parts/bszzzz", "bszzzz", PLAYERS, "finished", seed=4, replay=str(replay_path),
                              result={"scores": [0] * PLAYERS, "ranks": list(range(1, PLAYERS + 1))})
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        held = []  # the seats' views, asked but not answered until the test says so
        page.route(re.compile(r"/replay\.json\?part=seats$"), lambda route: held.append(route))
        page.goto(f"{site.url}/matches/{match_id}/")
        page.wait_for_selector("#viewer[data-ready]", timeout=30_000)
        assert shown_step(page) == 0 and page.locator("#viewer-board .seat-panel").count() == PLAYERS
        assert not held, "the seats' views are fetched only when a seat's perspective is picked"
        options = page.locator("#viewer-perspective option").evaluate_all("els => els.map(e => e.value)")
        assert options == ["spectator", *[f"seat-{s}" for s in range(PLAYERS)], "all"]

        page.select_option("#viewer-perspective", "seat-2")
        # (Playwright's sync API hands the route over only while it is called: poll through it)
        wait_until(lambda: page.wait_for_timeout(50) or len(held) == 1, timeout=10)
        # meanwhile the viewer answers: the spectator's view, stepped forward
        assert page.locator("#viewer").get_attribute("data-seats") == "loading"
        page.locator("#viewer-forward").click()
        page.locator("#viewer-forward").click()
        assert shown_step(page) == 2
        assert page.locator("#viewer").get_attribute("data-perspective") == "spectator"
        assert page.locator("#viewer-board .seat-panel.is-me").count() == 0
        hand = [card["id"] for card in decode_frames(replay["views"][2])[2]["hand"]]
        assert hand, "seat 2 holds cards at step 2"
        hidden = page.locator('#viewer-board .seat-panel[data-seat="2"] .card-row.hand [data-hidden="true"]')
        assert hidden.count() == len(hand)  # the spectator sees their backs

        held[0].continue_()
        wait_until(lambda: page.locator("#viewer").get_attribute("data-perspective") == "seat-2", timeout=20)
        assert shown_step(page) == 2 and "view=seat-2" in page.url
        me = page.locator('#viewer-board .seat-panel.is-me[data-seat="2"]')
        assert me.count() == 1
        shown = me.locator(".card-row.hand .card").evaluate_all("els => els.map(e => e.dataset.cardId || null)")
        assert shown == hand  # seat 2's own hand, face up

        # a link to a seat's perspective: drawn from the spectator's view first, then from the seat's
        linked = browser.new_page(viewport={"width": 1280, "height": 900})
        linked.goto(f"{site.url}/matches/{match_id}/#step=3&view=seat-1")
        linked.wait_for_selector("#viewer[data-ready]", timeout=30_000)
        wait_until(lambda: linked.locator("#viewer").get_attribute("data-perspective") == "seat-1", timeout=20)
        assert shown_step(linked) == 3
        assert linked.locator('#viewer-board .seat-panel.is-me[data-seat="1"]').count() == 1

