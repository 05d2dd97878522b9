"""The HTTP API, /api/v1/ (docs/api.md): personal access tokens made and revoked on the site, the
OpenAPI document generated and validated, every endpoint called as a token holder, as a stranger
with a token of their own and as a visitor without one (a contract checked against the document's
list of paths), the owner-only things 404 to anybody else, throttling, and JSON error bodies."""
from __future__ import annotations

import gzip
import json
import re
from types import SimpleNamespace

import pytest
from django.core.cache import cache
from django.urls import reverse
from pytest_django.asserts import assertContains, assertNotContains

from arena.models import AccessToken, Comparison, Entry, Match, MatchSeat, Rating, Round, Tournament

from .site_data import bot, match, user

pytestmark = pytest.mark.django_db
API = "/api/v1"


@pytest.fixture(autouse=True)
def fresh_throttle():
    cache.clear()  # the throttle counts in the site's cache


@pytest.fixture
def world(settings, tmp_path, replay_file) -> SimpleNamespace:
    """Ann's uploaded bot (code stored, a check report) and Bob's, a finished rated match between
    them whose replay holds both bots' log lines, a ladder and a tournament."""
    settings.PARLOUR_UPLOAD_DIR = tmp_path
    ann, bob = user("ann"), user("bob")
    annie, bobby = bot(ann, "Annie"), bot(bob, "Bobby")
    (tmp_path / str(annie.pk) / "1").mkdir(parents=True)
    (tmp_path / str(annie.pk) / "1" / "annie.py").write_text("# Ann's secret strategy\n")
    annie.versions.update(smoke_report=json.dumps({"error": "none", "log": ["ann's own line"]}))
    played = match([annie, bobby], replay=replay_file, ranks=[1, 2], scores=[9, 3], ladder="tussie-mussie/standard/x")
    for b, mu in ((annie, 30.0), (bobby, 20.0)):
        Rating.objects.create(ladder="tussie-mussie/standard/x", bot_version=b.versions.get(), mu=mu, sigma=2.0,
                              games=1, wins=int(b == annie), fit_elo=mu, fit_low=mu - 5, fit_high=mu + 5)
    cup = Tournament.objects.create(name="Cup", game="tussie-mussie", format=Tournament.SWISS, rounds=1,
                                    table_size=2, seed=5, status=Tournament.FINISHED)
    entries = [Entry.objects.create(tournament=cup, bot_version=b.versions.get(), label=b.name) for b in (annie, bobby)]
    one = Round.objects.create(tournament=cup, number=1)
    final = Match.objects.create(key="cup/1", game="tussie-mussie", seed=1, status=Match.FINISHED, tournament=cup,
                                 round=one, result={"ranks": [2, 1]})
    for seat, (entry, rank) in enumerate(zip(entries, [2, 1])):
        MatchSeat.objects.create(match=final, seat=seat, bot_version=entry.bot_version, entry=entry, rank=rank,
                                 status="ok")
    version = annie.versions.get()
    question = Comparison.objects.create(owner=ann, bot=annie, a=version, b=bobby.versions.get(), game="tussie-mussie",
                                         players=2, max_games=10, elo0=0, elo1=50, alpha=0.05, beta=0.05, seed=1)
    _, ann_token = AccessToken.issue(ann, "laptop", ["read", "submit"])
    _, bob_token = AccessToken.issue(bob, "ci", ["read", "play"])
    return SimpleNamespace(ann=ann, bob=bob, annie=annie, bobby=bobby, match=played, cup=cup, comparison=question,
                           ann_token=ann_token, bob_token=bob_token)


def call(client, path: str, token: str | None = None, method: str = "get", **extra):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return getattr(client, method)(API + path, **headers, **extra)


# ---------------------------------------------------------------------- tokens on the site
def test_a_token_is_made_shown_once_stored_hashed_and_revoked_on_the_site(client) -> None:
    ann = user("ann")
    client.force_login(ann)
    page = client.get(reverse("access_tokens"))
    assertContains(page, "No token yet")
    made = client.post(reverse("access_tokens"), {"name": "CI", "scopes": ["read", "submit"]})
    token = re.search(r'<pre class="token" id="token">(plt_[\w-]+)</pre>', made.content.decode()).group(1)
    assert made["Cache-Control"] == "no-store"
    stored = AccessToken.objects.get()
    assert stored.scopes == ["read", "submit"] and stored.token_hash != token and token not in stored.token_hash
    listed = client.get(reverse("access_tokens"))
    assertContains(listed, stored.hint)
    assertNotContains(listed, token)  # shown once
    assert call(client, "/me", token).json()["scopes"] == ["read", "submit"]
    assert AccessToken.objects.get().last_used is not None
    client.post(reverse("access_token_revoke", args=[stored.pk]))
    refused = call(client, "/me", token)
    assert refused.status_code == 401 and "revoked" in refused.json()["message"]  # at once
    bob = user("bob")
    client.force_login(bob)
    assert client.post(reverse("access_token_revoke", args=[stored.pk])).status_code == 404  # not bob's


