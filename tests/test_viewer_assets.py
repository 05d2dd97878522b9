"""The replay viewer's assets (docs/viewer.md): the files exist, every game has a renderer, the
template loads the static files and holds the controls. The JavaScript itself is exercised in a
browser by the Playwright tests; here only `node --check` runs, when Node is installed."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from referee.games.registry import GAMES

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


def renderer_registry(source: str) -> set[str]:
    match = re.search(r"var RENDERERS = \{(.*?)\};", source, re.S)
    assert match, "viewer.js has no RENDERERS registry"
    return set(re.findall(r'"([a-z0-9-]+)"\s*:', match.group(1)))


def test_static_files_exist() -> None:
    for path in (JS, CSS, TEMPLATE, DOC):
        assert path.is_file() and path.stat().st_size > 0, path


def test_every_game_has_a_renderer() -> None:
    registry = renderer_registry(JS.read_text())
    assert set(GAMES) <= registry, f"no renderer for {set(GAMES) - registry}"
    assert {"tussie-mussie", "tricky-twist", "misty", "bszzzz"} <= registry


def test_the_viewer_never_parses_html() -> None:
    source = JS.read_text()
    for forbidden in (".innerHTML", ".outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                      "createContextualFragment", "DOMParser"):
        assert forbidden not in source, forbidden


def test_cards_are_tiles_not_text() -> None:
    css = CSS.read_text()
    for selector in (".card ", ".card.card-back", ".card-value", ".card-name", ".card-kind", ".colour-red"):
        assert selector in css, selector
    assert not re.search(r"url\(\s*['\"]?https?:", css), "no images from the network"


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


def test_template_without_optional_values(render) -> None:
    html = render({"replay_url": "/r.json"})
    assert 'id="viewer-download"' not in html
    assert 'id="viewer-perspectives"' in html
    assert "data-poll-seconds" not in html
    assert 'data-poll-seconds="0"' in render({"replay_url": "/r.json", "poll_seconds": 0})


@pytest.mark.skipif(shutil.which("node") is None, reason="Node is not installed")
def test_viewer_js_parses() -> None:
    subprocess.run(["node", "--check", str(JS)], check=True, capture_output=True, timeout=60)


def test_template_renders_the_card_texts_for_the_tooltips(render) -> None:
    from arena.games import card_texts

    html = render({"replay_url": "/r.json", "card_texts": card_texts("tussie-mussie")})
    script = re.search(r'<script id="viewer-card-texts" type="application/json">(.*?)</script>', html).group(1)
    assert '"red_rose": {"name": "Red Rose", "text": "0 hearts, red; scoring: +1 for each heart on all your tiles"}' in script
    assert 'id="viewer-card-texts"' not in render({"replay_url": "/r.json", "card_texts": card_texts("no-such-game")})
