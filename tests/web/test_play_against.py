"""Play against any bot (arena.people.tables): the owner's switch on a bot's page, "play against" an
allowed bot from its page (an unrated match, the seats as chosen, the rule options kept), the
refusals in words, and the records: the person's "My tables" and the bot's history ("vs @name"),
never the bots' ladder."""
from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from pytest_django.asserts import assertContains, assertNotContains

from arena.bots.house_entrants import house_version
from arena.competitions import ladder_editions
from arena.fleet.presence_seen import BOT_PREFIX
from arena.models import Bot, Match, Rating
from arena.people.tables import person_version
from arena.road.lifecycle import PlayedMatch, record
from referee.client import MatchOutcome, SeatOutcome

from .site_data import bot, user

pytestmark = pytest.mark.django_db
GAME = "tussie-mussie"  # 2 to 4 seats, with rule options


@pytest.fixture
def queued(monkeypatch) -> list[list[int]]:
    """The matches handed to the workers' queue (once the table's transaction commits)."""
    handed: list[list[int]] = []
    monkeypatch.setattr("arena.people.tables.enqueue_matches", handed.append)
    return handed


def signed_in(person) -> Client:
    browser = Client()
    browser.force_login(person)
    return browser


def refusal(response) -> str:
    """The one-line message the page shows after a refused table."""
    return next(str(m) for m in response.context["messages"])


def test_the_switch_is_the_owners_and_off_by_default(client) -> None:
    ada, bob = user("ada"), user("bob")
    mine = bot(ada, "Mine")
    assert not mine.people_may_play
    url = reverse("bot_people_may_play", args=[mine.pk])
    owner = signed_in(ada)
    assertContains(owner.get(reverse("bot", args=[mine.pk])), "Let people play against it")
    assertNotContains(signed_in(bob).get(reverse("bot", args=[mine.pk])), "Let people play against it")
    assert signed_in(bob).post(url, {"allowed": "1"}).status_code == 403
    assert client.post(url, {"allowed": "1"}).status_code == 302  # to the login page
    mine.refresh_from_db()
    assert not mine.people_may_play
    assertContains(owner.post(url, {"allowed": "1"}, follow=True), "People may play against it in the browser.")
    mine.refresh_from_db()
    assert mine.people_may_play


def test_play_against_an_allowed_bot_starts_an_unrated_match_with_the_seats_chosen(
        queued, django_capture_on_commit_callbacks) -> None:
    ada, bob = user("ada"), user("bob")
    mine = bot(ada, "Mine")
    page = signed_in(bob).get(reverse("bot", args=[mine.pk]))
    assertNotContains(page, 'id="play"')  # not allowed yet: nothing offered to a stranger
    Bot.objects.filter(pk=mine.pk).update(people_may_play=True)
    browser = signed_in(bob)
    page = browser.get(reverse("bot", args=[mine.pk]))
    assertContains(page, "Play against Mine")
    assertContains(page, 'name="option-honeysuckle"')
    with django_capture_on_commit_callbacks(execute=True):
        response = browser.post(reverse("play_against_bot", args=[mine.pk]), {
            "variant": "standard", "opponent": ["greedy", ""], "seat": "2", "option-honeysuckle": "bouquet_only",
            "option-marigold_gap": ""})
    match = Match.objects.get()
    assert response.status_code == 302 and response.url == reverse("table", args=[match.pk])
    assert queued == [[match.pk]]
    assert not match.rated and match.key.startswith(f"person/{bob.pk}/")
    assert match.options == {"honeysuckle": "bouquet_only"}  # the default left out, as on any match
    seats = [(s.bot_version.bot.kind, s.bot_version.bot.name) for s in match.seats.order_by("seat")]
    assert seats == [(Bot.UPLOAD, "Mine"), (Bot.PERSON, "@bob"), (Bot.HOUSE, "greedy")]


def test_a_games_form_offers_its_smallest_table_by_default() -> None:
    """Bszzzz! seats 3 to 6: the game's page picks two house bots to start with, and offers 5."""
    page = signed_in(user("cy")).get(reverse("learn_game", args=["bszzzz"])).content.decode()
    form = page.split('id="play"')[1].split("</form>")[0]
    assert form.count('name="opponent"') == 5 and form.count("<option selected>greedy</option>") == 2
    assert 'name="option-round_cap"' in form and "default (rulebook)" in form


def test_a_house_bot_is_played_from_its_page_and_its_repeats_are_numbered(client, queued) -> None:
    greedy = house_version(GAME, "greedy").bot
    assertContains(client.get(reverse("bot", args=[greedy.pk])), "to play against greedy yourself")
    browser = signed_in(user("cy"))
    assertContains(browser.get(reverse("bot", args=[greedy.pk])), "Play against greedy")
    browser.post(reverse("play_against_bot", args=[greedy.pk]), {"variant": "standard", "opponent": "greedy", "seat": "3"})
    seats = [s.bot_version.bot.name for s in Match.objects.get().seats.order_by("seat")]
    assert seats == ["greedy", "greedy#2", "@cy"]


