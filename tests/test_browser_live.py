"""Watching in a real browser (Debian's chromium, Playwright) on a real site (gunicorn, SQLite, a
private Redis): a running match followed from its first frames to its end at its head, a long
6-seat match joined in its middle;
the pages that list the matches being played; each game's viewer at a desktop and a phone width, its
cards legible (full names, tooltips, contrast); the site's menu folded at a phone width."""
from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from arena.road import live_frames
from referee.replay import decode_frames
from browser_site import CHROMIUM, ROOT, chromium, finish_match, make_match, running_site, shown_step, wait_until

ARTIFACTS = ROOT / "test-artifacts"
GAMES = {"tussie-mussie": 2, "tricky-twist": 3, "misty": 2, "bszzzz": 3}
FIFTH = "kuhn-poker"  # installed from outside (examples/kuhn-poker), drawn by its package's renderer
REPLAYED = {**GAMES, FIFTH: 2}

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
    return {game: play(game, players, folder) for game, players in REPLAYED.items()}


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def read(path: Path) -> dict:
    return json.loads(gzip.decompress(path.read_bytes()))


def finished_match(site, replays, game: str, name: str) -> tuple[dict, int]:
    """A finished match of ``game`` on the site, with a copy of the game's replay stored as its own:
    (the replay, the match's id)."""
    replay = read(replays[game])
    stored = site.home / "replays" / f"{name}-{game}.replay.json.gz"
    stored.parent.mkdir(exist_ok=True)
    shutil.copy(replays[game], stored)
    return replay, make_match(site, f"{name}/{game}", game, REPLAYED[game], "finished", seed=2, replay=str(stored),
                              result=replay["result"])


# every value the step counter shows, in order, gathered in window.seenSteps
WATCH_SHOWN_STEPS = """() => {
    window.seenSteps = [];
    const step = document.querySelector('#viewer-step');
    new MutationObserver(() => window.seenSteps.push(Number(step.textContent)))
        .observe(step, {childList: true, characterData: true, subtree: true});
}"""


def test_a_live_match_is_followed_at_its_head_to_its_end_which_offers_the_replay(site, replays, browser) -> None:
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
    page.evaluate(WATCH_SHOWN_STEPS)
    assert "Waiting for the match" in page.locator("#viewer-status").inner_text()

    feed = live_frames.LiveMatch(match_id, site.redis())
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
    live_frames.recorded(match_id, "finished", site.redis())
    last = len(frames) - 1
    wait_until(lambda: shown_step(page) == last, timeout=10)
    page.wait_for_selector("#viewer:not(.is-live)")
    assert "The match is over" in page.locator("#viewer-status").inner_text()
    seen = page.evaluate("window.seenSteps")
    assert seen[0] <= 1 and seen[-1] == last
    assert seen == sorted(seen), "the step counter went back while following"
    # the whole replay took over: the seats' perspectives are offered, the result is shown
    assert page.locator("#viewer-perspective option[value='seat-1']").count() == 1
    assert page.locator("#viewer-result").is_visible()
    page.click("#viewer-status button.viewer-watch-replay")  # the replay, offered from its start
    wait_until(lambda: 0 < shown_step(page) < last, timeout=5)
    page.goto(f"{site.url}/")
    assert page.locator(f"#playing-now a[href='/matches/{match_id}/']").count() == 0


def test_a_long_six_seat_match_joined_in_its_middle_is_shown_at_its_head_within_a_second(site, browser,
                                                                                          tmp_path) -> None:
    """A 6-seat Bszzzz! match plays hundreds of steps a second: a page joining it shows the newest
    frame within about a second, and stays at the head as the play goes on (not every step in turn)."""
    replay = read(play("bszzzz", 6, tmp_path, seed=3))
    encoded = [json.dumps(f) for f in replay["public"]]
    assert len(encoded) > 1000
    match_id = make_match(site, "live/bszzzz6", "bszzzz", 6, "running")
    feed = live_frames.LiveMatch(match_id, site.redis())
    middle = len(encoded) * 2 // 3
    feed.add(0, encoded[:middle])
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    started = time.monotonic()
    page.goto(f"{site.url}/matches/{match_id}/")
    wait_until(lambda: shown_step(page) == middle - 1, timeout=10)
    joined = time.monotonic() - started
    assert joined < 3, f"at the head after {joined:.1f} s"  # about 1 s; loosely, for a busy machine
    page.wait_for_selector("#viewer.is-following")
    for start in range(middle, len(encoded), 100):  # ~1,000 steps a second
        feed.add(start, encoded[start:start + 100])
        time.sleep(0.1)
    started = time.monotonic()
    wait_until(lambda: shown_step(page) == len(encoded) - 1, timeout=10)
    assert time.monotonic() - started < 2, "behind the play"
    page.close()


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
    replay, match_id = finished_match(site, replays, game, "view")
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
        wait_until(lambda: shown_step(page) == step, timeout=30)  # noqa: B023 - waited for here, before the loop moves on
        page.select_option("#viewer-speed", "16")
        page.locator("body").press("End")
        assert not wider_than_the_viewport(page), (game, width, wider_than_the_viewport(page))
        page.screenshot(path=str(ARTIFACTS / f"viewer-{game}-{width}.png"), full_page=True)
        page.close()


