"""The fifth game, Kuhn poker (examples/kuhn-poker: its own pip package, found by its entry point),
on the site with no file of the site naming it: the arena's choices (no migration), the navigation,
its ladder, its rules under /learn/ from its package (and the generic encoding for its messages),
its renderer and styles served from its package and loaded by its match page."""
from __future__ import annotations

import pytest
from django.core.management import call_command
from django.urls import reverse
from pytest_django.asserts import assertContains, assertNotContains

from arena.games import game_choices, game_info
from arena.models import Bot
from bots_sdk import RandomBot
from bots_sdk.local import play_match
from referee.replay import build_replay, write_replay
from webui.forms import UploadForm

from .site_data import bot, match, user

pytestmark = pytest.mark.django_db
GAME = "kuhn-poker"


def test_the_fifth_game_appears_everywhere_with_no_other_change(client) -> None:
    assert (GAME, "Kuhn poker") in game_choices()
    assert game_info(GAME).smallest_table == 2 and not game_info(GAME).solo
    made = Bot(owner=user("nia"), name="newcomer", game=GAME, kind=Bot.UPLOAD)
    made.full_clean()  # the model's choices follow the registry
    made.save()
    call_command("makemigrations", "arena", "--check", "--dry-run")  # no migration for a new game
    home = client.get(reverse("home"))
    assertContains(home, f'<a href="{reverse("ladder", args=[GAME])}"><strong>Kuhn poker</strong></a>', html=False)
    assertNotContains(home, reverse("solo", args=[GAME]))  # no solo variant, no high-score table
    assertContains(home, reverse("solo", args=["tussie-mussie"]))  # a game with one: found by its variants
    assertContains(client.get(reverse("ladder", args=[GAME])), "Kuhn poker")
    assert (GAME, "Kuhn poker") in UploadForm().fields["game"].choices
    assertContains(client.get(reverse("bot", args=[made.pk])), "Kuhn poker")


def test_its_rules_come_from_its_package_and_its_messages_are_the_generic_encoding(client) -> None:
    page = client.get(reverse("learn_game", args=[GAME]))
    assertContains(page, "<h1>Kuhn poker (<code>kuhn-poker</code>, engine 1.0.0)</h1>", html=False)
    assertContains(page, "−1/18")  # its rules.md, rendered
    assertContains(page, "in the generic encoding")
    assertNotContains(page, ".proto</code>")
    misty = client.get(reverse("learn_game", args=["misty"]))
    assertContains(misty, "<code>protos/parlour/v1/misty.proto</code>", html=False)  # a game with typed messages


def test_its_match_page_loads_its_renderer_after_the_core_and_the_site_serves_it(client, tmp_path) -> None:
    replay = tmp_path / "kuhn.replay.json.gz"
    outcome = play_match(GAME, [RandomBot(), RandomBot()], seed=3)
    write_replay(replay, build_replay(outcome.match))
    played = match([bot(None, "random", game=GAME, kind=Bot.HOUSE), bot(None, "greedy", game=GAME, kind=Bot.HOUSE)],
                   game=GAME, ranks=outcome.result["ranks"], scores=outcome.result["scores"], replay=replay)
    page = client.get(reverse("match", args=[played.pk])).content.decode()
    core = page.index('<script src="/static/webui/viewer.js" defer></script>')
    assert page.index('<script src="/static/games/kuhn-poker/renderer.js" defer></script>') > core
    assert '<link rel="stylesheet" href="/static/games/kuhn-poker/renderer.css">' in page
    assert "/static/games/misty/" not in page
    served = client.get("/static/games/kuhn-poker/renderer.js")
    assert served.status_code == 200
    assert b'viewer.register("kuhn-poker"' in b"".join(served.streaming_content)
    assert client.get("/static/games/kuhn-poker/engine.py").status_code == 404  # its code is not served
