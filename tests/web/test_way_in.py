"""A way in without the repository (issue: a site people enjoy): the starter kit the site serves,
the steps on "Writing a bot", each game's example decision before its contract."""
from __future__ import annotations

import html
import io
import json
import re
import zipfile

import pytest
from django.urls import reverse
from pytest_django.asserts import assertContains

from arena.games import game_choices
from arena.starter_kit import example_game

pytestmark = pytest.mark.django_db


def test_writing_a_bot_starts_with_the_starter_kit_and_the_exact_commands(client) -> None:
    page = client.get(reverse("learn"))
    assertContains(page, f'href="{reverse("starter_kit")}"')
    assertContains(page, ".venv/bin/pip install parlour-*.whl")
    assertContains(page, f"python -m bots_sdk play {example_game()} my_bot.py:MyBot greedy")
    assert "make test" not in page.content.decode()


def test_the_starter_kit_holds_the_sdk_wheel_an_example_bot_that_plays_and_its_readme(client, tmp_path) -> None:
    answer = client.get(reverse("starter_kit"))
    assert answer.status_code == 200 and answer["Content-Type"] == "application/zip"
    assert 'filename="parlour-starter-kit.zip"' in answer["Content-Disposition"]
    kit = zipfile.ZipFile(io.BytesIO(b"".join(answer.streaming_content)))
    names = kit.namelist()
    (wheel_name,) = [n for n in names if n.endswith(".whl")]
    readme = kit.read("parlour-starter-kit/README.md").decode()
    assert f"pip install {wheel_name.split('/')[-1]}" in readme  # the exact file, not a pattern
    wheel = zipfile.ZipFile(io.BytesIO(kit.read(wheel_name)))
    inside = set(wheel.namelist())
    for module in ("bots_sdk/__init__.py", "bots_sdk/__main__.py", "parlour/v1/referee_pb2.py"):
        assert module in inside, module
    entry_points = next(wheel.read(n).decode() for n in inside if n.endswith("entry_points.txt"))
    assert "[parlour.games]" in entry_points
    from referee.games.registry import packages

    ours = {game_id: p for game_id, p in packages().items() if p.distribution == "parlour"}
    assert len(ours) >= 4
    for game_id, package in ours.items():  # every game the project registers, its rules with it
        assert f"{game_id} = {package.package.__name__}" in entry_points
        assert f"{package.package.__name__.replace('.', '/')}/rules.md" in inside
    assert f"play {example_game()} my_bot.py:MyBot random --games 20" in readme
    # the example bot is a working bot, in every game: it plays whole matches against a house bot
    (tmp_path / "my_bot.py").write_bytes(kit.read("parlour-starter-kit/my_bot.py"))
    from bots_sdk.greedy import GreedyBot
    from bots_sdk.loading import load_bot_class
    from bots_sdk.local import play_match
    from referee.games import GAMES

    my_bot = load_bot_class(tmp_path / "my_bot.py", "MyBot")
    for game in GAMES.values():  # strict: any fault of the example bot would raise
        players = min(game.variant(None).player_counts)
        played = play_match(game.id, [my_bot()] + [GreedyBot() for _ in range(players - 1)], seed=3, strict=True)
        assert not played.faults and played.result["statuses"] == ["ok"] * players


@pytest.mark.parametrize("game", [g for g, _ in game_choices()])
def test_each_games_page_shows_one_example_decision_after_the_rules_and_before_the_contract(client, game) -> None:
    page = client.get(reverse("learn_game", args=[game])).content.decode()
    shown = re.search(r'<pre class="example-decision">(.*?)</pre>', page, re.S)
    assert shown, "no example decision"
    decision = json.loads(html.unescape(shown.group(1)))
    assert decision["game"] == game and decision["legal_actions"]
    assert len(decision["labels"]) == len(decision["legal_actions"])
    assert all(isinstance(label, str) and label and "var_" not in label for label in decision["labels"])
    assert set(decision) >= {"seat", "players", "observation", "variant", "options"}
    assert page.index('id="rules"') < page.index('id="example"') < page.index('id="forms"')
