"""The author's loop on the site: states you can trust (active only with an active version, off
the ladder when off, a forfeited seat last in every count), deleting a bot, downloading one's own
code, the hourly limits that say when they reset, and challenges."""
from __future__ import annotations

import io
import zipfile
from datetime import timedelta
from unittest import mock

import pytest
from django.urls import reverse
from django.utils import timezone
from pytest_django.asserts import assertContains, assertNotContains

from arena.models import ApiToken, Bot, BotVersion, Match, MatchSeat, Rating
from arena.road.lifecycle import PlayedMatch, record
from referee.client import MatchOutcome, SeatOutcome

from .site_data import bot, match, user

pytestmark = pytest.mark.django_db


def state_shown(client, b: Bot) -> str:
    page = client.get(reverse("bot", args=[b.pk])).content.decode()
    return page.split('data-state="', 1)[1].split('"', 1)[0]


def test_a_bot_is_active_only_with_an_active_version(client) -> None:
    owner = user("ada")
    client.force_login(owner)
    b = bot(owner, "Only")
    assert state_shown(client, b) == "active"
    BotVersion.objects.filter(bot=b).update(state=BotVersion.REJECTED)
    assert state_shown(client, b) == "no active version"
    BotVersion.objects.create(bot=b, number=2, spec="random", state=BotVersion.PENDING)
    assert state_shown(client, b) == "pending"
    BotVersion.objects.filter(bot=b, number=2).update(state=BotVersion.ACTIVE)
    Bot.objects.filter(pk=b.pk).update(active=False)
    assert state_shown(client, b) == "inactive"
    assertContains(client.get(reverse("my_bots")), ">inactive<")


def test_deactivated_and_deleted_bots_leave_the_ladder(client) -> None:
    owner = user("ada")
    bots = [bot(owner, name) for name in ("Stays", "Switched", "Gone")]
    ladder = "tussie-mussie/standard/"
    for i, b in enumerate(bots):
        Rating.objects.create(ladder=ladder, bot_version=b.versions.get(), mu=30 - i, sigma=1, games=3)
    Bot.objects.filter(name="Switched").update(active=False)
    Bot.objects.filter(name="Gone").update(deleted=timezone.now(), active=False)
    page = client.get(reverse("ladder", args=["tussie-mussie"]) + f"?ladder={ladder}")
    assertContains(page, "Stays")
    assertNotContains(page, "Switched")
    assertNotContains(page, "Gone")


def outcome(ranks: list[int], statuses: list[str]) -> PlayedMatch:
    seats = [SeatOutcome(score=10.0 - r, rank=r, status=s, fault_counts={}) for r, s in zip(ranks, statuses)]
    result = {"scores": [s.score for s in seats], "ranks": ranks, "statuses": statuses}
    return PlayedMatch(outcome=MatchOutcome(match_id="m", status="finished", seats=seats, result=result,
                                            replay_gz=None), replay_path="")


def test_a_forfeited_seat_ranks_last_everywhere_but_the_replay(client) -> None:
    owner = user("ada")
    faulty, rival = bot(owner, "Faulty"), bot(None, "random", kind=Bot.HOUSE)
    made = match([faulty, rival], status=Match.SCHEDULED)
    assert record(made.pk, outcome([1, 2], ["forfeited", "ok"]))  # its autopilot finished first
    made.refresh_from_db()
    assert [s.rank for s in made.seats.order_by("seat")] == [2, 1]
    assert made.result["ranks"] == [1, 2], "the autopilot's result stays in the match's result"
    rating = Rating.objects.get(bot_version__bot=faulty)
    assert (rating.games, rating.wins) == (1, 0)
    page = client.get(reverse("bot", args=[faulty.pk]))
    assertContains(page, "0 wins")
    assertContains(page, "(9, #2)")  # the match list: the autopilot's score, the forfeit's rank


def test_the_owner_deletes_a_bot_its_matches_stay_greyed(client) -> None:
    owner = user("ada")
    client.force_login(owner)
    b = bot(owner, "Doomed", kind=Bot.REMOTE)
    token, _ = ApiToken.issue(b)
    played = match([b, bot(None, "random", kind=Bot.HOUSE)], ranks=[1, 2], scores=[3, 1])
    refused = client.post(reverse("bot_delete", args=[b.pk]), {"confirm": "wrong"})
    assert refused.status_code == 302 and Bot.objects.get(pk=b.pk).deleted is None
    client.post(reverse("bot_delete", args=[b.pk]), {"confirm": "Doomed"})
    b.refresh_from_db()
    token.refresh_from_db()
    assert b.deleted and not b.active and token.revoked, "deleted: off, its tokens revoked"
    assertNotContains(client.get(reverse("my_bots")), f'href="{reverse("bot", args=[b.pk])}"')
    assertContains(client.get(reverse("match", args=[played.pk])), "Doomed")
    assertContains(client.get(reverse("bot", args=[b.pk])), 'class="deleted"')
    assertContains(client.get(reverse("home")), 'class="deleted" title="deleted by its owner">Doomed')
    bot(owner, "Doomed", kind=Bot.REMOTE)  # the name is free again


def test_the_owner_downloads_the_code_uploaded(client, settings, tmp_path) -> None:
    settings.PARLOUR_UPLOAD_DIR = tmp_path
    owner = user("ada")
    b = bot(owner, "Zipped")
    folder = tmp_path / str(b.pk) / "1"
    (folder / "pkg").mkdir(parents=True)
    (folder / "main.py").write_text("print('main')\n")
    (folder / "pkg" / "helper.py").write_text("X = 1\n")
    client.force_login(owner)
    response = client.get(reverse("version_download", args=[b.pk, 1]))
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert sorted(archive.namelist()) == ["main.py", "pkg/helper.py"]
    assert archive.read("main.py") == b"print('main')\n"
    client.force_login(user("eve"))
    assert client.get(reverse("version_download", args=[b.pk, 1])).status_code == 404  # as to the API


