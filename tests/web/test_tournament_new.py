"""Tournaments on the site: a signed-in person makes a Swiss of their own bot and house bots; the
site creates and starts it through the arena (its first round's matches scheduled and queued for the
workers), a worker plays each queued match on the real road, and the tournament's page shows it
finished with the person's bot in the standings."""
from __future__ import annotations

import pytest
from django.urls import reverse
from pytest_django.asserts import assertContains

from arena.bots.uploads import version_folder
from arena.fleet.tasks import run_match
from arena.models import BotVersion, Match, Tournament

from .site_data import FIRST_BOT, bot, user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("platform_redis")]
GAME = "tussie-mussie"



def test_a_swiss_made_on_the_site_runs_to_its_end(client, settings, tmp_path, monkeypatch,
                                                  django_capture_on_commit_callbacks) -> None:
    owner = user("tia")
    mine = bot(owner, "Tia's", game=GAME)
    settings.PARLOUR_UPLOAD_DIR = tmp_path
    folder = version_folder(mine.pk, 1)
    folder.mkdir(parents=True)
    (folder / "first.py").write_text(FIRST_BOT)
    BotVersion.objects.filter(bot=mine).update(spec=f"{folder / 'first.py'}:First")

    url = reverse("tournament_new")
    assert client.get(url).status_code == 302  # signed in only
    client.force_login(owner)
    form = client.get(url)
    assertContains(form, f'value="bot-{mine.pk}"')
    assertContains(form, f'value="{GAME}/standard"')
    refused = client.post(url, {"game_variant": f"{GAME}/standard", "format": "swiss", "bots": [f"bot-{mine.pk}"]})
    assertContains(refused, "enter at least two", status_code=400)
    assert not Tournament.objects.exists()

    queued: list[int] = []
    monkeypatch.setattr("arena.competitions.tournaments.enqueue_matches", queued.extend)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"name": "Tia's cup", "game_variant": f"{GAME}/standard", "format": "swiss",
                                     "rounds": "2", "bots": [f"bot-{mine.pk}"], "house_random": "3"})
    tournament = Tournament.objects.get()
    assert response["Location"] == reverse("tournament", args=[tournament.pk])
    assert (tournament.name, tournament.created_by, tournament.status, tournament.rounds) == \
        ("Tia's cup", owner, Tournament.RUNNING, 2)
    assert queued and set(queued) == set(tournament.matches.values_list("pk", flat=True))  # round 1, queued
    assert all(m.status == Match.SCHEDULED for m in tournament.matches.all())

    while queued:  # the workers: each queued match played; a Swiss pairs its next round when one ends
        match_id = queued.pop(0)
        with django_capture_on_commit_callbacks(execute=True):
            assert run_match(match_id) == "recorded"
    tournament.refresh_from_db()
    assert tournament.status == Tournament.FINISHED and tournament.matches.count() == 2
    page = client.get(reverse("tournament", args=[tournament.pk]))
    assertContains(page, "Tia&#x27;s cup")
    assertContains(page, reverse("bot", args=[mine.pk]))


