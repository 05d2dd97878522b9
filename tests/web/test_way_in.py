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

pytestmark = pytest.mark.django_db


def test_writing_a_bot_starts_with_the_starter_kit_and_the_exact_commands(client) -> None:
    page = client.get(reverse("learn"))
    assertContains(page, f'href="{reverse("starter_kit")}"')
    assertContains(page, ".venv/bin/pip install parlour-*.whl")
    assertContains(page, "python -m bots_sdk play tussie-mussie my_bot.py:HeartsFirst greedy")
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
    for module in ("bots_sdk/__init__.py", "bots_sdk/__main__.py", "referee/games/tussie_mussie/__init__.py",
                   "referee/games/tussie_mussie/rules.md", "parlour/v1/referee_pb2.py"):
        assert module in inside, module
    entry_points = next(wheel.read(n).decode() for n in inside if n.endswith("entry_points.txt"))
    assert "[parlour.games]" in entry_points and "tussie-mussie = referee.games.tussie_mussie" in entry_points
    # the example bot is a working bot: it plays whole matches against a house bot
    (tmp_path / "my_bot.py").write_bytes(kit.read("parlour-starter-kit/my_bot.py"))
    from bots_sdk.greedy import GreedyBot
    from bots_sdk.loading import load_bot_class
    from bots_sdk.local import play_match

    hearts_first = load_bot_class(tmp_path / "my_bot.py", "HeartsFirst")
    for seed in range(3):  # strict: any fault of the example bot would raise
        played = play_match("tussie-mussie", [hearts_first(), GreedyBot()], seed=seed, strict=True)
        assert not played.faults and played.result["statuses"] == ["ok", "ok"]


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
