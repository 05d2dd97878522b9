"""Watching in a real browser (Debian's chromium, Playwright) on a real site (gunicorn, SQLite, a
private Redis): a running match followed from its first frames to its end, every step in turn;
the pages that list the matches being played; each game's viewer at a desktop and a phone width."""
from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from arena import live
from browser_site import CHROMIUM, ROOT, chromium, finish_match, make_match, running_site, shown_step, wait_until

ARTIFACTS = ROOT / "test-artifacts"
GAMES = {"tussie-mussie": 2, "tricky-twist": 3, "misty": 2, "bszzzz": 3}

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium is installed by make test")


def play(game: str, players: int, folder: Path, seed: int = 2) -> Path:
    path = folder / f"{game}.replay.json.gz"
    subprocess.run([sys.executable, "-m", "bots_sdk", "play", game, *["random"] * players, "--seed", str(seed),
                    "--replay", str(path)], cwd=ROOT, check=True, capture_output=True)
    return path


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    home = tmp_path_factory.mktemp("site")
    with running_site(home) as running:
        yield running


@pytest.fixture(scope="module")
def replays(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("replays")
    return {game: play(game, players, folder) for game, players in GAMES.items()}


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def read(path: Path) -> dict:
    return json.loads(gzip.decompress(path.read_bytes()))


def test_a_live_match_is_watched_from_its_first_frames_to_its_end_without_a_jump(site, replays, browser) -> None:
    replay = read(replays["misty"])
    frames = replay["public"]
    stored = site.home / "replays" / "live-misty.replay.json.gz"
    stored.parent.mkdir(exist_ok=True)
    shutil.copy(replays["misty"], stored)
    match_id = make_match(site, "live/misty", "misty", 2, "running")

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{site.url}/")
    assert page.locator(f"#playing-now a[href='/matches/{match_id}/']").count() == 1  # being played now
    page.goto(f"{site.url}/matches/{match_id}/")
    page.wait_for_selector("#viewer.is-live .badge-live")
    # every value the step counter shows, in order
    page.evaluate("""() => {
        window.seenSteps = [];
        const step = document.querySelector('#viewer-step');
        new MutationObserver(() => window.seenSteps.push(Number(step.textContent)))
            .observe(step, {childList: true, characterData: true, subtree: true});
    }""")
    assert "Waiting for the match" in page.locator("#viewer-status").inner_text()

    feed = live.LiveMatch(match_id, site.redis())
    encoded = [json.dumps(f) for f in frames]

    def referee() -> None:  # batches every 0.1 s, as the referee streams them to the runner
        for start in range(0, len(encoded), 12):
            feed.add(start, encoded[start:start + 12])
            time.sleep(0.1)

    playing = threading.Thread(target=referee)
    playing.start()
    wait_until(lambda: shown_step(page) >= 20, timeout=20)
    assert page.locator("#viewer-scores .viewer-score").count() == 2  # the seats' scores, as they change
    playing.join()
    finish_match(site, match_id, str(stored), replay["result"])
    live.recorded(match_id, "finished", site.redis())
    last = len(frames) - 1
    wait_until(lambda: shown_step(page) == last, timeout=30)
    page.wait_for_selector("#viewer:not(.is-live)")
    seen = page.evaluate("window.seenSteps")
    assert seen[0] <= 1 and seen[-1] == last
    jumps = [(a, b) for a, b in zip(seen, seen[1:]) if b - a not in (0, 1)]  # drawn again: no jump
    assert not jumps, f"the step counter jumped: {jumps[:5]}"
    # the whole replay took over: the seats' perspectives are offered, the result is shown
    assert page.locator("#viewer-perspective option[value='seat-1']").count() == 1
    assert page.locator("#viewer-result").is_visible()
    page.goto(f"{site.url}/")
    assert page.locator(f"#playing-now a[href='/matches/{match_id}/']").count() == 0


def wider_than_the_viewport(page) -> list[str]:
    """Elements reaching past the viewport's right edge (what a reader would have to scroll sideways to see)."""
    return page.evaluate("""() => {
        const width = document.documentElement.clientWidth;
        return [...document.querySelectorAll('body *')]
            .filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.right > width + 1; })
            .filter(e => {  // what a box scrolling its content inside itself holds is fine
                for (let a = e.parentElement; a; a = a.parentElement) {
                    if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX)) return false;
                }
                return true;
            })
            .slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right));
    }""")


@pytest.mark.parametrize("game", list(GAMES))
def test_each_games_viewer_at_desktop_and_phone_widths_with_jumps_and_events(site, replays, browser, game) -> None:
    replay = read(replays[game])
    stored = site.home / "replays" / f"{game}.replay.json.gz"
    stored.parent.mkdir(exist_ok=True)
    shutil.copy(replays[game], stored)
    match_id = make_match(site, f"view/{game}", game, GAMES[game], "finished", seed=2, replay=str(stored),
                          result=replay["result"])
    ARTIFACTS.mkdir(exist_ok=True)
    for width in (1280, 390):
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(f"{site.url}/matches/{match_id}/#step=0")
        page.wait_for_selector("#viewer[data-ready]")
        # the next round / trick / window / pick: the first step whose unit differs
        jumps = page.locator("#viewer-jumps button.viewer-jump-next")
        assert jumps.count() >= 2
        names = jumps.evaluate_all("els => els.map(e => e.dataset.mark)")
        finest = names[-1]
        page.click(f"#viewer-jumps button.viewer-jump-next[data-mark='{finest}']")
        first = int(page.locator("#viewer-step").inner_text())
        page.click(f"#viewer-jumps button.viewer-jump-next[data-mark='{finest}']")
        second = int(page.locator("#viewer-step").inner_text())
        assert 0 < first < second
        page.click(f"#viewer-jumps button.viewer-jump-back[data-mark='{finest}']")
        assert int(page.locator("#viewer-step").inner_text()) == first
        # the list of events links to the steps where they start
        page.click("#viewer-events summary")
        event = page.locator("#viewer-events li.viewer-event").nth(3)
        step = int(event.get_attribute("data-step"))
        event.locator("a").click()
        wait_until(lambda: shown_step(page) == step, timeout=30)
        page.select_option("#viewer-speed", "16")
        page.locator("body").press("End")
        assert not wider_than_the_viewport(page), (game, width, wider_than_the_viewport(page))
        page.screenshot(path=str(ARTIFACTS / f"viewer-{game}-{width}.png"), full_page=True)
        page.close()
