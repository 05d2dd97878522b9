"""Accounts and the site's pages for newcomers: login throttling, the Content Security Policy,
styled 403/404 pages, and the onboarding pages (quickstart, one page per game)."""
from __future__ import annotations

import re

import pytest
from django.urls import reverse
from pytest_django.asserts import assertContains

from arena.bots.house_entrants import house_version
from arena.competitions.ladder import standard_ladder
from arena.models import Bot, Rating

from .site_data import bot, match, user

pytestmark = pytest.mark.django_db


def log_in(client, username: str, password: str):
    return client.post(reverse("login"), {"username": username, "password": password})


def test_wrong_passwords_are_throttled_per_account_and_address(client, settings) -> None:
    settings.AXES_FAILURE_LIMIT = 5
    user("ada")
    user("bea")
    for _ in range(4):
        assert log_in(client, "ada", "wrong").status_code == 200  # the form again, with its error
    locked = log_in(client, "ada", "wrong")
    assert locked.status_code == 429
    assertContains(locked, "Too many failed logins", status_code=429)
    assertContains(locked, "from your address are refused\nfor 15 minutes.", status_code=429)  # in words, not 0:15:00
    # locked out: even the right password is refused now, without being checked
    assert log_in(client, "ada", "pw-ada-123").status_code == 429
    assert "_auth_user_id" not in client.session
    other = log_in(client, "bea", "pw-bea-123")  # another account is not held back
    assert other.status_code == 302 and client.session["_auth_user_id"]


def test_every_page_sends_a_content_security_policy_it_keeps(client, replay_file) -> None:
    owner = user("ada")
    mine = bot(owner, "Mine")
    played = match([mine, bot(None, "random", kind=Bot.HOUSE)], replay=replay_file, ranks=[1, 2], scores=[3, 1])
    client.force_login(owner)
    pages = [reverse("home"), reverse("ladder", args=["tussie-mussie"]), reverse("bot", args=[mine.pk]),
             reverse("match", args=[played.pk]), reverse("learn"), reverse("learn_game", args=["misty"])]
    for url in pages:
        response = client.get(url)
        policy = response["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy, url
        html = response.content.decode()
        assert not re.search(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", html), f"inline script on {url}"
        assert not re.search(r"\son[a-z]+=", html), f"an inline handler on {url}"
        assert not re.search(r"\sstyle=", html), f"an inline style on {url}"


def test_403_and_404_pages_are_the_sites_own(client) -> None:
    owner = user("ada")
    mine = bot(owner, "Mine")
    missing = client.get("/bots/987654/")
    assert missing.status_code == 404
    assertContains(missing, "Not found", status_code=404)
    assertContains(missing, 'class="brand"', status_code=404)  # the site's layout
    client.force_login(user("eve"))
    refused = client.post(reverse("bot_active", args=[mine.pk]), {"active": "0"})
    assertContains(refused, "Not allowed", status_code=403)
    assertContains(refused, "only the bot&#x27;s owner", status_code=403)


def test_the_onboarding_pages(client) -> None:
    start = client.get(reverse("learn"))
    assertContains(start, "Write your first bot")
    assertContains(start, "python -m bots_sdk play tussie-mussie my_bot.py:HeartsFirst random")
    assertContains(start, reverse("learn_game", args=["bszzzz"]))
    greedy = house_version("misty", "greedy")
    Rating.objects.create(ladder=standard_ladder("misty"), bot_version=greedy, mu=31.5, sigma=2.0, games=40, wins=30)
    page = client.get(reverse("learn_game", args=["misty"]))
    assertContains(page, "<h1>Misty (<code>misty</code>, engine")  # referee/games/misty/rules.md, rendered
    assertContains(page, "message MistyCard {")  # the typed observation, from its .proto
    text = page.content.decode()
    assert text.index('id="rules"') < text.index('id="forms"'), "the rules first, the contract after"
    assertContains(client.get(reverse("home")), "Start here")  # what to do first
    assertContains(page, "<td class=\"num\">25.50</td>")  # greedy's rating, μ − 3σ
    assertContains(page, "75%")
    assertContains(client.get(reverse("learn_guide", args=["protocol"])), "Remote bots")
    assert client.get(reverse("learn_guide", args=["nothing"])).status_code == 404
    assert client.get(reverse("learn_game", args=["chess"])).status_code == 404