# ---------------------------------------------------------------------- legible cards (issue 15)
CLIPPED_NAMES = """() => [...document.querySelectorAll('#viewer-board .card-name')].filter(n => {
    // a name cut off: wider or taller than its box, or reaching out of its tile (which hides overflow)
    const tile = n.closest('.card').getBoundingClientRect(), r = n.getBoundingClientRect();
    return n.scrollWidth > n.clientWidth || n.scrollHeight > n.clientHeight + 1 || r.left < tile.left - 0.5
        || r.right > tile.right + 0.5 || r.top < tile.top - 0.5 || r.bottom > tile.bottom + 0.5;
}).map(n => n.textContent)"""

OVERLAPS_IN_TILES = """() => {
    // nothing in a tile is drawn over its text (the Tricky Twist Bonus corner was)
    const boxes = tile => [...tile.querySelectorAll('.card-value, .card-symbol, .card-name, .card-kind, .card-note')]
        .filter(e => e.textContent.trim() && e.getClientRects().length).map(e => [e, e.getBoundingClientRect()]);
    const found = [];
    for (const tile of document.querySelectorAll('#viewer-board .card')) {
        const b = boxes(tile);
        for (let i = 0; i < b.length; i++) for (let j = i + 1; j < b.length; j++) {
            const [p, q] = [b[i][1], b[j][1]];
            if (Math.min(p.right, q.right) - Math.max(p.left, q.left) > 0.5 &&
                Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) > 0.5)
                found.push(tile.dataset.cardId + ': ' + b[i][0].className + ' over ' + b[j][0].className);
        }
    }
    return found.slice(0, 5);
}"""

TOOLTIPS = """() => [...document.querySelectorAll('#viewer-board .card[data-card-id]')].map(e => [
    e.dataset.cardId, e.querySelector('.card-name').textContent, e.title.replace(/ \\(just moved\\)$/, '')])"""

CONTRAST = """() => {
    // WCAG 2 contrast of every piece of text on the page against what is behind it
    const rgba = s => (s.match(/[\\d.]+/g) || []).map(Number).concat([1]).slice(0, 4);
    const lum = ([r, g, b]) => [r, g, b].map(c => c / 255).map(c => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)
        .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
    const over = (top, under) => top.slice(0, 3).map((c, i) => c * top[3] + under[i] * (1 - top[3]));
    const background = e => {
        const layers = [];
        for (let a = e; a; a = a.parentElement) {
            const c = rgba(getComputedStyle(a).backgroundColor);
            if (c[3] > 0) layers.push(c);
            if (c[3] >= 1) break;
        }
        return layers.reverse().reduce((under, top) => over(top, under), [255, 255, 255]);
    };
    const low = [];
    for (const e of document.querySelectorAll('body *')) {
        const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
        if (!own || !e.getClientRects().length || e.closest('[hidden], details:not([open]) > :not(summary), option, script')
            || e.disabled) continue;
        const style = getComputedStyle(e);
        if (style.visibility === 'hidden') continue;
        const bg = background(e), fg = over(rgba(style.color), bg);
        const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
        const ratio = (hi + 0.05) / (lo + 0.05);
        if (ratio < 4.5) low.push(`${e.tagName}.${e.className} "${e.textContent.trim().slice(0, 20)}" ${style.color} on rgb(${bg.map(Math.round)}) ${ratio.toFixed(2)}`);
    }
    return low.slice(0, 8);
}"""

COVERED_NAMES = """() => [...document.querySelectorAll('#viewer-board .card-name')].filter(n => {
    // a name hidden under another card of its stack
    n.scrollIntoView({block: 'center', inline: 'center'});
    const r = n.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !hit || hit.closest('.card') !== n.closest('.card');
}).map(n => n.textContent)"""


def card_texts(page) -> dict:
    return json.loads(page.locator("#viewer-card-texts").text_content())


