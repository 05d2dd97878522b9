"""Solo on the site: a bot's owner plays a one-seat variant from the bot page ("Play it now", no
opponent), the match is played on the real road (a real referee, the bot in its sandbox), and its
score fills the game's high-score table."""
from __future__ import annotations

import pytest
from django.urls import reverse
from pytest_django.asserts import assertContains

from arena.competitions.challenges import variants
from arena.fleet.tasks import run_match
from arena.games import solo_games, solo_variants
from arena.bots.uploads import version_folder
from arena.models import BotVersion, Match

from .site_data import FIRST_BOT, bot, user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("platform_redis")]



def test_a_solo_variant_is_played_from_the_bot_page_to_the_high_score_table(client, django_capture_on_commit_callbacks,
                                                                          monkeypatch, settings, tmp_path) -> None:
    game = solo_games()[0]
    variant = solo_variants(game)[0]
    owner = user("sol")
    mine = bot(owner, "Alone", game=game)
    settings.PARLOUR_UPLOAD_DIR = tmp_path
    folder = version_folder(mine.pk, 1)  # stored as an upload is
    folder.mkdir(parents=True)
    (folder / "alone.py").write_text(FIRST_BOT)
    BotVersion.objects.filter(bot=mine).update(spec=f"{folder / 'alone.py'}:First")
    client.force_login(owner)
    page = client.get(reverse("bot", args=[mine.pk]))
    assertContains(page, f'<input type="hidden" name="variant" value="{variant}">')  # the "Play solo" button

    url = reverse("challenge", args=[mine.pk])
    refused = client.post(url, {"variant": variant, "opponents": ["house:random"]}, follow=True)
    assertContains(refused, f"the {variant} variant is played alone: pick no opponent")
    table_variant = next(name for name, counts in variants(game) if name != variant)
    refused = client.post(url, {"variant": table_variant}, follow=True)
    assertContains(refused, f"the {table_variant} variant seats")  # a table still wants opponents, in words
    assertContains(refused, "opponents")

    queued: list[list[int]] = []
    monkeypatch.setattr("arena.competitions.challenges.enqueue_matches", queued.append)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"variant": variant})
    match = Match.objects.get(key__startswith=f"challenge/{owner.pk}/", variant=variant)
    assert response["Location"] == reverse("match", args=[match.pk])
    assert queued == [[match.pk]] and [s.bot_version.bot_id for s in match.seats.all()] == [mine.pk]

    run_match(match.pk)  # what a worker does with the queued match
    match.refresh_from_db()
    assert match.status == Match.FINISHED, match.result
    score = match.seats.get().score
    table = client.get(reverse("solo", args=[game]))
    assertContains(table, "Alone")
    assertContains(table, reverse("match", args=[match.pk]))
    assert f"{score:g}" in table.content.decode()
