"""The replay viewer says each action as the perspective may read it (docs/viewer.md): the acting
seat's own label in that seat's perspective and with everything revealed, the public label for the
spectator and the other seats, and no label there in a replay made before public labels existed.
The real template and viewer.js, served as static files to Debian's chromium."""
from __future__ import annotations

import functools
import json
import re
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bots_sdk import RandomBot
from bots_sdk.local import play_match
from browser_site import CHROMIUM, chromium, wait_until
from referee.games.tussie_mussie.data import TILES
from referee.replay import Resimulation, build_replay

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "webui" / "static" / "webui"
TEMPLATE = ROOT / "webui" / "templates" / "webui" / "viewer.html"

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium is installed by make test")


def viewer_page(replay_url: str) -> str:
    """The viewer's template with its Django tags filled in as a page for every perspective."""
    html = TEMPLATE.read_text()
    html = html.replace("{% static 'webui/viewer.css' %}", "viewer.css").replace(
        "{% static 'webui/viewer.js' %}", "viewer.js").replace("{{ replay_url }}", replay_url)
    html = re.sub(r"\{% if .*?%\}.*?\{% endif %\}", "", html, flags=re.S)
    html = re.sub(r"\{[%#{].*?[%#}]\}", "", html, flags=re.S)  # load, comments, perspectives (omitted: all)
    return f"<!doctype html><html><head><meta charset='utf-8'></head><body>{html}</body></html>"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A finished three-seat Tussie Mussie replay (and a copy without public labels), served."""
    root = tmp_path_factory.mktemp("viewer")
    replay = build_replay(play_match("tussie-mussie", [RandomBot() for _ in range(3)], seed=4).match)
    old = {k: v for k, v in replay.items() if k != "public_labels"}
    (root / "replay.json").write_text(json.dumps(replay))
    (root / "old.json").write_text(json.dumps(old))
    (root / "new.html").write_text(viewer_page("replay.json"))
    (root / "old.html").write_text(viewer_page("old.json"))
    for name in ("viewer.js", "viewer.css"):
        (root / name).write_bytes((STATIC / name).read_bytes())
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", replay
    finally:
        server.shutdown()
        server.server_close()


def first_offer(replay: dict) -> tuple[int, int, str, str]:
    """(the frame showing the first offer, its offerer, the face-up tile's name, the face-down one's)."""
    sim = Resimulation(replay["header"], replay["log"])
    steps = sim.steps()
    for index, entry in enumerate(replay["log"]):
        if entry["action"]["type"] == "offer":
            tiles = sim.state.offer["tiles"]
            up = entry["action"]["face_up"]
            down = next(t for t in tiles if t != up)
            return index + 1, entry["seat"], TILES[up].name, TILES[down].name
        next(steps)
    raise AssertionError("no offer in the replay")


def action_line(browser, url: str, step: int, view: str) -> str:
    page = browser.new_page()
    try:
        page.goto(f"{url}#step={step}&view={view}")
        wait_until(lambda: page.locator("#viewer").get_attribute("data-step") == str(step)
                   and page.locator("#viewer").get_attribute("data-perspective") == view, timeout=30)
        return page.locator("#viewer-action").inner_text()
    finally:
        page.close()


def test_each_perspective_reads_the_action_as_it_may(site) -> None:
    base, replay = site
    step, offerer, up, down = first_offer(replay)
    other = next(s for s in range(3) if s != offerer)
    own = f"offer the {up} face up and the {down} face down"
    public = f"offer the {up} face up and a tile face down"
    with chromium() as browser:
        for view in (f"seat-{offerer}", "all"):
            assert own in action_line(browser, f"{base}/new.html", step, view), view
        for view in ("spectator", f"seat-{other}"):
            text = action_line(browser, f"{base}/new.html", step, view)
            assert public in text and down not in text.replace(up, ""), (view, text)
        # a replay made before public labels: the others read no label, never the offerer's
        assert own in action_line(browser, f"{base}/old.html", step, f"seat-{offerer}")
        for view in ("spectator", f"seat-{other}"):
            text = action_line(browser, f"{base}/old.html", step, view)
            assert "acts (shown in its own perspective" in text and down not in text.replace(up, ""), (view, text)