def test_an_open_swiss_takes_entries_until_its_start_then_the_beat_starts_it_and_it_finishes(
        client, settings, tmp_path, monkeypatch, django_capture_on_commit_callbacks) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from arena.fleet.tasks import start_due_tournaments

    settings.PARLOUR_UPLOAD_DIR = tmp_path
    maker, guest = user("uma2"), user("gus")
    theirs = bot(guest, "Gus's", game=GAME)
    folder = version_folder(theirs.pk, 1)
    folder.mkdir(parents=True)
    (folder / "first.py").write_text(FIRST_BOT)
    BotVersion.objects.filter(bot=theirs).update(spec=f"{folder / 'first.py'}:First")
    other_game = bot(guest, "Gus's Misty", game="misty")

    client.force_login(maker)  # a Swiss open for 30 minutes, with one house bot of the maker's
    response = client.post(reverse("tournament_new"), {
        "name": "Open cup", "game_variant": f"{GAME}/standard", "format": "swiss", "rounds": "2",
        "house_random": "1", "open_entry": "on", "starts_in": "30"})
    tournament = Tournament.objects.get()
    assert response["Location"] == reverse("tournament", args=[tournament.pk])
    assert tournament.status == Tournament.CREATED and not tournament.matches.exists()
    assert timedelta(minutes=29) < tournament.starts_at - timezone.now() <= timedelta(minutes=30)
    page = client.get(reverse("tournament", args=[tournament.pk]))
    assertContains(page, "Open for entries")
    assertContains(page, "29\xa0minutes")  # the time left, in words

    client.force_login(guest)
    page = client.get(reverse("tournament", args=[tournament.pk]))
    assertContains(page, f'<option value="{theirs.pk}">Gus&#x27;s</option>', html=False)
    assert f'value="{other_game.pk}"' not in page.content.decode()  # another game's bot is not offered
    enter = reverse("tournament_enter", args=[tournament.pk])
    assertContains(client.post(enter, {"bot": theirs.pk}, follow=True), "Gus&#x27;s is entered")
    assertContains(client.post(enter, {"bot": theirs.pk}, follow=True), "is entered already")
    assertContains(client.post(enter, {"bot": other_game.pk}, follow=True), "not an active bot of this tournament")
    assert tournament.entries.count() == 2

    queued: list[int] = []
    monkeypatch.setattr("arena.competitions.tournaments.enqueue_matches", queued.extend)
    assert start_due_tournaments() == []  # not yet its time
    Tournament.objects.filter(pk=tournament.pk).update(starts_at=timezone.now())
    with django_capture_on_commit_callbacks(execute=True):
        assert start_due_tournaments() == [tournament.pk]  # the beat's task
    assertContains(client.post(enter, {"bot": theirs.pk}, follow=True), "entries are closed")
    while queued:
        with django_capture_on_commit_callbacks(execute=True):
            assert run_match(queued.pop(0)) == "recorded"
    tournament.refresh_from_db()
    assert tournament.status == Tournament.FINISHED and tournament.rounds == 2
    assert tournament.table_size == 2  # two entrants: tables of two (the game's largest is four)
    assertContains(client.get(reverse("tournament", args=[tournament.pk])), reverse("bot", args=[theirs.pk]))


def test_an_open_tournament_short_of_entrants_at_its_start_is_cancelled_and_says_so(client) -> None:
    from django.utils import timezone

    from arena.competitions.tournaments import create_tournament, start_due_tournaments

    lonely = create_tournament(GAME, "round-robin", ["greedy"], starts_at=timezone.now())
    assert start_due_tournaments() == []
    lonely.refresh_from_db()
    assert lonely.status == Tournament.CANCELLED and not lonely.matches.exists()
    assertContains(client.get(reverse("tournament", args=[lonely.pk])), "Cancelled: too few entrants for a table")


def test_a_tournament_takes_the_games_rule_options_and_says_what_is_wrong_with_them(client, monkeypatch) -> None:
    from arena.games import game_variants

    monkeypatch.setattr("arena.competitions.tournaments.enqueue_matches", lambda ids: None)
    client.force_login(user("otto"))
    standard = next(v for v in game_variants(GAME) if v["name"] == "standard")
    option = standard["options"][0]
    other = next(v for v in (option.get("values") or [option.get("max")]) if v != option["default"])
    form = {"game_variant": f"{GAME}/standard", "format": "round-robin", "house_random": "2"}
    listed = client.get(reverse("tournament_new"))
    assertContains(listed, f"<code>{option['name']}</code>")  # each game's options, listed under the form
    unknown = client.post(reverse("tournament_new"), {**form, "options": "no_such_rule=1"})
    assertContains(unknown, "standard has no rule option &#x27;no_such_rule&#x27;", status_code=400)
    wrong = client.post(reverse("tournament_new"), {**form, "options": f"{option['name']}=not-a-value"})
    assertContains(wrong, f"option {option['name']}: &#x27;not-a-value&#x27; is not allowed", status_code=400)
    assert not Tournament.objects.exists()
    client.post(reverse("tournament_new"), {**form, "options": f" {option['name']} = {str(other).lower()} "})
    assert Tournament.objects.get().options[option["name"]] == other
