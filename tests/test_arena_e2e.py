"""Tournaments and the ladder end to end: real Celery workers on the real Redis, a real referee
process, every bot its own SDK process, on SQLite and on PostgreSQL."""
from __future__ import annotations

import gzip
import itertools
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest
import redis

from referee_process import ROOT

REDIS = "redis://127.0.0.1:6379"
POSTGRES = "postgres://postgres@127.0.0.1:5432"
LIVE_KEEP = 1800  # seconds the live frames of a recorded match stay in these tests (PARLOUR_LIVE_KEEP_SECONDS)


_redis_calls = itertools.count()


def redis_db() -> str:
    """A Redis database of its own for each test (flushed), so parallel runs never share queues:
    xdist worker gw0 takes databases 1-7 in turn, gw1 8-14 (15 is the website tests' live frames)."""
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0) % 2
    index = 1 + 7 * worker + next(_redis_calls) % 7
    url = f"{REDIS}/{index}"
    redis.Redis.from_url(url).flushdb()
    return url


class Platform:
    """A temporary PARLOUR_HOME, a database, a referee and Celery workers for one test."""

    def __init__(self, tmp: Path, database: str, redis_url: str | None = None, **env: str) -> None:
        self.home = tmp
        self.env = dict(os.environ, PARLOUR_HOME=str(tmp), REDIS_URL=redis_url or redis_db(), PARLOUR_WORKERS="2",
                        PARLOUR_RESTORE_INTERVAL="2", PARLOUR_RESTORE_THROTTLE="1",
                        # a slow machine's tournament outlasts the usual 120 s: the test reads every
                        # match's frames at its end
                        PARLOUR_LIVE_KEEP_SECONDS=str(LIVE_KEEP), **env)
        self.env.pop("DATABASE_URL", None)
        self.database = None
        if database == "postgres":
            import psycopg

            self.database = f"parlour_test_{secrets.token_hex(4)}"
            with psycopg.connect(f"{POSTGRES}/postgres", autocommit=True) as conn:
                conn.execute(f"CREATE DATABASE {self.database}")
            self.env["DATABASE_URL"] = f"{POSTGRES}/{self.database}"
        self.env["PARLOUR_OPERATOR_TOKEN"] = secrets.token_urlsafe(8)
        self.start_referee()
        self.workers: list[subprocess.Popen] = []

    def start_referee(self, port: int = 0) -> None:
        """The referee (again on its first port, when restarted)."""
        self.referee = subprocess.Popen(
            [sys.executable, "-m", "referee", "serve", "--port", str(port),
             "--token-verifier", "arena.fleet.token_verifier:verify"],
            env=self.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
        self.env["REFEREE_ADDRESS"] = self.referee.stdout.readline().split("listening on", 1)[1].split()[0]

    def arena(self, *args: str, timeout: float = 300, returncode: int = 0) -> subprocess.CompletedProcess:
        done = subprocess.run([sys.executable, "-m", "arena", *args], env=self.env, capture_output=True,
                              text=True, cwd=ROOT, timeout=timeout)
        assert done.returncode == returncode, done.stderr[-3000:]
        return done

    def start_worker(self) -> subprocess.Popen:
        log = open(self.home / f"worker-{len(self.workers)}.log", "w")
        worker = subprocess.Popen([sys.executable, "-m", "arena", "worker"], env=self.env, cwd=ROOT,
                                  stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.workers.append(worker)
        return worker

    def worker_logs(self, tail: int = 4000) -> str:
        """The end of each worker's log, for a failure's message (the temporary home is gone after)."""
        return "\n".join(f"--- {log.name}\n{log.read_text(errors='replace')[-tail:]}"
                         for log in sorted(self.home.glob("worker-*.log")))

    def close(self) -> None:
        for worker in self.workers:
            if worker.poll() is None:
                os.killpg(worker.pid, signal.SIGTERM)
                try:
                    worker.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(worker.pid, signal.SIGKILL)
        self.referee.terminate()
        self.referee.wait(10)
        if self.database:
            import psycopg

            with psycopg.connect(f"{POSTGRES}/postgres", autocommit=True) as conn:
                conn.execute(f"DROP DATABASE IF EXISTS {self.database} WITH (FORCE)")


@pytest.fixture
def platform(request, tmp_path):
    made = []

    def make(database: str = "sqlite", **kw) -> Platform:
        made.append(Platform(tmp_path, database, **kw))
        return made[-1]

    yield make
    for p in made:
        p.close()


def hand_standings(export: dict) -> dict[str, tuple[Fraction, Fraction]]:
    """Points and Buchholz recomputed here from the recorded ranks, as docs/tournaments.md defines
    them: rank r of k earns (k - r)/(k - 1), ties share the average; a bye 1/2; Buchholz sums the
    final points of every opponent met at every table."""
    points: dict[str, Fraction] = defaultdict(Fraction)
    tables = []
    for match in export["matches"]:
        labels = [s["label"] for s in match["seats"]]
        ranks = [s["rank"] for s in match["seats"]]
        k = len(ranks)
        for label, rank in zip(labels, ranks):
            tied = ranks.count(rank)
            places = range(rank, rank + tied)
            points[label] += sum(Fraction(k - p, k - 1) for p in places) / tied
        tables.append(labels)
    for byes in export["byes"].values():
        for label in byes:
            points[label] += Fraction(1, 2)
    buchholz: dict[str, Fraction] = defaultdict(Fraction)
    for labels in tables:
        for label in labels:
            buchholz[label] += sum(points[o] for o in labels if o != label)
    return {label: (points[label], buchholz[label]) for label in points}


def check_recorded_once(export: dict, expected_matches: int) -> None:
    assert export["status"] == "finished"
    assert len(export["matches"]) == expected_matches
    assert len({m["key"] for m in export["matches"]}) == expected_matches
    for match in export["matches"]:
        assert match["status"] == "finished"
        assert all(s["rank"] is not None and s["status"] for s in match["seats"])


@pytest.mark.parametrize("database", ["sqlite", "postgres"])
def test_swiss_tussie_mussie_16_entrants(platform, database) -> None:
    p = platform(database)
    p.start_worker()
    bots = ["greedy", "greedy#2"] + ["random"] + [f"random#{i}" for i in range(2, 15)]
    p.arena("tournament", "create", "tussie-mussie", "--format", "swiss", "--rounds", "3", "--seed", "7",
            "--bots", ",".join(bots))
    p.arena("tournament", "run", "1")
    export = json.loads(p.arena("tournament", "standings", "1", "--json").stdout)
    check_recorded_once(export, 3 * 4)  # 16 entrants at tables of 4, three rounds
    hand = hand_standings(export)
    rows = export["standings"]
    assert {r["label"] for r in rows} == set(bots)
    for row in rows:
        assert Fraction(row["points"]).limit_denominator(1000) == hand[row["label"]][0]
        assert Fraction(row["buchholz"]).limit_denominator(1000) == hand[row["label"]][1]
    ordered = [(r["points"], r["buchholz"]) for r in rows]
    assert ordered == sorted(ordered, reverse=True)
    check_live_frames_equal_replays(p, export)


def check_live_frames_equal_replays(p: Platform, export: dict) -> None:
    """The frames the worker kept in Redis while each match ran are the stored replay's public
    frames, one per step from the start (they expire a while after the match is recorded)."""
    live = redis.Redis.from_url(p.env["REDIS_URL"])
    for match in export["matches"]:
        frames = [json.loads(f) for f in live.lrange(f"parlour:live:{match['id']}:frames", 0, -1)]
        replay = json.loads(gzip.decompress(Path(match["replay"]).read_bytes()))
        assert frames == replay["public"], match["key"]
        assert len(frames) == len(replay["log"]) + 1
        assert 0 < live.ttl(f"parlour:live:{match['id']}:frames") <= LIVE_KEEP
    assert not live.smembers("parlour:live"), "no match is left marked as being played"


def database_rows(p: Platform, query: str, *args) -> list[tuple]:
    """Read the platform's SQLite database as an operator would."""
    import sqlite3

    with sqlite3.connect(p.home / "parlour.sqlite3", timeout=30) as db:
        return db.execute(query, args).fetchall()


def wait_for(condition, timeout: float, what: str, every: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(every)
    raise AssertionError(f"timed out ({timeout} s) waiting for {what}")


def test_round_robin_tricky_twist_and_a_killed_worker(platform) -> None:
    """kill -9 a worker mid-tournament, the broker's visibility timeout at its default (over a
    day): the matches it held finish on the other worker within a minute; each is recorded once."""
    p = platform("sqlite")
    first, second = p.start_worker(), p.start_worker()
    bots = ["greedy", "random", "random#2", "random#3", "random#4", "random#5"]
    created = p.arena("tournament", "create", "tricky-twist", "--format", "round-robin", "--table-size", "3",
                      "--seed", "3", "--bots", ",".join(bots)).stdout
    rounds = int(created.split(" rounds")[0].rsplit(" ", 1)[1])
    runner = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "run", "1"], env=p.env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    held = wait_for(lambda: database_rows(p, "SELECT id FROM arena_match WHERE status='running' AND worker LIKE ?",
                                          f"w{first.pid}@%"), 60, "a match running on the first worker", 0.05)
    os.killpg(first.pid, signal.SIGKILL)
    killed = time.monotonic()
    for (match_id,) in held:
        wait_for(lambda: database_rows(p, "SELECT 1 FROM arena_match WHERE id=? AND status='finished'", match_id),  # noqa: B023 - waited for here, before the loop moves on
                 60, f"match {match_id} of the killed worker to finish elsewhere")
        (worker, failures), = database_rows(p, "SELECT worker, failures FROM arena_match WHERE id=?", match_id)
        assert worker.startswith(f"w{second.pid}@") and failures == 1
    assert time.monotonic() - killed < 60
    out, err = runner.communicate(timeout=240)
    assert runner.returncode == 0, err[-2000:]
    export = json.loads(p.arena("tournament", "standings", "1", "--json").stdout)
    check_recorded_once(export, rounds * 2)  # 6 entrants at tables of 3: two tables a round
    meetings = defaultdict(int)
    for match in export["matches"]:
        labels = sorted(s["label"] for s in match["seats"])
        for i, a in enumerate(labels):
            for b in labels[i + 1:]:
                meetings[a, b] += 1
    assert len(meetings) == 15, "every pair met at least once"
    hand = hand_standings(export)
    for row in export["standings"]:
        assert Fraction(row["points"]).limit_denominator(1000) == hand[row["label"]][0]


def house_processes(worker: int) -> list[tuple[int, list[str]]]:
    """The warm bot processes a worker's pool processes run: (pid, command line)."""
    import psutil

    found = []
    for process in psutil.Process(worker).children(recursive=True):
        try:
            command = process.cmdline()
        except psutil.NoSuchProcess:
            continue
        if "serve-seats" in command:
            found.append((process.pid, command))
    return found


def play_spans(p: Platform, tournament: int) -> list[tuple[str, str]]:
    """(started, finished) of a tournament's matches, as the database keeps them."""
    return database_rows(p, "SELECT started, finished FROM arena_match WHERE tournament_id=? ORDER BY started",
                         tournament)


def overlapping(spans: list[tuple[str, str]]) -> bool:
    return any(b[0] < a[1] for a, b in zip(spans, spans[1:]))


def test_instant_house_bots_play_all_their_seats_from_one_process(platform) -> None:
    """The real road with two pool processes and ONE core for thinking matches: a round robin of
    four randoms, then a Bszzzz table of four randoms, every seat of both played by the same one
    ``serve-seats --many`` process, which the worker's main process keeps for both pool processes
    (arena.bots.keeper), and matches played side by side; then a round robin with mcts (a bot that
    thinks here), its matches one at a time (arena.bots.cores)."""
    p = platform("sqlite", PARLOUR_THINKING_MATCHES="1")
    worker = p.start_worker()  # PARLOUR_WORKERS=2: two pool processes
    p.arena("tournament", "create", "tussie-mussie", "--format", "round-robin", "--table-size", "2", "--seed", "1",
            "--bots", "random,random#2,random#3,random#4")
    p.arena("tournament", "run", "1")
    after_two = house_processes(worker.pid)
    p.arena("tournament", "create", "bszzzz", "--format", "swiss", "--rounds", "1", "--table-size", "4",
            "--seed", "2", "--bots", "random,random#2,random#3,random#4")
    p.arena("tournament", "run", "2")
    after_four = house_processes(worker.pid)
    assert len(after_two) == 1 and "--many" in after_two[0][1]
    assert after_four == after_two, "the Bszzzz table's four seats: the same one process"
    import psutil

    assert psutil.Process(after_two[0][0]).ppid() == worker.pid, "kept by the worker's main process"
    players = {row[0].rsplit("/", 1)[1] for row in database_rows(p, "SELECT worker FROM arena_match")}
    assert len(players) == 2, "both pool processes played (their matches' seats went to the one process)"
    assert overlapping(play_spans(p, 1)), "house bots' matches take no core: two were played at once"
    p.arena("tournament", "create", "tussie-mussie", "--format", "round-robin", "--table-size", "2", "--seed", "3",
            "--bots", "mcts,mcts#2,random,random#2")
    p.arena("tournament", "run", "3")
    spans = play_spans(p, 3)
    thinking = [span for span, labels in zip(spans, database_rows(
        p, "SELECT group_concat(e.label) FROM arena_match m JOIN arena_matchseat s ON s.match_id = m.id "
           "JOIN arena_entry e ON e.id = s.entry_id WHERE m.tournament_id=3 GROUP BY m.id ORDER BY m.started"))
        if "mcts" in labels[0]]
    # a double round robin of four: 12 matches, 10 of them with an mcts seat
    assert len(spans) == 12 and len(thinking) == 10
    assert not overlapping(thinking), "matches with mcts: one core, one at a time"
    # the worker's heartbeat says how its cores are used (arena status), once it beats again
    wait_for(lambda: [w["cores"] for w in json.loads(p.arena("status", "--json").stdout)["workers"]]
             == ["0/1 thinking, 0 waiting"], 30, "the worker's cores all free in its heartbeat", every=1)
    for number, seats in (("1", 2), ("2", 4), ("3", 2)):
        export = json.loads(p.arena("tournament", "standings", number, "--json").stdout)
        assert export["matches"] and all(m["status"] == "finished" for m in export["matches"])
        assert all(len(m["seats"]) == seats and all(s["status"] == "ok" for s in m["seats"])
                   for m in export["matches"])


LADDER_MATCHES = 200 if os.environ.get("PARLOUR_SOAK") == "1" else 60  # 200: make soak


def test_ladder_puts_greedy_above_random(platform) -> None:
    p = platform("sqlite")
    p.start_worker()
    p.env["PARLOUR_LADDER_GAMES"] = "tussie-mussie"
    p.env["PARLOUR_LADDER_OPEN"] = "4"
    p.env["PARLOUR_LADDER_HOUSE_BOTS"] = "random,greedy"  # mcts's matches are tested in tests/test_search.py
    p.arena("ladder", "run", "--matches", str(LADDER_MATCHES), timeout=900)
    ladder = json.loads(p.arena("ladder", "show", "tussie-mussie", "--json").stdout)
    rows = {row["bot"]: row for row in ladder["rows"]}
    assert sum(row["games"] for row in rows.values()) >= LADDER_MATCHES * 2
    assert rows["greedy"]["conservative"] > rows["random"]["conservative"]


def test_the_fifth_game_plays_its_tournament_and_its_ladder_on_the_real_road(platform) -> None:
    """Kuhn poker, installed from outside Parlour (examples/kuhn-poker): a round robin of its house
    bots on the one road (the worker, the referee, every bot its own process, one recorder), its
    live frames the replays' own; then its ladder with every house bot it has, mcts among them."""
    p = platform("sqlite")
    p.start_worker()
    bots = ["greedy", "mcts", "random", "random#2"]
    created = p.arena("tournament", "create", "kuhn-poker", "--format", "round-robin", "--seed", "5",
                      "--bots", ",".join(bots)).stdout
    rounds = int(created.split(" rounds")[0].rsplit(" ", 1)[1])
    p.arena("tournament", "run", "1")
    export = json.loads(p.arena("tournament", "standings", "1", "--json").stdout)
    check_recorded_once(export, rounds * 2)  # 4 entrants at tables of 2
    assert {row["label"] for row in export["standings"]} == set(bots)
    assert all(sum(s["score"] for s in m["seats"]) == 0 for m in export["matches"])  # every hand is zero-sum
    check_live_frames_equal_replays(p, export)
    p.env["PARLOUR_LADDER_GAMES"] = "kuhn-poker"
    p.arena("ladder", "run", "--matches", "9", timeout=600)
    ladder = json.loads(p.arena("ladder", "show", "kuhn-poker", "--json").stdout)
    rows = {row["bot"]: row for row in ladder["rows"]}
    assert all(rows[house]["games"] > 0 for house in ("random", "greedy", "mcts")), rows


PROBER = '''
import os
import socket

from bots_sdk import RandomBot


class Prober(RandomBot):
    def on_match_start(self, game, seat, options, seed):
        try:
            socket.create_connection(("127.0.0.1", 6379), timeout=2)
            network = "open"
        except OSError as exc:
            network = type(exc).__name__
        print(f"uid={os.getuid()} network={network} cwd-files={sorted(os.listdir('/bot'))}")
'''


def register_bot(p: Platform, kind: str, spec: str, name: str) -> str:
    """A user's bot in the platform's database (migrated first); returns its label, ``bot-<pk>``."""
    subprocess.run([sys.executable, "-m", "webui", "migrate"], env=p.env, cwd=ROOT, check=True,
                   capture_output=True, timeout=120)
    made = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c",
         "from arena.models import Bot, BotVersion; from django.contrib.auth.models import User; "
         f"u, _ = User.objects.get_or_create(username='owner-{name}'); "
         f"b = Bot.objects.create(owner=u, game='tussie-mussie', name='{name}', kind='{kind}'); "
         f"BotVersion.objects.create(bot=b, number=1, spec='{spec}'); print(b.pk)"],
        env=p.env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr[-2000:]
    return "bot-" + made.stdout.strip().splitlines()[-1]


def register_upload(p: Platform, tmp_path: Path) -> str:
    """An uploaded bot (the prober); returns its tournament label."""
    upload = tmp_path / "upload"
    upload.mkdir()
    (upload / "prober.py").write_text(PROBER)
    return register_bot(p, "upload", f"{upload / 'prober.py'}:Prober", "prober")


def test_a_remote_bot_that_is_not_connected_is_not_scheduled_on_the_ladder(platform) -> None:
    p = platform("sqlite")
    label = register_bot(p, "remote", "remote", "absent")
    p.start_worker()
    p.env["PARLOUR_LADDER_GAMES"] = "tussie-mussie"
    p.arena("ladder", "run", "--matches", "6", timeout=300)
    ladder = json.loads(p.arena("ladder", "show", "tussie-mussie", "--json").stdout)
    rows = {row["bot"]: row for row in ladder["rows"]}
    assert "absent" not in rows or rows["absent"]["games"] == 0, (label, rows)
    assert sum(row["games"] for row in rows.values()) >= 12


@pytest.mark.skipif(os.geteuid() != 0, reason="the full sandbox needs root (docs/security.md)")
def test_an_uploaded_bot_plays_its_tournament_matches_in_the_sandbox(platform, tmp_path) -> None:
    """A Celery worker plays an uploaded bot in its sandbox, reaching the referee (TCP only here)
    through the relay; its output is in the stored replays, beside its first decision."""
    p = platform("sqlite")
    label = register_upload(p, tmp_path)
    p.start_worker()
    p.arena("tournament", "create", "tussie-mussie", "--format", "round-robin", "--table-size", "2", "--seed", "5",
            "--bots", f"{label},random")
    p.arena("tournament", "run", "1")
    export = json.loads(p.arena("tournament", "standings", "1", "--json").stdout)
    check_recorded_once(export, 2)  # a double round robin of two
    assert all(s["status"] == "ok" for m in export["matches"] for s in m["seats"])
    replays = sorted((p.home / "replays").glob("*.replay.json.gz"))
    assert len(replays) == 2
    for path in replays:
        replay = json.loads(gzip.decompress(path.read_bytes()))
        seat = [s["bot"] for s in replay["header"]["seats"]].index("prober")
        lines = [e for e in replay["bot_logs"] if e["line"].startswith("[output] uid=")]
        assert len(lines) == 1, replay["bot_logs"]
        assert lines[0]["line"] == "[output] uid=65534 network=OSError cwd-files=['prober.py']"
        assert lines[0]["seat"] == seat
        first = min(e["decision"] for e in replay["log"] if e["seat"] == lines[0]["seat"])
        assert lines[0]["decision"] == first


def test_where_uploaded_bots_may_not_run_their_matches_are_aborted_at_once(platform, tmp_path) -> None:
    p = platform("sqlite")
    label = register_upload(p, tmp_path)
    p.env["PARLOUR_SANDBOX"] = "off"  # the operator's switch; a machine that refuses the sandbox acts alike
    worker = p.start_worker()
    p.arena("tournament", "create", "tussie-mussie", "--format", "round-robin", "--table-size", "2", "--seed", "5",
            "--bots", f"{label},random")
    began = time.monotonic()
    run = p.arena("tournament", "run", "1", returncode=1)  # halted: its matches could not be played
    assert time.monotonic() - began < 60  # no retries with back-off
    out = " ".join(run.stdout.split())
    assert "HALTED: 2 match(es) aborted unplayed" in out and "uploaded bots cannot run on this worker" in out
    assert "python -m arena tournament run 1` plays them again" in out
    export = json.loads(p.arena("tournament", "standings", "1", "--json").stdout)
    assert export["status"] == "halted"  # never "finished" with unplayed matches
    assert [m["status"] for m in export["matches"]] == ["aborted", "aborted"]
    assert all("the operator turned uploaded bots off" in m["aborted"] for m in export["matches"])
    log = (p.home / "worker-0.log").read_text()
    assert "sandbox: unavailable (the operator turned uploaded bots off" in log  # said at start-up
    assert worker.poll() is None