# ---------------------------------------------------------------------- the document and the contract
def test_the_openapi_document_is_generated_and_valid(client) -> None:
    from openapi_spec_validator import validate

    document = client.get(API + "/openapi.json")
    assert document.status_code == 200
    validate(document.json())
    assert document.json()["components"]["securitySchemes"]["TokenAuth"]["scheme"] == "bearer"
    assert client.get(API + "/docs").status_code == 200


OWNER_ONLY = {"/bots/{bot_id}/versions/{number}/report", "/bots/{bot_id}/versions/{number}/code.zip",
              "/bots/{bot_id}/logs", "/bots/{bot_id}/opponents", "/comparisons/{comparison_id}"}


def test_every_endpoint_as_the_owner_a_stranger_and_a_visitor(client, world) -> None:
    params = {"game": "tussie-mussie", "bot_id": world.annie.pk, "number": 1, "tournament_id": world.cup.pk,
              "match_id": world.match.pk, "comparison_id": world.comparison.pk}
    document = client.get(API + "/openapi.json").json()
    gets = [p.removeprefix(API) for p, ops in document["paths"].items() if "get" in ops]
    posts = [p.removeprefix(API) for p, ops in document["paths"].items() if "post" in ops]
    assert posts == ["/versions", "/bots/{bot_id}/challenges", "/bots/{bot_id}/comparisons"]  # tested below
    for path in gets:
        url = re.sub(r"\{(\w+)\}", lambda m: str(params[m.group(1)]), path)
        for who, token in (("owner", world.ann_token), ("stranger", world.bob_token), ("visitor", None)):
            response = call(client, url, token)
            expected = 404 if path in OWNER_ONLY and who != "owner" else 200
            assert response.status_code == expected, (path, who, response.content[:300])
            if expected == 404:
                assert "message" in response.json()
    # what each holds
    annie = call(client, f"/bots/{world.annie.pk}").json()
    assert annie["owner"] == "ann" and annie["versions"][0]["state"] == "active" and annie["ratings"][0]["mu"] == 30.0
    assert "spec" not in annie["versions"][0]  # where the code is stored is nobody's business
    report = call(client, f"/bots/{world.annie.pk}/versions/1/report", world.ann_token).json()
    assert report["report"]["log"] == ["ann's own line"]
    code = call(client, f"/bots/{world.annie.pk}/versions/1/code.zip", world.ann_token)
    assert code["Content-Type"] == "application/zip" and b"annie.py" in code.content
    ladder = call(client, "/ladders/tussie-mussie?ladder=tussie-mussie/standard/x").json()
    assert [(r["name"], r["rank"], r["mu"], r["sigma"], r["fit_elo"]) for r in ladder["rows"]] == \
        [("Annie", 1, 30.0, 2.0, 30.0), ("Bobby", 2, 20.0, 2.0, 20.0)]
    cup = call(client, f"/tournaments/{world.cup.pk}").json()
    assert [r["label"] for r in cup["standings"]] == ["Bobby", "Annie"] and cup["round_list"][0]["status"] == "finished"
    games = call(client, "/games").json()
    assert all(g["variants"] and g["variants"][0]["player_counts"] for g in games)
    assert {m["id"] for m in call(client, f"/matches?bot={world.bobby.pk}").json()} == {world.match.pk, world.cup.matches.get().pk}
    mine = call(client, "/me", world.bob_token).json()
    assert [b["name"] for b in mine["bots"]] == ["Bobby"]


def test_replays_go_out_gzipped_with_only_the_callers_own_log_lines(client, world) -> None:
    def logs(token):
        response = call(client, f"/matches/{world.match.pk}/replay", token)
        assert response["Content-Type"] == "application/gzip"
        return {e["seat"] for e in json.loads(gzip.decompress(response.content))["bot_logs"]}

    assert logs(world.ann_token) == {0}
    assert logs(world.bob_token) == {1}
    assert logs(None) == set()
    unfinished = match([world.annie, world.bobby], status=Match.SCHEDULED)
    assert call(client, f"/matches/{unfinished.pk}").json()["seed"] is None  # the seed reveals the deal