def check_tiles_legible(page, game: str, step: int) -> None:
    where = (game, step, page.viewport_size["width"])
    assert page.locator("#viewer-board .card-name").count() > 0, where
    assert not page.evaluate(CLIPPED_NAMES), (where, page.evaluate(CLIPPED_NAMES))
    assert not page.evaluate(OVERLAPS_IN_TILES), (where, page.evaluate(OVERLAPS_IN_TILES))
    assert not page.evaluate(CONTRAST), (where, page.evaluate(CONTRAST))
    texts = card_texts(page)
    for card_id, name, title in page.evaluate(TOOLTIPS):
        assert title.startswith(name), (where, card_id, title)  # the name, then what the card does
        expected = texts[card_id]["text"]
        effect = title.split(" — ", 1)[1] if " — " in title else ""
        # a variable Bonus card shows this round's face: one of the two the table gives
        assert (effect and effect in expected) if expected else not effect, (where, card_id, title, expected)


def open_step(browser, site, match_id: int, step: int, width: int, view: str = "spectator"):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(f"{site.url}/matches/{match_id}/#step={step}&view={view}")
    page.wait_for_selector("#viewer[data-ready]")
    return page


def last_misty_move(frames: list) -> tuple[int, dict]:
    """The last step whose event is a card moving to another cell, and that event."""
    for step in range(len(frames) - 1, 0, -1):
        log, before = frames[step]["log"], frames[step - 1]["log"]
        if len(log) == len(before) + 1 and log[-1]["event"] == "move" and "to_row" in log[-1]:
            return step, log[-1]
    raise AssertionError("no move in the replay")


