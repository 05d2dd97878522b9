"""The replay viewer's assets (docs/viewer.md): the core's files exist, each game's renderer (in its
package, optional: the core draws a game without one generically) registers itself under its id,
the template loads the core and the game's files and holds the controls. The JavaScript itself is
exercised in a browser by the Playwright tests; here only `node --check` runs, when Node is
installed."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from referee.games.registry import GAMES, packages

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "webui" / "static" / "webui"
JS = STATIC / "viewer.js"
CSS = STATIC / "viewer.css"
TEMPLATE = ROOT / "webui" / "templates" / "webui" / "viewer.html"
DOC = ROOT / "docs" / "viewer.md"

CONTROL_IDS = (
    "viewer", "viewer-step", "viewer-step-count", "viewer-slider", "viewer-play", "viewer-back",
    "viewer-forward", "viewer-first", "viewer-last", "viewer-speed", "viewer-perspective",
    "viewer-board", "viewer-action", "viewer-logs", "viewer-status", "viewer-result",
)


def renderers() -> dict[str, Path]:
    """Each game's renderer file, by game id, for the games whose package has one."""
    found = {}
    for game_id, package in packages().items():
        folder = package.viewer_folder
        if folder is not None and (folder / "renderer.js").is_file():
            found[game_id] = folder / "renderer.js"
    return found


def scripts() -> list[Path]:
    return [JS, *renderers().values()]


def test_static_files_exist() -> None:
    for path in (JS, CSS, TEMPLATE, DOC):
        assert path.is_file() and path.stat().st_size > 0, path


def test_each_games_renderer_registers_itself_and_a_game_without_one_is_drawn_generically() -> None:
    """docs/engines.md: a renderer is optional. Each one there is registers its own game's id (and
    no other), with its styles beside it; the core falls back to its generic renderer."""
    found = renderers()
    assert {"tussie-mussie", "tricky-twist", "misty", "bszzzz", "kuhn-poker"} <= set(found)
    for game_id, path in found.items():
        source = path.read_text()
        assert re.findall(r"viewer\.register\(\s*\"([a-z0-9-]+)\"", source) == [game_id], path
        assert (path.parent / "renderer.css").is_file(), path
    core = JS.read_text()
    assert "function register(gameId, renderer)" in core and "render: renderGeneric" in core
    assert not set(GAMES) & set(re.findall(r'"([a-z0-9-]+)"', core)), "the core names no game"


def test_the_viewer_never_parses_html() -> None:
    source = "\n".join(path.read_text() for path in scripts())
    for forbidden in (".innerHTML", ".outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                      "createContextualFragment", "DOMParser"):
        assert forbidden not in source, forbidden


def test_cards_are_tiles_not_text() -> None:
    css = CSS.read_text()
    for selector in (".card ", ".card.card-back", ".card-value", ".card-name", ".card-kind", ".colour-red"):
        assert selector in css, selector
    for path in [CSS, *(p.parent / "renderer.css" for p in renderers().values())]:
        assert not re.search(r"url\(\s*['\"]?https?:", path.read_text()), f"{path}: no images from the network"


def test_template_loads_the_static_files() -> None:
    text = TEMPLATE.read_text()
    assert "{% load static %}" in text
    assert re.search(r"""\{% static ['"]webui/viewer\.js['"] %\}""", text)
    assert re.search(r"""\{% static ['"]webui/viewer\.css['"] %\}""", text)
    for element_id in CONTROL_IDS:
        assert f'id="{element_id}"' in text, element_id
    for speed in ("0.5", "1", "2", "4"):
        assert f'<option value="{speed}"' in text


def test_the_controls_are_documented() -> None:
    doc = DOC.read_text()
    assert "#step=12&view=seat-1" in doc
    for element_id in CONTROL_IDS:
        assert f"#{element_id}" in doc, element_id


@pytest.fixture
def render(settings):
    """The viewer's template rendered by the site's Django (pytest-django has set it up)."""
    from django.template.loader import render_to_string

    return lambda context: render_to_string("webui/viewer.html", context)


def test_template_renders(render) -> None:
    html = render({
        "replay_url": '/matches/7/replay.json?x="<b>"',
        "perspectives": ["spectator", "seat-1"],
        "download_url": "/matches/7/replay.gz",
    })
    assert '<script src="/static/webui/viewer.js" defer></script>' in html
    assert 'href="/static/webui/viewer.css"' in html
    assert 'data-replay-url="/matches/7/replay.json?x=&quot;&lt;b&gt;&quot;"' in html
    assert '<script id="viewer-perspectives" type="application/json">["spectator", "seat-1"]</script>' in html
    assert 'id="viewer-download" class="viewer-download" href="/matches/7/replay.gz"' in html
    assert "/static/games/" not in html  # no game given: the core alone


def test_template_loads_the_games_renderer_after_the_core(render) -> None:
    html = render({"replay_url": "/r.json", "game": "misty"})
    core = html.index('<script src="/static/webui/viewer.js" defer></script>')
    assert html.index('<script src="/static/games/misty/renderer.js" defer></script>') > core
    assert html.index('<link rel="stylesheet" href="/static/games/misty/renderer.css">') > \
        html.index('<link rel="stylesheet" href="/static/webui/viewer.css">')
    assert "/static/games/" not in render({"replay_url": "/r.json", "game": "no-such-game"})


def test_template_without_optional_values(render) -> None:
    html = render({"replay_url": "/r.json"})
    assert 'id="viewer-download"' not in html
    assert 'id="viewer-perspectives"' in html
    assert "data-poll-seconds" not in html
    assert 'data-poll-seconds="0"' in render({"replay_url": "/r.json", "poll_seconds": 0})


@pytest.mark.skipif(shutil.which("node") is None, reason="Node is not installed")
def test_viewer_js_parses() -> None:
    for path in scripts():
        subprocess.run(["node", "--check", str(path)], check=True, capture_output=True, timeout=60)


def test_template_renders_the_card_texts_for_the_tooltips(render) -> None:
    from arena.games import card_texts

    html = render({"replay_url": "/r.json", "card_texts": card_texts("tussie-mussie")})
    script = re.search(r'<script id="viewer-card-texts" type="application/json">(.*?)</script>', html).group(1)
    assert '"red_rose": {"name": "Red Rose", "text": "0 hearts, red; scoring: +1 for each heart on all your tiles"}' in script
    assert 'id="viewer-card-texts"' not in render({"replay_url": "/r.json", "card_texts": card_texts("no-such-game")})
