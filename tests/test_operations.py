"""The platform's answers to its own failures, one transition at a time (docs/operations.md):
retried not aborted, aborted only at the cap with its reason, a tournament halted rather than
paired or finished over an unplayed match, the reconciler, the time limits, the operator's page.
The same faults met by real processes: tests/test_faults_e2e.py."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from django.utils import timezone

from arena.bots import sandbox_reaper
from arena.fleet import heartbeats, reconcile
from arena.road import lifecycle, time_limits
from arena.models import Match, Tournament
from arena.competitions.tournaments import create_tournament, progress_note, start_tournament
from test_arena_e2e import redis_db

ROOT = Path(__file__).resolve().parents[1]


def swiss() -> Tournament:
    tournament = create_tournament("tussie-mussie", "swiss", ["greedy", "random", "random", "random"],
                                   rounds=3, table_size=2, seed=4)
    start_tournament(tournament)
    return tournament


def fail(match: Match, reason: str = "RpcError: the referee is unreachable") -> bool:
    claimed = lifecycle.claim(match.pk, "w1@host/123")
    assert claimed is not None
    return lifecycle.hand_back(match.pk, claimed.attempts, reason)


@pytest.mark.django_db
def test_a_platform_failure_schedules_the_match_again_with_a_growing_back_off() -> None:
    tournament = swiss()
    match = tournament.matches.order_by("pk").first()
    waits = []
    for failures in range(1, 5):
        before = timezone.now()
        assert not fail(match)
        match.refresh_from_db()
        assert (match.status, match.failures, match.worker) == (Match.SCHEDULED, failures, "")
        assert "the referee is unreachable" in match.last_failure
        waits.append(round((match.due - before).total_seconds()))
    assert waits == [1, 2, 4, 8]
    assert [lifecycle.backoff(n) for n in (6, 7, 30)] == [32, 60, 60]  # up to PARLOUR_RETRY_MAX_DELAY
    assert "NOT FINISHED" in progress_note(tournament) and "1 waiting for the platform (retried)" in progress_note(tournament)


@pytest.mark.django_db
def test_a_full_referee_puts_the_match_back_without_counting_a_failure(monkeypatch) -> None:
    """Back-pressure is not a failure: a match the referee refused (PARLOUR_MAX_MATCHES) waits its
    turn and is never aborted for it, however often it happens."""
    from referee.client import RefereeFull

    match = swiss().matches.order_by("pk").first()

    def full(*args, **kwargs):
        raise RefereeFull("referee full: 1500 matches under way (PARLOUR_MAX_MATCHES=1500)")

    monkeypatch.setattr(lifecycle, "play", full)
    for _ in range(6):  # each would have counted towards PARLOUR_PLATFORM_FAILURES
        before = timezone.now()
        assert lifecycle.play_once(match.pk, "w1@host/1") == "handed back"
        match.refresh_from_db()
        assert (match.status, match.failures) == (Match.SCHEDULED, 0)
        assert "referee full" in match.last_failure and match.due > before
        Match.objects.filter(pk=match.pk).update(due=timezone.now())


@pytest.mark.django_db
def test_only_the_attempt_holding_a_match_hands_it_back() -> None:
    match = swiss().matches.order_by("pk").first()
    old = lifecycle.claim(match.pk, "w1@host/1").attempts
    assert lifecycle.claim(match.pk, "w2@host/2") is None  # a duplicate task: nothing to do
    assert not lifecycle.hand_back(match.pk, old, "the worker stopped")  # the reconciler's
    new = lifecycle.claim(match.pk, "w2@host/2").attempts
    assert new == old + 1
    assert not lifecycle.hand_back(match.pk, old, "late news from the first worker")
    match.refresh_from_db()
    assert (match.status, match.worker, match.failures) == (Match.RUNNING, "w2@host/2", 1)


@pytest.mark.django_db
def test_at_the_cap_a_match_is_aborted_unplayed_with_its_reason_and_the_swiss_halts(settings) -> None:
    from arena.road.lifecycle import after_match

    settings.PARLOUR_PLATFORM_FAILURES = 3
    tournament = swiss()
    first, second = tournament.matches.order_by("pk")
    assert not fail(first) and not fail(first)
    assert fail(first, "RpcError: connection refused")  # the third: aborted
    first.refresh_from_db()
    assert first.status == Match.ABORTED and first.unplayed
    assert first.result["aborted"] == "the platform failed it 3 times (last: RpcError: connection refused)"
    # the other match of the round is played: the round is over, but no round 2 from it
    Match.objects.filter(pk=second.pk).update(status=Match.FINISHED)
    second.seats.update(rank=1, status="ok")
    after_match(Match.objects.get(pk=second.pk))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.HALTED and tournament.round_set.count() == 1
    assert progress_note(tournament).startswith("HALTED: 1 match(es) aborted unplayed")
    # `tournament run ID` again: the unplayed match is scheduled again, its failures forgotten
    start_tournament(tournament)
    first.refresh_from_db()
    tournament.refresh_from_db()
    assert (first.status, first.failures, first.result) == (Match.SCHEDULED, 0, None)
    assert tournament.status == Tournament.RUNNING


@pytest.mark.django_db
def test_the_referees_own_verdict_is_a_result_not_an_unplayed_match() -> None:
    from arena.road.lifecycle import PlayedMatch, record
    from referee.client import MatchOutcome

    match = swiss().matches.order_by("pk").first()
    lifecycle.claim(match.pk, "w1@host/1")
    record(match.pk, PlayedMatch(MatchOutcome("m1", "aborted: decision cap of 100000 reached", [], {}, None)))
    match.refresh_from_db()
    assert match.status == Match.ABORTED and not match.unplayed


def test_the_time_limits_follow_the_longest_possible_match(settings) -> None:
    """The decision cap and the join timeout are the referee's settings, declared once
    (referee/settings.py): the platform's processes read the same values."""
    from referee.games import GAMES
    from referee.settings import RefereeEnvironment

    declared = RefereeEnvironment()  # the declared defaults
    assert time_limits.LARGEST_TABLE >= max(max(g.variant(None).player_counts) for g in GAMES.values())
    longest = time_limits.longest_match({}, time_limits.LARGEST_TABLE)
    assert longest == declared.decision_cap * 1.0 + 6 * 10.0 + declared.first_join_timeout + declared.join_timeout
    assert time_limits.visibility_timeout() > longest  # never redelivered while it may still be playing
    assert time_limits.match_time_limit({"move_limit": 0.1, "bank": 1.0}, 2) < time_limits.match_time_limit({}, 2)
    from arena.fleet.celery_app import app

    assert app.conf.broker_transport_options["visibility_timeout"] == time_limits.visibility_timeout()
    settings.PARLOUR_DECISION_CAP, settings.PARLOUR_JOIN_TIMEOUT = 1000, 5.0  # an operator's own
    settings.PARLOUR_FIRST_JOIN_TIMEOUT = 20.0
    assert time_limits.longest_match({}, 2) == 1000 * 1.0 + 2 * 10.0 + 20.0 + 5.0
    settings.PARLOUR_MATCH_TIME_LIMIT = 60.0
    assert time_limits.match_time_limit({}, 2) == 60.0