def step_with_cards_on_the_board(game: str, frames: list[dict]) -> int:
    """The first step from a third of the match on whose board shows cards: a Tussie Mussie round
    starts with empty arrangements (the last round's are in its history, not on the board)."""
    return next(step for step in range(len(frames) // 3, len(frames))
                if game != "tussie-mussie" or any(frames[step]["arrangements"]))


@pytest.mark.parametrize("game", list(GAMES))
def test_each_games_cards_are_legible_named_and_explained(site, replays, browser, game) -> None:
    """Full names never cut off, nothing drawn over a tile's text, every text at contrast >= 4.5:1, the
    tooltip names the card and says what it does (the rules' words, from the engine's card texts)."""
    replay, match_id = finished_match(site, replays, game, "legible")
    frames = decode_frames(replay["public"])
    steps = [step_with_cards_on_the_board(game, frames), len(frames) - 1]
    if game == "misty":
        steps.append(last_misty_move(frames)[0])
    for width in (1280, 390):
        for step in steps:
            page = open_step(browser, site, match_id, step, width)
            check_tiles_legible(page, game, step)
            page.close()
    page = open_step(browser, site, match_id, steps[0], 390, view="all")  # every hand shown
    # a replay served in parts fetches the seats' views after the first (spectator's) drawing
    wait_until(lambda: page.locator("#viewer").get_attribute("data-perspective") == "all", timeout=30)
    check_tiles_legible(page, game, steps[0])
    page.close()
    # the spectator's events name the cards and seats, never their ids
    page = open_step(browser, site, match_id, len(frames) - 1, 1280)
    page.click("#viewer-events summary")
    events = page.locator("#viewer-events").inner_text() + page.locator("#viewer-board").inner_text()
    ids = [card_id for card_id in card_texts(page) if re.search(rf"(?<![\w-]){re.escape(card_id)}(?![\w-])", events)]
    assert not ids, ids
    page.close()


def test_misty_windows_are_labelled_as_the_events_name_cells_and_the_moved_card_is_highlighted(site, replays, browser) -> None:
    replay, match_id = finished_match(site, replays, "misty", "labels")
    frames = decode_frames(replay["public"])
    step, move = last_misty_move(frames)
    for width in (1280, 390):
        page = open_step(browser, site, match_id, step, width)
        for window in page.locator(".misty-window").all():
            rows = window.locator(".misty-row-label").all_inner_texts()
            cols = window.locator(".misty-col-label").all_inner_texts()
            cells = window.locator(".misty-cell").evaluate_all("els => els.map(e => [+e.dataset.row, +e.dataset.col, e.title])")
            assert rows == [f"row {r}" for r in sorted({r for r, _, _ in cells})]
            assert cols == [f"col {c}" for c in sorted({c for _, c, _ in cells})]
            assert all(title.startswith(f"({r}, {c})") for r, c, title in cells)  # "(1, 0)" as the events say
        # the event "moves from (r, c) to (r', c')": the moved card, highlighted, sits in the cell labelled (r', c')
        event = f"moves from ({move['row']}, {move['col']}) to ({move['to_row']}, {move['to_col']})"
        assert event in page.locator(".misty-log").inner_text()
        moved = page.locator(f".seat-panel[data-seat='{move['seat']}'] .misty-window .card.just-moved")
        assert moved.count() == 1 and moved.get_attribute("data-card-id") == move["card"]
        cell = moved.locator("xpath=ancestor::div[contains(@class, 'misty-cell')]")
        assert cell.get_attribute("title").startswith(f"({move['to_row']}, {move['to_col']})")
        # a stack is fanned: every card of it shows its name, none hidden under another
        stacked = page.locator(".misty-cell.stacked .card-name")
        assert stacked.count() >= 2
        assert not page.evaluate(COVERED_NAMES), page.evaluate(COVERED_NAMES)
        page.close()


def test_the_site_menu_folds_at_phone_width_and_opens_on_click(site, browser) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{site.url}/")
    assert page.locator("header.top nav a", has_text="Tournaments").is_visible()
    assert not page.locator("header.top .menu-toggle").is_visible()
    page.close()
    page = browser.new_page(viewport={"width": 390, "height": 800})
    page.goto(f"{site.url}/")
    toggle = page.locator("header.top .menu-toggle")
    assert toggle.is_visible() and toggle.get_attribute("aria-expanded") == "false"
    assert not page.locator("header.top nav a", has_text="Tournaments").is_visible()
    assert page.locator("header.top").bounding_box()["height"] < 60  # one line: the brand and the button
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true"
    link = page.locator("header.top nav a", has_text="Tournaments")
    assert link.is_visible()
    assert not wider_than_the_viewport(page), wider_than_the_viewport(page)
    link.click()
    page.wait_for_url("**/tournaments/")
    page.close()


def test_the_fifth_game_is_drawn_by_its_own_renderer_from_its_package(site, replays, browser) -> None:
    """Kuhn poker's match page loads the renderer and styles of its package (never the generic
    outline): the table with each seat's card and chips, this hand's betting, the hands played with
    the cards a showdown showed; its cards legible at both widths; a seat's perspective shows that
    seat's own card and the other face down; its jumps go hand by hand."""
    replay, match_id = finished_match(site, replays, FIFTH, "fifth")
    frames = decode_frames(replay["public"])
    last = len(frames) - 1
    for width in (1280, 390):
        page = open_step(browser, site, match_id, last, width, view="all")
        wait_until(lambda: page.locator("#viewer").get_attribute("data-perspective") == "all", timeout=30)  # noqa: B023 - waited for here, before the loop moves on
        board = page.locator("#viewer-board[data-game='kuhn-poker']")
        assert board.locator(".kuhn-table .seat-panel").count() == 2
        assert board.locator(".kuhn-hand").count() == min(8, len(frames[last]["rounds"]))
        assert board.locator(".generic-object").count() == 0
        check_tiles_legible(page, FIFTH, last)
        assert not wider_than_the_viewport(page), wider_than_the_viewport(page)
        page.close()
    page = open_step(browser, site, match_id, 1, 1280, view="seat-0")
    wait_until(lambda: page.locator("#viewer").get_attribute("data-perspective") == "seat-0", timeout=30)
    own = replay["views"][0][0]["k"]["cards"][0]["id"] if "k" in replay["views"][0][0] else None
    mine = page.locator(".kuhn-table .seat-panel[data-seat='0'] .card[data-card-id]")
    assert mine.count() == 1 and (own is None or mine.get_attribute("data-card-id") == own)
    assert page.locator(".kuhn-table .seat-panel[data-seat='1'] .card-back").count() == 1
    page.click("#viewer-jumps button.viewer-jump-next[data-mark='round']")
    assert "Hand 2 / 10" in page.locator("#viewer-board .status-line").inner_text()
    page.close()


LONG_NAME = "a-bot-with-a-name-as-long-as-the-site-allows-which-is-64-letters"[:64]
LADDER = """
from arena.models import Bot, BotVersion, Rating
from arena.competitions import ladder_editions
from arena.competitions.ladder import standard_ladder
for i, name in enumerate(["{long}", "short", "random#9"]):
    bot = Bot.objects.create(name=name, game="tussie-mussie", kind=Bot.HOUSE)
    version = BotVersion.objects.create(bot=bot, number=2, spec="random", state="active")
    Rating.objects.create(ladder=standard_ladder("tussie-mussie"), bot_version=version, mu=25 - i, sigma=8, games=1)
ladder_editions.renew("tussie-mussie")
"""


def test_the_ladder_fits_a_phone_and_a_desktop_long_names_cut_and_whole_on_hover(site, browser) -> None:
    site.django(LADDER.format(long=LONG_NAME))
    for width in (1280, 390):
        page = browser.new_page(viewport={"width": width, "height": 800})
        page.goto(f"{site.url}/ladder/tussie-mussie/")
        assert page.locator("link[rel=icon]").count() == 1  # the site's favicon
        assert not wider_than_the_viewport(page), (width, wider_than_the_viewport(page))
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1"), \
            (width, page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]"))
        name = page.locator("table.ladder a.long-name", has_text="a-bot-with")
        assert name.get_attribute("title") == f"{LONG_NAME} v2"
        assert name.evaluate("e => e.scrollWidth > e.clientWidth")  # cut with an ellipsis, whole on hover
        headers = page.locator("table.ladder th:visible").all_inner_texts()
        assert {"Rank", "Bot", "Games"} <= {h.split(" ")[0] for h in headers}, headers
        assert page.locator("table.ladder td:visible", has_text="1").count() >= 3  # the games column shows
        options = page.locator("select[name=ladder] option").all_inner_texts()
        # option keys as words, not "tussie-mussie/standard/honeysuckle=any_row,marigold_gap=close"
        assert "standard · honeysuckle: any row · marigold gap: close (standard)" in options, options
        page.close()


