"""Parlour TV (issue: a site people enjoy): the live table worth watching, and the next one after it."""
from __future__ import annotations

import pytest
from django.urls import reverse
from pytest_django.asserts import assertContains, assertNotContains

from arena.competitions.ladder import standard_ladder
from arena.fleet.broker import connection
from arena.models import Match, Rating
from arena.road.live_frames import PLAYING

from .site_data import bot, match, user

pytestmark = pytest.mark.django_db


@pytest.fixture
def live(platform_redis):
    """Matches marked as being played, as the runner marks them; unmarked afterwards."""
    marked: list[int] = []

    def mark(made: Match) -> Match:
        connection().sadd(PLAYING, made.pk)
        marked.append(made.pk)
        return made

    yield mark
    if marked:
        connection().srem(PLAYING, *marked)


def test_tv_features_the_strongest_live_table_then_the_next_and_waits_when_none_plays(client, live) -> None:
    page = client.get(reverse("tv"))
    assertContains(page, "No match is being played right now")
    owner = user("tess")
    strong, weak = bot(owner, "Strong"), bot(owner, "Weak")
    house = bot(None, "random", kind="house")
    Rating.objects.create(ladder=standard_ladder("tussie-mussie"), bot_version=strong.versions.get(),
                          mu=40, sigma=2, conservative=34)
    quiet = live(match([weak, house], status=Match.RUNNING))
    featured = live(match([strong, house], status=Match.RUNNING))
    match([strong, weak], status=Match.RUNNING)  # running, but its frames are not published: not live
    page = client.get(reverse("tv"))
    assertContains(page, f"Match #{featured.pk}: ")
    assertContains(page, "Parlour TV")
    assertContains(page, f'data-next="{reverse("tv")}?after={featured.pk}"')
    assertContains(page, "webui/tv.js")
    after = client.get(reverse("tv") + f"?after={featured.pk}")  # it ended: the next table
    assertContains(after, f"Match #{quiet.pk}: ")
    Match.objects.filter(pk=quiet.pk).update(status=Match.FINISHED)
    assertContains(client.get(reverse("tv") + f"?after={featured.pk}"), f"Match #{featured.pk}: ")  # the only one left
    assertNotContains(client.get(reverse("match", args=[featured.pk])), "webui/tv.js")  # its own page stays put
