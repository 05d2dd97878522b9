"""Owner-only pages and actions (tried as the owner, another user and nobody), API tokens, replays."""
from __future__ import annotations

import gzip
import json
from types import SimpleNamespace

import pytest
from django.urls import reverse
from pytest_django.asserts import assertContains, assertNotContains, assertRedirects

from arena.models import ApiToken, Bot, BotVersion, Match

from .site_data import bot, match, user

pytestmark = pytest.mark.django_db


# ---------------------------------------------------------------------- owner-only actions
@pytest.fixture
def owned() -> SimpleNamespace:
    owner = user("olivia")
    other = user("oscar")
    remote = bot(owner, "Farcaller", kind=Bot.REMOTE)
    uploaded = bot(owner, "Uploaded")
    version = uploaded.versions.get()
    version.smoke_report = json.dumps({"error": "secret smoke details", "stderr": "trace"})
    version.save()
    token, _ = ApiToken.issue(remote)
    return SimpleNamespace(owner=owner, other=other, remote=remote, uploaded=uploaded, token=token)


def owner_only_actions(o: SimpleNamespace) -> list[tuple[str, str, dict | None]]:
    """(method, url, data) of every owner-only action."""
    return [
        ("post", reverse("bot_active", args=[o.remote.pk]), {"active": "0"}),
        ("post", reverse("token_create", args=[o.remote.pk]), {}),
        ("post", reverse("token_revoke", args=[o.remote.pk, o.token.pk]), {}),
        ("get", reverse("version_report", args=[o.uploaded.pk, 1]), None),
        ("get", reverse("version_download", args=[o.uploaded.pk, 1]), None),
        ("post", reverse("bot_delete", args=[o.uploaded.pk]), {"confirm": "Uploaded"}),
        ("post", reverse("challenge", args=[o.uploaded.pk]), {"variant": "standard", "opponents": ["house:random"]}),
    ]


def test_nobody_is_sent_to_log_in(client, owned) -> None:
    for method, url, data in owner_only_actions(owned):
        response = getattr(client, method)(url, data)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login")), url
    for url in (reverse("my_bots"), reverse("upload"), reverse("remote_new")):
        assert client.get(url)["Location"].startswith(reverse("login")), url
    assert ApiToken.objects.count() == 1
    assert Bot.objects.get(pk=owned.remote.pk).active


PRIVATE_READS = ("version_report", "version_download")  # 404 to anybody else, as to the HTTP API


def test_another_user_is_refused(client, owned) -> None:
    client.force_login(owned.other)
    for method, url, data in owner_only_actions(owned):
        private = any(url.startswith(reverse(name, args=[owned.uploaded.pk, 1])) for name in PRIVATE_READS)
        assert getattr(client, method)(url, data).status_code == (404 if private else 403), url
    assert ApiToken.objects.count() == 1
    owned.token.refresh_from_db()
    assert owned.token.revoked is None
    assert Bot.objects.get(pk=owned.uploaded.pk).deleted is None
    assert not Match.objects.filter(key__startswith="challenge/").exists()
    assert Bot.objects.get(pk=owned.remote.pk).active
    page = client.get(reverse("bot", args=[owned.remote.pk])).content.decode()
    assert "API tokens" not in page
    assert "Log lines" not in page
    assert "Deactivate" not in page
    assertNotContains(client.get(reverse("bot", args=[owned.uploaded.pk])), "report")
    assertNotContains(client.get(reverse("my_bots")), "Farcaller")


def test_owner_can_deactivate_and_reactivate(client, owned) -> None:
    client.force_login(owned.owner)
    assertContains(client.get(reverse("bot", args=[owned.remote.pk])), "Deactivate")
    client.post(reverse("bot_active", args=[owned.remote.pk]), {"active": "0"})
    assert not Bot.objects.get(pk=owned.remote.pk).active
    client.post(reverse("bot_active", args=[owned.remote.pk]), {"active": "1"})
    assert Bot.objects.get(pk=owned.remote.pk).active
    assert client.get(reverse("bot_active", args=[owned.remote.pk])).status_code == 405
    assertContains(client.get(reverse("version_report", args=[owned.uploaded.pk, 1])), "secret smoke details")
    assertContains(client.get(reverse("my_bots")), "Farcaller")