def test_rejected_uploads_do_not_count_and_the_limit_says_when_it_resets(client, settings) -> None:
    from webui.views.uploads import upload_quota

    settings.PARLOUR_UPLOADS_PER_HOUR = 2
    owner = user("ada")
    b = bot(owner, "Tries")
    an_hour_ago = timezone.now() - timedelta(minutes=50)
    BotVersion.objects.filter(bot=b).update(created=an_hour_ago)
    BotVersion.objects.create(bot=b, number=2, spec="x", state=BotVersion.REJECTED)
    assert upload_quota(owner, 2) is None, "a rejected upload costs nothing"
    BotVersion.objects.create(bot=b, number=3, spec="x", state=BotVersion.PENDING)
    text = upload_quota(owner, 2)
    resets = timezone.localtime(an_hour_ago + timedelta(hours=1)).strftime("%H:%M")
    assert text == f"at most 2 uploads per hour: the next one is allowed at {resets} (in 10 min)"
    client.force_login(owner)
    with mock.patch("webui.views.uploads.uploads_allowed", return_value=True):
        assertContains(client.get(reverse("upload")), f"allowed at {resets}")


def test_a_challenge_is_an_unrated_match_played_at_once(client, settings, django_capture_on_commit_callbacks) -> None:
    settings.PARLOUR_CHALLENGES_PER_HOUR = 2
    owner = user("ada")
    mine, other = bot(owner, "Mine"), bot(user("bea"), "Theirs")
    remote = bot(user("cy"), "FarAway", kind=Bot.REMOTE)
    client.force_login(owner)
    page = client.get(reverse("bot", args=[mine.pk]))
    assertContains(page, "house greedy")
    assertContains(page, f'value="version:{other.versions.get().pk}"')
    assertNotContains(page, f'value="version:{remote.versions.get().pk}"')  # may not be connected
    url = reverse("challenge", args=[mine.pk])
    with mock.patch("arena.competitions.challenges.enqueue_matches") as enqueue:
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(url, {"variant": "standard", "opponents": [f"version:{other.versions.get().pk}"]})
        challenge = Match.objects.get(key__startswith=f"challenge/{owner.pk}/")
        assert response["Location"] == reverse("match", args=[challenge.pk]), "opened at once, live"
        assert not challenge.rated and challenge.status == Match.SCHEDULED
        assert [s.bot_version.bot.name for s in MatchSeat.objects.filter(match=challenge)] == ["Mine", "Theirs"]
        assert enqueue.call_args.args == ([challenge.pk],)
        # an opponent in the one-seat solo variant: refused, with why
        refused = client.post(url, {"variant": "solo", "opponents": ["house:random"]}, follow=True)
        assertContains(refused, "the solo variant is played alone: pick no opponent")
        assert Match.objects.filter(key__startswith="challenge/").count() == 1
        client.post(url, {"variant": "standard", "opponents": ["house:greedy"]})
        limited = client.post(url, {"variant": "standard", "opponents": ["house:random"]}, follow=True)
    assert Match.objects.filter(key__startswith="challenge/").count() == 2
    assertContains(limited, "at most 2 challenges per hour: the next one is allowed at")


def test_a_revoked_or_deleted_bots_token_no_longer_verifies(client) -> None:
    """What the referee asks again every few seconds of a connected remote bot (arena.fleet.token_verifier)."""
    from arena.fleet.token_verifier import verify

    owner = user("ada")
    client.force_login(owner)
    kept, dropped = bot(owner, "Kept", kind=Bot.REMOTE), bot(owner, "Dropped", kind=Bot.REMOTE)
    (token, raw), (_, other) = ApiToken.issue(kept), ApiToken.issue(dropped)
    assert verify(raw) == f"bot-{kept.pk}" and verify(other) == f"bot-{dropped.pk}"
    client.post(reverse("token_revoke", args=[kept.pk, token.pk]))
    client.post(reverse("bot_delete", args=[dropped.pk]), {"confirm": "Dropped"})
    assert verify(raw) is None and verify(other) is None
    page = client.get(reverse("bot", args=[kept.pk]))
    assertContains(page, "--referee localhost:50051")  # the PARLOUR_PUBLIC_REFEREE setting


def test_unrated_games_stay_off_the_public_lists(client) -> None:
    """An owner's challenge (or a comparison's game) is listed on their own pages only: not on the
    home page nor on the pages of the bots it met, which any visitor reads."""
    owner = user("ada")
    mine, house = bot(owner, "Mine"), bot(None, "Housey", kind=Bot.HOUSE)
    rated = match([mine, house], ranks=[1, 2], scores=[20, 10])
    challenge = match([mine, house], ranks=[2, 1], scores=[5, 15], rated=False)
    checked = match([mine, house], ranks=[1, 2], scores=[9, 8], rated=False, check_of=mine.versions.get())
    for url in (reverse("home"), reverse("bot", args=[house.pk]), reverse("bot", args=[mine.pk])):
        page = client.get(url)
        assertContains(page, reverse("match", args=[rated.pk]))
        assertContains(page, reverse("match", args=[checked.pk]))
        assertNotContains(page, reverse("match", args=[challenge.pk]))
    client.force_login(owner)
    assertContains(client.get(reverse("bot", args=[mine.pk])), reverse("match", args=[challenge.pk]))