def test_an_owner_plays_their_own_bot_without_the_switch(queued) -> None:
    ada = user("ada")
    mine = bot(ada, "Mine")
    response = signed_in(ada).post(reverse("play_against_bot", args=[mine.pk]), {"variant": "standard", "seat": "1"})
    match = Match.objects.get()
    assert response.url == reverse("table", args=[match.pk])
    assert [s.bot_version.bot.kind for s in match.seats.order_by("seat")] == [Bot.PERSON, Bot.UPLOAD]


def test_refused_tables_say_why_and_start_nothing(redis_client) -> None:
    ada, bob = user("ada"), user("bob")
    browser = signed_in(bob)

    def play(target: Bot, **form) -> str:
        response = browser.post(reverse("play_against_bot", args=[target.pk]),
                                {"variant": "standard", "seat": "1", **form}, follow=True)
        return refusal(response)

    closed = bot(ada, "Closed")
    assert play(closed) == "Match not started: Closed's owner does not let people play against it"
    resting = bot(ada, "Resting")
    Bot.objects.filter(pk=resting.pk).update(people_may_play=True, active=False)
    assert play(resting) == "Match not started: Resting is inactive: only an active bot can be played"
    away = bot(ada, "Away", kind=Bot.REMOTE)
    Bot.objects.filter(pk=away.pk).update(people_may_play=True)
    assert play(away) == ("Match not started: Away is a remote bot that is not connected now: "
                          "it can be played only while online")
    assertContains(browser.get(reverse("bot", args=[away.pk])), "it can be played only while online")
    open_bot = bot(ada, "Open")
    Bot.objects.filter(pk=open_bot.pk).update(people_may_play=True)
    assert "has no option 'fog'" in play(open_bot, **{"option-fog": "thick"})
    assert "is not allowed (allowed: any_row, bouquet_only)" in play(open_bot, **{"option-honeysuckle": "some"})
    assert play(open_bot, opponent=["greedy", "random", "greedy"]) == (
        "Match not started: the standard variant seats 2, 3, 4 players: pick 1 to 3 opponents")
    assert play(open_bot, opponent=[f"bot-{open_bot.pk}"]) == (
        "Match not started: pick each bot once (house bots may sit more than once)")

    # from a game's page: a bot of another game, a person's seat
    misty = bot(ada, "Misty Bot", game="misty")
    Bot.objects.filter(pk=misty.pk).update(people_may_play=True)
    from_game = browser.post(reverse("play_against", args=[GAME]), {"variant": "standard", "opponent": f"bot-{misty.pk}"},
                             follow=True)
    assert refusal(from_game) == "Match not started: Misty Bot plays Misty, not Tussie Mussie"
    seat = person_version(ada, GAME).bot
    from_game = browser.post(reverse("play_against", args=[GAME]), {"variant": "standard", "opponent": f"bot-{seat.pk}"},
                             follow=True)
    assert refusal(from_game) == "Match not started: @ada is a person's seat, not a bot to play against"
    assert not Match.objects.exists()

    redis_client.set(BOT_PREFIX + f"bot-{away.pk}", "1")  # the remote bot connected: it may be played
    response = browser.post(reverse("play_against_bot", args=[away.pk]), {"variant": "standard", "seat": "1"})
    assert response.url == reverse("table", args=[Match.objects.get().pk])


def test_a_played_table_is_in_my_tables_and_the_bots_history_and_never_on_the_ladder(
        client, queued, django_capture_on_commit_callbacks) -> None:
    ada, bob = user("ada"), user("bob")
    mine = bot(ada, "Mine")
    Bot.objects.filter(pk=mine.pk).update(people_may_play=True)
    signed_in(bob).post(reverse("play_against_bot", args=[mine.pk]), {"variant": "standard", "seat": "2"})
    match = Match.objects.get()
    tables = signed_in(bob).get(reverse("my_tables"))
    assertContains(tables, f'<a href="{reverse("table", args=[match.pk])}">#{match.pk}: your table</a>', html=True)
    edition = ladder_editions.current(GAME)

    seats = [SeatOutcome(score=s, rank=r, status="ok", fault_counts={}) for s, r in ((3.0, 2), (7.0, 1))]
    played = PlayedMatch(MatchOutcome(match_id="m", status="finished", seats=seats, replay_gz=None,
                                      result={"scores": [3.0, 7.0], "ranks": [2, 1]}))
    with django_capture_on_commit_callbacks(execute=True):
        assert record(match.pk, played)
    assert not Rating.objects.exists() and ladder_editions.current(GAME) == edition  # the ladder untouched
    assertNotContains(client.get(reverse("ladder", args=[GAME])), "@bob")

    tables = signed_in(bob).get(reverse("my_tables"))
    assertContains(tables, f'<a href="{reverse("match", args=[match.pk])}">#{match.pk}: replay</a>', html=True)
    row = tables.content.decode().split(f'data-match="{match.pk}"')[1].split("</tr>")[0]
    assert ">Mine</a>" in row and "2 of 2" in row and "won, score 7" in row and "finished" in row
    assertContains(signed_in(bob).get("/"), reverse("my_tables"))  # in the nav

    history = signed_in(ada).get(reverse("bot", args=[mine.pk]))  # the owner's page lists it
    assertContains(history, f"#{match.pk}</a> <span class=\"person\">vs @bob</span>")
    assertNotContains(client.get(reverse("bot", args=[mine.pk])), "vs @bob")  # unrated: not on the public list