@pytest.fixture
def own_redis(settings):
    """A Redis database of this test's own, for the heartbeats and the queue."""
    url = redis_db()
    client = redis.Redis.from_url(url)
    settings.REDIS_URL = url
    yield client
    client.flushdb()


@pytest.mark.django_db
def test_the_reconciler_hands_back_a_dead_workers_match_and_requeues_a_lost_one(own_redis, monkeypatch, settings) -> None:
    sent = []
    monkeypatch.setattr(reconcile, "enqueue_matches", lambda ids: sent.extend(ids))
    monkeypatch.setattr(lifecycle, "enqueue_match_later", lambda pk, delay: None)
    first, second = swiss().matches.order_by("pk")
    third, fourth = swiss().matches.order_by("pk")
    long_ago = timezone.now() - timedelta(seconds=120)
    heartbeats.beat("alive@host", time.time())  # this process is alive@host's main process
    lifecycle.claim(first.pk, "dead@host/99")
    lifecycle.claim(second.pk, heartbeats.identity("alive@host"))
    Match.objects.filter(pk__in=[first.pk, second.pk]).update(started=long_ago)
    Match.objects.filter(pk__in=[third.pk, fourth.pk]).update(due=long_ago)
    # the fourth's task waits in the queue; the third's was lost
    from arena.fleet.celery_app import app

    with app.connection_for_write(settings.REDIS_URL) as conn:
        app.send_task("arena.tasks.run_match", args=[fourth.pk], connection=conn)
    assert reconcile.queued_match_ids(own_redis) == {fourth.pk}
    done = reconcile.reconcile()
    assert done == {"handed_back": [first.pk], "aborted": [], "requeued": [third.pk]}
    first.refresh_from_db()
    assert first.status == Match.SCHEDULED and "the worker process playing it (dead@host/99) stopped" in first.last_failure
    assert Match.objects.get(pk=second.pk).status == Match.RUNNING  # its worker vouches for it
    assert sent == [third.pk]


@pytest.mark.django_db
def test_a_round_recorded_by_a_worker_that_died_before_pairing_the_next_is_moved_on(own_redis, monkeypatch) -> None:
    monkeypatch.setattr("arena.competitions.tournaments.enqueue_matches", lambda ids: None)
    tournament = swiss()
    for match in tournament.matches.all():  # recorded, but after_match never ran
        Match.objects.filter(pk=match.pk).update(status=Match.FINISHED)
        match.seats.update(rank=1, status="ok")
    reconcile.reconcile()
    assert tournament.round_set.count() == 2
    assert tournament.matches.filter(status=Match.SCHEDULED).count() == 2


