"""Decision notes on the site: a seat's notes are its bot's owner's to read (staff read all), or
everyone's once the owner makes the bot's notes public; the viewer shows them, and at the owner's
steps the command that asks the bot that decision again."""
from __future__ import annotations

import gzip
import json

import pytest
from django.urls import reverse
from pytest_django.asserts import assertContains, assertNotContains

from arena.models import Bot
from bots_sdk.local import play_match
from bots_sdk.search.mcts import MctsBot
from referee.replay import build_replay, write_replay

from .site_data import bot, match, user

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def noted_replay(tmp_path_factory):
    """A finished Tussie Mussie match of two mcts bots: both seats' decisions carry notes."""
    path = tmp_path_factory.mktemp("notes") / "m.replay.json.gz"
    write_replay(path, build_replay(play_match("tussie-mussie", [MctsBot(playouts=10, seed=1),
                                                                 MctsBot(playouts=10, seed=2)], seed=1).match))
    return path


@pytest.fixture
def table(noted_replay, tmp_path):
    copy = tmp_path / "m.replay.json.gz"  # the site writes its shared copies beside it
    copy.write_bytes(noted_replay.read_bytes())
    ada, bob = user("ada"), user("bob")
    private, shared = bot(ada, "Private"), bot(bob, "Shared")
    return ada, bob, shared, match([private, shared], replay=copy, ranks=[1, 2], scores=[5.0, 3.0])


def notes_seen(client, done, part: str | None = None, download: bool = False) -> set[int]:
    if download:
        body = client.get(reverse("replay_download", args=[done.pk])).content
    else:
        url = reverse("replay_json", args=[done.pk]) + (f"?part={part}" if part else "")
        body = client.get(url, HTTP_ACCEPT_ENCODING="gzip").content
    return {n["seat"] for n in json.loads(gzip.decompress(body))["notes"]}


def every_road(client, done) -> list[set[int]]:
    return [notes_seen(client, done), notes_seen(client, done, "spectator"), notes_seen(client, done, download=True)]


def test_a_strangers_view_carries_no_notes_of_a_private_bot(client, table) -> None:
    ada, bob, shared, done = table
    assert every_road(client, done) == [set()] * 3  # a visitor (and the shared copy made for visitors)
    client.force_login(user("carl"))
    assert every_road(client, done) == [set()] * 3
    client.force_login(ada)
    assert every_road(client, done) == [{0}] * 3  # her bot's seat only
    client.force_login(user("root", is_staff=True))
    assert every_road(client, done) == [{0, 1}] * 3


def test_an_owner_makes_a_bots_notes_public(client, table) -> None:
    ada, bob, shared, done = table
    assert every_road(client, done) == [set()] * 3  # the visitors' shared copy exists now
    client.force_login(ada)
    assert client.post(reverse("bot_notes_public", args=[shared.pk]), {"public": "1"}).status_code == 403
    client.force_login(bob)
    page = client.get(reverse("bot", args=[shared.pk]))
    assertContains(page, "Make its notes public")
    client.post(reverse("bot_notes_public", args=[shared.pk]), {"public": "1"})
    assert Bot.objects.get(pk=shared.pk).notes_public
    client.logout()
    assert every_road(client, done) == [{1}] * 3  # everyone reads seat 1's notes; seat 0's stay private
    client.force_login(ada)
    assert every_road(client, done) == [{0, 1}] * 3


def test_the_match_page_offers_the_decide_command_to_the_owner_only(client, table) -> None:
    ada, bob, shared, done = table
    page = client.get(reverse("match", args=[done.pk]))
    assertNotContains(page, "data-own-seats")
    client.force_login(ada)
    assertContains(client.get(reverse("match", args=[done.pk])),
                   f'data-own-seats="0" data-replay-file="match-{done.pk}.replay.json.gz"')