def test_api_token_shown_once_stored_hashed_and_revocable(client, owned) -> None:
    client.force_login(owned.owner)
    response = client.post(reverse("token_create", args=[owned.remote.pk]))
    assert response.status_code == 200
    token = response.context["token"]
    assertContains(response, token)
    assertContains(response, "serve-remote")
    assertContains(response, f"--api-token={token}")  # runs as shown even when the token starts with "-"
    stored = ApiToken.objects.get(token_hash=ApiToken.hash(token))
    assert not ApiToken.objects.filter(token_hash=token).exists()
    assert len(stored.token_hash) == 64
    page = client.get(reverse("bot", args=[owned.remote.pk]))
    assertNotContains(page, token)  # shown once only
    assertContains(page, "serve-remote")
    assertContains(page, "Revoke")
    client.post(reverse("token_revoke", args=[owned.remote.pk, stored.pk]))
    stored.refresh_from_db()
    assert stored.revoked is not None
    from arena.fleet.token_verifier import verify

    assert verify(token) is None
    # tokens are for remote bots only; a token of another bot cannot be revoked through this one
    assert client.post(reverse("token_create", args=[owned.uploaded.pk])).status_code == 403
    theirs = bot(owned.other, "Theirs", kind=Bot.REMOTE)
    their_token, _ = ApiToken.issue(theirs)
    assert client.post(reverse("token_revoke", args=[owned.remote.pk, their_token.pk])).status_code == 404


def test_create_a_remote_bot(client, owned) -> None:
    client.force_login(owned.other)
    response = client.post(reverse("remote_new"), {"name": "Faraway", "game": "misty"})
    made = Bot.objects.get(name="Faraway")
    assertRedirects(response, reverse("bot", args=[made.pk]))
    assert (made.kind, made.owner, made.game) == (Bot.REMOTE, owned.other, "misty")
    assert made.versions.get().state == BotVersion.ACTIVE
    again = client.post(reverse("remote_new"), {"name": "Faraway", "game": "misty"})
    assert again.status_code == 200
    assertContains(again, "already have a bot")
    assertContains(client.post(reverse("remote_new"), {"name": "random", "game": "misty"}), "reserved")


# ---------------------------------------------------------------------- replays
@pytest.fixture
def players(replay_file) -> SimpleNamespace:
    alice, bob, eve = user("alice"), user("bob"), user("eve")
    replay = json.loads(gzip.decompress(replay_file.read_bytes()))
    assert {e["seat"] for e in replay["bot_logs"]} == {0, 1}
    return SimpleNamespace(alice=alice, bob=bob, eve=eve, staff=user("root", is_staff=True),
                           a=bot(alice, "A-bot"), b=bot(bob, "B-bot"), replay=replay, path=replay_file)


def replay_as(client, match_obj: Match, who=None) -> dict:
    """The replay JSON as ``who`` (None: an anonymous visitor) receives it."""
    if who:
        client.force_login(who)
    else:
        client.logout()
    response = client.get(reverse("replay_json", args=[match_obj.pk]))
    assert response.status_code == 200
    return response.json()


def test_live_match_shows_only_the_header_without_seed_and_the_public_views(client, players) -> None:
    live = match([players.a, players.b], status=Match.RUNNING, replay=players.path)
    for who in (None, players.alice, players.staff):
        data = replay_as(client, live, who)
        assert set(data) == {"header", "public"}
        assert "seed" not in data["header"]
        assert data["header"]["live"]
        assert data["public"] == players.replay["public"]
        assert "views" not in data
    download = client.get(reverse("replay_download", args=[live.pk]))
    assert set(json.loads(gzip.decompress(download.content))) == {"header", "public"}


def test_finished_match_gives_everything_but_logs_only_to_their_owners(client, players) -> None:
    done = match([players.a, players.b], ranks=[1, 2], scores=[3, 1], replay=players.path)
    anonymous = replay_as(client, done)
    for key in ("header", "log", "public", "views", "result"):
        assert anonymous[key] == players.replay[key]
    assert anonymous["header"]["seed"] == 1
    assert anonymous["bot_logs"] == []
    assert replay_as(client, done, players.eve)["bot_logs"] == []
    alice = replay_as(client, done, players.alice)["bot_logs"]
    assert alice
    assert {e["seat"] for e in alice} == {0}
    assert {e["seat"] for e in replay_as(client, done, players.bob)["bot_logs"]} == {1}
    assert replay_as(client, done, players.staff)["bot_logs"] == players.replay["bot_logs"]