OWNER = """
import sys, time
from sandbox import Sandbox
from arena.bots import sandbox_reaper

LINGER = "import os, time\\nif os.fork() == 0:\\n    os.setsid()\\ntime.sleep(600)"
sandbox = Sandbox(None, None, command=[sys.executable, "-c", LINGER])
sandbox_reaper.register(sandbox.name, 0, sandbox_reaper.cgroup_paths(sandbox.name), "full")
sandbox.start()
sandbox_reaper.register(sandbox.name, sandbox.process.pid, [str(p) for p in sandbox.cgroup.paths], "full")
print("ready", flush=True)
time.sleep(600)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="the full sandbox needs root (docs/security.md)")
def test_a_sandbox_whose_owner_was_killed_is_reaped_and_a_live_owners_is_not(tmp_path, settings) -> None:
    """A real sandbox (its launcher in a session of its own, a detached child inside) outlives the
    process that started it, killed; the reaper kills its processes and removes its cgroups."""
    settings.PARLOUR_SANDBOX_REGISTRY = tmp_path / "registry"
    env = dict(os.environ, PARLOUR_SANDBOX_REGISTRY=str(tmp_path / "registry"), PYTHONPATH=str(ROOT))
    owners = [subprocess.Popen([sys.executable, "-c", OWNER], env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True)
              for _ in range(2)]
    try:
        assert [o.stdout.readline() for o in owners] == ["ready\n", "ready\n"]
        entries = {e["owner"]: e for e in (json.loads(f.read_text()) for f in (tmp_path / "registry").iterdir())}
        killed, kept = entries[owners[0].pid], entries[owners[1].pid]
        cgroups = [Path(c) for c in killed["cgroups"]]
        def inside() -> int:
            return len(set().union(*map(sandbox_reaper.cgroup_pids, cgroups)))

        deadline = time.monotonic() + 30  # "ready" is said once the launcher runs, not its children
        while inside() < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        owners[0].kill()
        owners[0].wait()
        time.sleep(0.5)
        assert inside() >= 3  # launcher, init, the command, its child: they outlived their owner
        assert sandbox_reaper.reap_orphans() == [killed["name"]]
        assert not any(c.exists() for c in cgroups)
        assert not sandbox_reaper.alive(killed["launcher"], killed["launcher_started"])
        assert all(sandbox_reaper.cgroup_pids(Path(c)) for c in kept["cgroups"])  # a live owner's: left alone
    finally:
        for owner in owners:
            owner.kill()
            owner.wait()
        for entry in (json.loads(f.read_text()) for f in (tmp_path / "registry").glob("*.json")):
            sandbox_reaper.reap(entry)


@pytest.mark.django_db
def test_the_operator_page_is_for_staff_and_shows_retried_and_aborted_matches(client, settings) -> None:
    from django.contrib.auth.models import User

    settings.PARLOUR_PLATFORM_FAILURES = 2
    first, second = swiss().matches.order_by("pk")
    fail(first, "RpcError: the referee at 127.0.0.1:5 is unreachable")
    fail(second)
    fail(second, "ConnectionError: Redis went away")
    User.objects.create_user("visitor", password="pw-visitor-123")
    client.login(username="visitor", password="pw-visitor-123")
    assert client.get("/operator/").status_code == 302  # to the admin's login
    User.objects.create_user("op", password="pw-op-123", is_staff=True)
    client.login(username="op", password="pw-op-123")
    page = client.get("/operator/").content.decode()
    assert "1 scheduled (1 retried after a platform failure)" in page and "1 aborted" in page
    assert "RpcError: the referee at 127.0.0.1:5 is unreachable" in page
    assert "the platform failed it 2 times (last: ConnectionError: Redis went away)" in page
    assert "No worker alive" in page


def test_every_test_docs_operations_names_exists() -> None:
    import ast
    import re

    text = (ROOT / "docs" / "operations.md").read_text()
    references = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", text)
    assert len(references) >= 12
    for file, name in references:
        tree = ast.parse((ROOT / file).read_text())
        assert name in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}, f"{file}::{name}"


@pytest.mark.django_db
def test_the_demo_always_has_a_tournament_to_watch() -> None:
    """`make demo`: its first tournaments end within minutes; then another starts, of the games in
    turn, never two of its own at once."""
    from arena import demo
    from referee.games import GAMES

    first = demo.demo_tournaments()
    assert len(first) == len(GAMES) and demo.demo_tournaments() == []  # once, even run again
    assert demo.next_demo_tournament(0) is None  # its tournaments still play
    Tournament.objects.filter(pk__in=first).update(status=Tournament.FINISHED)
    following = Tournament.objects.get(pk=demo.next_demo_tournament(0))
    assert following.status == Tournament.RUNNING and following.matches.exists()
    assert following.game == sorted(GAMES)[0] and following.name.endswith("Swiss no. 2")
    assert demo.next_demo_tournament(1) is None  # that one plays now
