"""A new game in the registry reaches the platform with no other change: the arena's choices (no
migration), the site's navigation and ladder, the upload form, the check match's table size."""
from __future__ import annotations

import dataclasses

import pytest
from django.core.management import call_command
from django.urls import reverse
from pytest_django.asserts import assertContains

from arena.games import game_choices, game_info
from arena.models import Bot
from referee.games import GAMES
from webui.forms import UploadForm

from .site_data import user

pytestmark = pytest.mark.django_db


@pytest.fixture
def fifth_game(monkeypatch):
    """A fake fifth game, registered for the duration of the test (the rules of an existing one
    under a new id: the registry is all that is changed)."""
    base = GAMES["misty"]
    fake = dataclasses.replace(base, id="fake-fifth", name="Fake Fifth Game",
                               variants={name: dataclasses.replace(v, player_counts=(3, 4))
                                         for name, v in base.variants.items()})
    monkeypatch.setitem(GAMES, fake.id, fake)
    return fake


def test_a_fifth_game_appears_everywhere_with_no_other_change(client, fifth_game, capsys) -> None:
    assert ("fake-fifth", "Fake Fifth Game") in game_choices()
    assert game_info("fake-fifth").smallest_table == 3  # the check match's table
    owner = user("nia")
    bot = Bot(owner=owner, name="newcomer", game="fake-fifth", kind=Bot.UPLOAD)
    bot.full_clean()  # the model's choices follow the registry
    bot.save()
    call_command("makemigrations", "arena", "--check", "--dry-run")  # no migration for a new game
    home = client.get(reverse("home"))
    assertContains(home, f'<a href="{reverse("ladder", args=["fake-fifth"])}">Fake Fifth Game</a>', html=False)
    assertContains(client.get(reverse("ladder", args=["fake-fifth"])), "Fake Fifth Game")
    assert ("fake-fifth", "Fake Fifth Game") in UploadForm().fields["game"].choices
    assertContains(client.get(reverse("bot", args=[bot.pk])), "Fake Fifth Game")


def test_without_it_the_game_is_unknown(client) -> None:
    assert "fake-fifth" not in dict(game_choices())
    assert client.get(reverse("ladder", args=["fake-fifth"])).status_code == 404