def test_a_sandboxs_verdict_is_a_log_line_of_its_seat_for_its_owner_and_staff_on_every_road(client, players) -> None:
    """One rule however the replay goes out (whole, or in the viewer's two parts): a sandbox's
    verdict on a faulted bot (kept in the match's result) is that seat's log line."""
    done = match([players.a, players.b], ranks=[1, 2], scores=[3, 1], replay=players.path)
    verdict = "the sandbox stopped it: memory limit (64 MiB)"
    Match.objects.filter(pk=done.pk).update(result={"scores": [3, 1], "ranks": [1, 2],
                                                    "sandbox_logs": [{"seat": 1, "line": verdict}]})
    stored = players.replay["bot_logs"]

    def lines(who, part: str = "") -> list:
        if who:
            client.force_login(who)
        else:
            client.logout()
        url = reverse("replay_json", args=[done.pk]) + (f"?part={part}" if part else "")
        return json.loads(gzip.decompress(client.get(url, HTTP_ACCEPT_ENCODING="gzip").content))["bot_logs"]

    for part in ("", "spectator"):
        assert lines(None, part) == [] and lines(players.eve, part) == []
        staff = lines(players.staff, part)
        assert staff[:len(stored)] == stored and [e["line"] for e in staff[len(stored):]] == [verdict]
        bob = lines(players.bob, part)
        assert {e["seat"] for e in bob} == {1} and bob[-1]["line"] == verdict
        assert verdict not in [e["line"] for e in lines(players.alice, part)]


def test_download_is_the_same_gzipped_as_an_attachment(client, players) -> None:
    done = match([players.a, players.b], ranks=[1, 2], scores=[3, 1], replay=players.path)
    client.force_login(players.alice)
    response = client.get(reverse("replay_download", args=[done.pk]))
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    assert json.loads(gzip.decompress(response.content)) == client.get(reverse("replay_json", args=[done.pk])).json()


def test_no_replay_yet(client, players) -> None:
    pending = match([players.a, players.b], status=Match.SCHEDULED)
    data = client.get(reverse("replay_json", args=[pending.pk])).json()
    assert data["public"] == []
    assert [s["bot"] for s in data["header"]["seats"]] == ["A-bot", "B-bot"]
    assert data["header"]["live"]
    aborted = match([players.a, players.b], status=Match.ABORTED)
    assert client.get(reverse("replay_json", args=[aborted.pk])).status_code == 404
    assert client.get(reverse("replay_download", args=[aborted.pk])).status_code == 404
    assertContains(client.get(reverse("match", args=[aborted.pk])), "No replay yet")


def test_bot_page_shows_log_lines_to_the_owner_only(client, players) -> None:
    match([players.a, players.b], ranks=[1, 2], scores=[3, 1], replay=players.path)
    client.force_login(players.alice)
    page = client.get(reverse("bot", args=[players.a.pk])).content.decode()
    assert "seat 0 says hello" in page
    assert "seat 1 says hello" not in page
    for who in (players.bob, None):
        if who:
            client.force_login(who)
        else:
            client.logout()
        assertNotContains(client.get(reverse("bot", args=[players.a.pk])), "says hello")


# ---------------------------------------------------------------------- a remote bot's presence
def test_a_remote_bots_page_says_whether_it_is_connected_and_when_it_last_was(client, platform_redis) -> None:
    """Not "active" whether or not anything listens: the referees' presence board, read by the page."""
    from arena.fleet.broker import connection
    from arena.fleet.presence_board import PresenceBoard
    from arena.fleet.presence_seen import SEEN
    from referee.identity import Identity

    remote = bot(user("rhea"), "Faraway", kind=Bot.REMOTE)
    name = f"bot-{remote.pk}"
    connection().hdel(SEEN, name)
    page = reverse("bot", args=[remote.pk])
    assertContains(client.get(page), "never connected yet")
    board, referee = PresenceBoard(), Identity("ref-1", "127.0.0.1:1")
    board.connected(referee, name)
    assertContains(client.get(page), '<span class="presence" data-online="1">online now</span>', html=False)
    board.disconnected(referee, name)
    shown = client.get(page)
    assertContains(shown, "offline, last seen 0\xa0minutes ago")
    assertNotContains(shown, "online now")
    connection().hdel(SEEN, name)