LAYOUT_CHECK = """() => {
  const found = [];
  const width = document.documentElement.clientWidth;
  document.querySelectorAll('#viewer-board .card').forEach(card => {
    const r = card.getBoundingClientRect();
    if (r.right > width + 1) found.push('off the page: ' + card.className);
    for (let p = card.parentElement; p && p.id !== 'viewer-board'; p = p.parentElement) {
      if (getComputedStyle(p).overflowX === 'visible') continue;
      const box = p.getBoundingClientRect();
      if (r.right > box.right + 1 || r.left < box.left - 1) { found.push('cut by ' + p.className + ': ' + card.className); break; }
    }
  });
  if (document.documentElement.scrollWidth > width + 1) found.push('the page scrolls sideways');
  return found;
}"""


def test_no_card_is_clipped_and_no_page_scrolls_sideways_at_desktop_and_phone_widths(site, browser, tmp_path) -> None:
    """Every game's largest table, at its last step (the most cards out), at 1280 and 390 px: every card
    inside its panel and the page, a wide table scrolling in its own box, never the page."""
    from referee.games import GAMES as REGISTRY

    for game in REGISTRY.values():
        players = max(game.variant(None).player_counts)
        replay_path = tmp_path / f"{game.id}.replay.json.gz"
        subprocess.run([sys.executable, "-m", "bots_sdk", "play", game.id, *["random"] * players, "--seed", "3",
                        "--replay", str(replay_path)], cwd=ROOT, check=True, capture_output=True)
        match_id = make_match(site, f"layout/{game.id}", game.id, players, "finished", seed=3, replay=str(replay_path),
                              result={"scores": [0] * players, "ranks": list(range(1, players + 1))})
        for width in (1280, 390):
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto(f"{site.url}/matches/{match_id}/")
            page.wait_for_selector("#viewer[data-ready]", timeout=30_000)
            page.locator("#viewer-last").click()
            assert page.locator("#viewer-board .card").count() > 0, game.id
            assert page.evaluate(LAYOUT_CHECK) == [], (game.id, width)
            page.close()


def test_joining_a_live_six_seat_bszzzz_match_shows_its_head_at_once(site, browser, tmp_path) -> None:
    """Joined at two thirds of ~3,600 steps, the page draws the newest frame, not every one before
    it (timed in bench/web.py, live_catch_up_ms; here only loosely), and says it is live."""
    replay_path = tmp_path / "bszzzz-6.replay.json.gz"
    subprocess.run([sys.executable, "-m", "bots_sdk", "play", "bszzzz", *["random"] * 6, "--seed", "3",
                    "--replay", str(replay_path)], cwd=ROOT, check=True, capture_output=True)
    frames = [json.dumps(f) for f in read(replay_path)["public"]]
    head = len(frames) * 2 // 3
    match_id = make_match(site, "live/bszzzz-6", "bszzzz", 6, "running")
    live_frames.LiveMatch(match_id, site.redis()).add(0, frames[:head])
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{site.url}/matches/{match_id}/")
    page.evaluate(WATCH_SHOWN_STEPS)
    wait_until(lambda: shown_step(page) == head - 1, timeout=10)
    assert page.locator("#viewer.is-live .badge-live").count() == 1
    assert len(page.evaluate("window.seenSteps")) < 5  # straight to the head, not step by step
    page.close()