def test_bad_tokens_scopes_and_errors_are_json_with_a_message(client, world) -> None:
    unknown = call(client, "/games", "plt_nope")
    assert unknown.status_code == 401 and "unknown or revoked" in unknown.json()["message"]
    assert call(client, "/games", headers={}).status_code == 200
    malformed = client.get(API + "/games", HTTP_AUTHORIZATION="Basic abc")
    assert malformed.status_code == 401 and "Bearer" in malformed.json()["message"]
    missing = call(client, "/games/no-such-game")
    assert missing.status_code == 404 and "GET /api/v1/games" in missing.json()["message"]
    invalid = call(client, "/matches?limit=many")
    assert invalid.status_code == 422 and "limit" in invalid.json()["message"]
    _, submitter = AccessToken.issue(world.ann, "submit only", ["submit"])
    refused = call(client, f"/bots/{world.annie.pk}/logs", submitter)
    assert refused.status_code == 403 and "'read' scope" in refused.json()["message"]
    mine = call(client, "/bots?mine=true")
    assert mine.status_code == 401 and "access token" in mine.json()["message"]


def test_throttling_answers_429_with_retry_after_per_token(client, world, settings) -> None:
    settings.PARLOUR_API_RATE = "3/min"
    for _ in range(3):
        assert call(client, "/games", world.ann_token).status_code == 200
    throttled = call(client, "/games", world.ann_token)
    assert throttled.status_code == 429 and 0 < int(throttled["Retry-After"]) <= 60
    assert "Retry-After" in throttled.json()["message"]
    assert call(client, "/games", world.bob_token).status_code == 200  # another token has its own count



# ---------------------------------------------------------------------- submitting a version
STEADY = b"from bots_sdk import Bot\n\n\nclass Steady(Bot):\n    def decide(self, decision):\n        return decision.legal_actions[0]\n"


def test_submit_needs_the_submit_scope_and_a_live_token(client, world) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    def submit(token, content=STEADY, name="Steady"):
        return call(client, "/versions", token, method="post",
                    data={"name": name, "game": "misty", "file": SimpleUploadedFile("steady.py", content)})

    reader = submit(world.bob_token)
    assert reader.status_code == 403 and "'submit' scope" in reader.json()["message"]
    assert submit(None).status_code == 401
    made = submit(world.ann_token)
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["bot"]["owner"] == "ann" and body["version"]["state"] == "pending"
    check = Match.objects.get(check_of__bot_id=body["bot"]["id"])
    assert body["version"]["check_match"] == check.pk and check.status == Match.SCHEDULED  # the site's road
    again = submit(world.ann_token)
    assert again.json()["version"]["number"] == 2
    broken = submit(world.ann_token, b"x = 1\n")
    assert broken.status_code == 400 and "no Bot subclass" in broken.json()["message"]
    AccessToken.objects.filter(owner=world.ann).update(revoked=Match.objects.get(pk=check.pk).created)
    revoked = submit(world.ann_token)
    assert revoked.status_code == 401 and "revoked" in revoked.json()["message"]


def test_challenges_and_comparisons_need_the_play_scope_and_the_bot(client, world) -> None:
    _, player = AccessToken.issue(world.ann, "play", ["read", "play"])
    path = f"/bots/{world.annie.pk}/challenges"
    body = json.dumps({"opponents": ["house:random"]})
    without = call(client, path, world.ann_token, method="post", data=body, content_type="application/json")
    assert without.status_code == 403 and "'play' scope" in without.json()["message"]
    stranger = call(client, path, world.bob_token, method="post", data=body, content_type="application/json")
    assert stranger.status_code == 404  # bob has play, but annie is not his
    offered = call(client, f"/bots/{world.annie.pk}/opponents", player).json()
    assert "house:random" in [o["key"] for o in offered["opponents"]] and "house greedy" in offered["compare"]
    started = call(client, path, player, method="post", data=body, content_type="application/json")
    assert started.status_code == 201, started.content
    match = Match.objects.get(pk=started.json()["id"])
    assert not match.rated and [s.bot_version.bot.name for s in match.seats.all()] == ["Annie", "random"]
    wrong = call(client, path, player, method="post", data=json.dumps({"opponents": ["house:nobody"]}),
                 content_type="application/json")
    assert wrong.status_code == 400 and "among those offered" in wrong.json()["message"]
    asked = call(client, f"/bots/{world.annie.pk}/comparisons", player, method="post",
                 data=json.dumps({"a": "v1", "b": "greedy", "max_games": 20}), content_type="application/json")
    assert asked.status_code == 201, asked.content
    made = asked.json()
    assert (made["a"], made["b"], made["status"], made["max_games"]) == ("Annie v1", "greedy v1", "scheduled", 20)
    assert call(client, f"/comparisons/{made['id']}", player).json()["status"] == "scheduled"
    assert call(client, f"/comparisons/{made['id']}", world.bob_token).status_code == 404
    unknown = call(client, f"/bots/{world.annie.pk}/comparisons", player, method="post",
                   data=json.dumps({"a": "v7", "b": "greedy"}), content_type="application/json")
    assert unknown.status_code == 400 and "house greedy" in unknown.json()["message"]
