"""A bot's matches exported for its author (CSV and JSON from the bot page): seed, seats, scores,
ranks and replay link, with the replay rule's limits (no seed, no replay before the match is over)."""
from __future__ import annotations

import csv
import io
import json
from urllib.parse import urlparse

import pytest
from django.urls import reverse
from pytest_django.asserts import assertContains

from arena.models import Match

from .site_data import bot, match, user

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(replay_file):
    owner = user("ada")
    mine, other = bot(owner, "Mine"), bot(user("bob"), "Other")
    done = match([mine, other], replay=replay_file, ranks=[2, 1], scores=[7.0, 9.5])
    twice = match([other, mine, mine], ranks=[1, 2, 3], scores=[3.0, 2.0, 1.0])  # two seats of one match
    running = match([mine, other], status=Match.RUNNING)
    match([other, other], ranks=[1, 2], scores=[1.0, 0.0])  # not the bot's: not exported
    for m, seed in ((done, 1111), (twice, 2222), (running, 3333)):
        Match.objects.filter(pk=m.pk).update(seed=seed)
    return owner, mine, done, twice, running


def streamed(response) -> str:
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode()


def test_csv_has_a_row_per_seat_with_seed_scores_ranks_and_replay(client, played) -> None:
    owner, mine, done, twice, running = played
    assertContains(client.get(reverse("bot", args=[mine.pk])), reverse("bot_matches_csv", args=[mine.pk]))
    response = client.get(reverse("bot_matches_csv", args=[mine.pk]))  # a visitor: the rows are public
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(streamed(response))))
    assert [(int(r["match"]), int(r["seat"])) for r in rows] == [
        (running.pk, 0), (twice.pk, 1), (twice.pk, 2), (done.pk, 0)]  # latest first
    by_key = {(int(r["match"]), int(r["seat"])): r for r in rows}
    first = by_key[(done.pk, 0)]
    assert (first["seed"], first["score"], first["rank"], first["players"]) == ("1111", "7", "2", "2")
    assert (first["bots"], first["scores"], first["ranks"]) == ("Mine v1;Other v1", "7;9.5", "2;1")
    assert by_key[(twice.pk, 2)]["rank"] == "3" and by_key[(twice.pk, 2)]["seed"] == "2222"
    assert by_key[(twice.pk, 1)]["replay_url"] == ""  # no replay file
    # not finished: the seed would reveal every hidden card, and there is no replay to download
    assert by_key[(running.pk, 0)]["seed"] == "" and by_key[(running.pk, 0)]["replay_url"] == ""
    download = client.get(urlparse(first["replay_url"]).path)
    assert download.status_code == 200 and download.content[:2] == b"\x1f\x8b"
    assert client.get(urlparse(first["match_url"]).path).status_code == 200


def test_json_has_every_seat_of_each_match(client, played) -> None:
    owner, mine, done, twice, running = played
    client.force_login(owner)
    data = json.loads(streamed(client.get(reverse("bot_matches_json", args=[mine.pk]))))
    assert data["name"] == "Mine"
    matches = {m["match"]: m for m in data["matches"]}
    assert list(matches) == [running.pk, twice.pk, done.pk]
    assert matches[done.pk]["seed"] == 1111 and matches[done.pk]["mine"] == [0]
    assert [(s["bot"], s["score"], s["rank"]) for s in matches[done.pk]["seats"]] == [("Mine", 7.0, 2), ("Other", 9.5, 1)]
    assert matches[done.pk]["replay_url"].endswith(reverse("replay_download", args=[done.pk]))
    assert matches[twice.pk]["mine"] == [1, 2] and matches[twice.pk]["replay_url"] is None
    assert matches[running.pk]["seed"] is None and matches[running.pk]["replay_url"] is None
    assert client.get(reverse("bot_matches_json", args=[999999])).status_code == 404
