"""The platform meets its faults as an operator would: real referee, worker and Redis processes
killed mid-tournament (docs/operations.md lists each fault and the test here that proves it).
The killed worker: tests/test_arena_e2e.py::test_round_robin_tricky_twist_and_a_killed_worker."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from fractions import Fraction
from pathlib import Path

import pytest
import redis

from arena.fleet.broker import answers, redis_server_command
from referee_process import ROOT, as_from_a_terminal
from test_arena_e2e import Platform, check_recorded_once, database_rows, hand_standings, register_bot, wait_for


class AppendOnlyRedis:
    """A redis-server of the test's own (never the machine's shared one), on a Unix socket, with an
    append-only file, to be killed and restarted."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.socket = folder / "redis.sock"
        folder.mkdir()
        self.start()

    @property
    def url(self) -> str:
        return f"redis+socket://{self.socket}"

    def start(self) -> None:
        self.socket.unlink(missing_ok=True)
        self.process = subprocess.Popen(redis_server_command(self.folder, self.socket), stdout=subprocess.DEVNULL)
        wait_for(lambda: answers(self.socket), 20, "the test's Redis", 0.05)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture
def platform(tmp_path):
    made = []

    def make(*args, **kw) -> Platform:
        made.append(Platform(tmp_path, "sqlite", *args, **kw))
        return made[-1]

    yield make
    for p in made:
        p.close()


def statuses(p: Platform) -> dict[str, int]:
    return dict(database_rows(p, "SELECT status, COUNT(*) FROM arena_match GROUP BY status"))


def check_standings(export: dict, entrants: list[str]) -> None:
    hand = hand_standings(export)
    assert {r["label"] for r in export["standings"]} == set(entrants)
    for row in export["standings"]:
        assert Fraction(row["points"]).limit_denominator(1000) == hand[row["label"]][0]
        assert Fraction(row["buchholz"]).limit_denominator(1000) == hand[row["label"]][1]


def test_a_swiss_survives_its_referee_down_for_20_s_and_a_redis_restart(platform, tmp_path) -> None:
    """The referee killed for 20 s mid-Swiss: no match aborted, every one played once it is back;
    then Redis killed and restarted (its append-only file keeps the queue): the tournament
    completes, each match recorded once, the standings those of the recorded matches."""
    broker = AppendOnlyRedis(tmp_path / "redis")
    p = platform(redis_url=broker.url, PARLOUR_RETRY_MAX_DELAY="4")
    runner = None
    try:
        p.start_worker()
        bots = ["greedy", "random"] + [f"random#{i}" for i in range(2, 8)]
        p.arena("tournament", "create", "tussie-mussie", "--format", "swiss", "--rounds", "3", "--table-size", "2",
                "--seed", "11", "--bots", ",".join(bots))
        runner = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "run", "1"], env=p.env, cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: statuses(p).get("finished", 0) >= 2, 60, "two matches played")
        port = int(p.env["REFEREE_ADDRESS"].rsplit(":", 1)[1])
        p.referee.kill()
        p.referee.wait()
        time.sleep(20)
        during = statuses(p)
        assert during.get("aborted", 0) == 0, during
        retried = database_rows(p, "SELECT COUNT(*) FROM arena_match WHERE failures > 0")[0][0]
        assert retried >= 1, "the matches tried meanwhile wait for the referee"
        rounds_paired = database_rows(p, "SELECT COUNT(*) FROM arena_round")[0][0]
        p.start_referee(port)
        wait_for(lambda: database_rows(p, "SELECT COUNT(*) FROM arena_round")[0][0] > rounds_paired, 90,
                 "the next round, paired once the referee is back")
        broker.kill()  # the Redis restarted mid-tournament
        broker.start()
        wait_for(lambda: redis.Redis(unix_socket_path=str(broker.socket)).keys("parlour:worker:*"), 30,
                 "the worker's heartbeat back in the restarted Redis")
        try:
            out, err = runner.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            runner.kill()
            out, err = runner.communicate()
            pytest.fail(f"the tournament did not finish: {statuses(p)}\n{err[-2000:]}\n{p.worker_logs()}")
        assert runner.returncode == 0, err[-2000:]
        assert "NOT FINISHED" not in out and "HALTED" not in out
        export = json.loads(p.arena("tournament", "standings", "1", "--json").stdout)
        check_recorded_once(export, 3 * 4)  # 8 entrants at tables of 2, three rounds: none aborted
        check_standings(export, bots)
        assert sum(m["failures"] for m in export["matches"]) >= retried
        assert p.workers[0].poll() is None, "the worker outlived the Redis restart (reconnected)"
    finally:
        if runner is not None and runner.poll() is None:  # a run that timed out must not outlive the test
            runner.kill()
            runner.wait()
        broker.kill()


def descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
            todo += [c for c in children if c not in found]
            found.update(children)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_killed_tournament_run_leaves_no_process_and_runs_again_to_the_end(tmp_path) -> None:
    """`kill -9` of `tournament run` on one machine (its own Redis, referee and worker): none of its
    processes is left; `tournament run ID` again completes the tournament, each match once."""
    env = dict(os.environ, PARLOUR_HOME=str(tmp_path), PARLOUR_RETRY_MAX_DELAY="2")
    for name in ("REDIS_URL", "REFEREE_ADDRESS", "DATABASE_URL", "PARLOUR_OPERATOR_TOKEN"):
        env.pop(name, None)

    def arena(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run([sys.executable, "-m", "arena", *args], env=env, cwd=ROOT, capture_output=True,
                              text=True, timeout=240)
        assert done.returncode == 0, done.stderr[-2000:]
        return done

    bots = ["greedy", "random", "random#2", "random#3"]
    arena("tournament", "create", "tussie-mussie", "--format", "swiss", "--rounds", "3", "--table-size", "2",
          "--seed", "5", "--bots", ",".join(bots))
    runner = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "run", "1"], env=env, cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    p = Platform.__new__(Platform)
    p.home = tmp_path
    wait_for(lambda: database_rows(p, "SELECT COUNT(*) FROM arena_match WHERE status='finished'")[0][0] >= 1,
             90, "a match played")
    started = descendants(runner.pid)
    assert len(started) >= 4  # the watcher, Redis, the referee, the worker (and its pool)
    runner.kill()
    runner.wait()
    deadline = time.monotonic() + 20
    while [pid for pid in started if alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.2)
    left = {pid: Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ") for pid in started if alive(pid)}
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, "processes of the killed command still running"
    arena("tournament", "run", "1")
    export = json.loads(arena("tournament", "standings", "1", "--json").stdout)
    check_recorded_once(export, 3 * 2)
    check_standings(export, bots)


LINGERING_BOT = '''
import subprocess
import sys
import threading
import time

from bots_sdk import RandomBot


class Lingerer(RandomBot):
    """Leaves a detached child behind (a new session), and a thread that keeps its process alive for
    ten minutes after its last match."""

    def on_match_start(self, game, seat, options, seed):
        # a new program in a session of its own (a bare fork of a gRPC process may not live on)
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
        threading.Thread(target=time.sleep, args=(600,)).start()
'''


def sandbox_cgroups() -> set[Path]:
    from sandbox.cgroups import PARENT, ROOT as CGROUPS

    return {path for path in CGROUPS.glob(f"*/{PARENT}/*") if path.is_dir()} | \
        {path for path in (CGROUPS / PARENT).glob("*") if path.is_dir()}


@pytest.mark.skipif(os.geteuid() != 0, reason="the full sandbox needs root (docs/security.md)")
def test_the_sandboxes_of_a_killed_worker_are_reaped_when_a_worker_starts(platform, tmp_path) -> None:

    from arena.bots import sandbox_reaper

    # a registry of this test's own: the machine's is read by every worker that starts, and another
    # test's worker starting meanwhile would reap this orphan before the test's own next worker does
    registry = tmp_path / "sandbox-registry"
    p = platform(PARLOUR_SANDBOX_REGISTRY=str(registry))
    upload = tmp_path / "upload"
    upload.mkdir()
    (upload / "lingerer.py").write_text(LINGERING_BOT)
    label = register_bot(p, "upload", f"{upload / 'lingerer.py'}:Lingerer", "lingerer")
    p.arena("tournament", "create", "tussie-mussie", "--format", "round-robin", "--table-size", "2", "--seed", "5",
            "--bots", f"{label},random")
    worker = p.start_worker()
    runner = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "run", "1"], env=p.env, cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def registered() -> list[dict]:
            entries = [json.loads(f.read_text()) for f in registry.glob("*.json")]
            pool = descendants(worker.pid)
            return [e for e in entries if e["owner"] in pool and e["launcher"]]

        def playing() -> list[dict]:
            """This worker's sandboxes, once one holds a bot that played (the launcher, init, the
            bot and its detached child); a sandbox may start before its match does."""
            entries = registered()
            counts = [len(sandbox_reaper.cgroup_pids(Path(c))) for e in entries for c in e["cgroups"]]
            return entries if counts and max(counts) >= 4 else []

        entries = wait_for(playing, 90, "the bot playing in its sandbox, with its detached child")
        cgroups = {Path(c) for e in entries for c in e["cgroups"]}
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
        time.sleep(1)
        assert any(sandbox_reaper.cgroup_pids(c) for c in cgroups), "the sandbox outlived its worker"
        p.start_worker()
        log = p.home / f"worker-{len(p.workers) - 1}.log"
        wait_for(lambda: "ready." in log.read_text(), 60, "the next worker's start")
        assert not any(c.exists() for c in cgroups), "its cgroups are removed"
        assert not cgroups & sandbox_cgroups()
        assert not [e for e in entries if alive(e["launcher"])], "no sandbox process is left"
    finally:
        runner.kill()
        runner.wait()


class Console:
    """A command's console (stdout and stderr, merged), read as it is written."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(as_from_a_terminal(command), env=env, cwd=ROOT, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        self.reader = threading.Thread(target=lambda: self.lines.extend(self.process.stdout), daemon=True)
        self.reader.start()

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def finish(self, timeout: float) -> int:
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            pytest.fail(f"the command did not end:\n{self.text[-3000:]}")
        self.reader.join(5)
        return self.process.returncode


def test_with_no_live_worker_tournament_run_says_why_and_ctrl_c_stops_it_cleanly(platform) -> None:
    """An operator's Redis and referee but no worker: `tournament run` does not wait silently, it
    says no worker is alive; Ctrl-C then stops it with no traceback."""
    p = platform(PARLOUR_STALL_NOTICE="1.5")
    p.arena("tournament", "create", "tussie-mussie", "--format", "round-robin", "--table-size", "2",
            "--seed", "3", "--bots", "random,greedy")
    run = Console([sys.executable, "-m", "arena", "tournament", "run", "1"], p.env)
    try:
        wait_for(lambda: "no live worker" in run.text, 30, "the run saying why nothing is played")
        assert "no match finished for" in run.text
        run.process.send_signal(signal.SIGINT)
        assert run.finish(30) == 130
        assert "Traceback" not in run.text, run.text[-3000:]
        assert "`python -m arena tournament run 1` resumes it" in run.text
    finally:
        if run.process.poll() is None:
            run.process.kill()


def test_a_worker_referee_and_redis_killed_under_tournament_run_are_restarted_and_the_run_says_so(tmp_path) -> None:
    """`tournament run` on one machine (its own Redis, referee and worker): its worker, then its
    referee, then its Redis `kill -9`ed mid-tournament are started again (the referee on its port,
    Redis on its socket with its append-only file), the console says so with the signal, and the
    tournament finishes, each match recorded once."""
    env = dict(os.environ, PARLOUR_HOME=str(tmp_path), PARLOUR_RETRY_MAX_DELAY="2", PARLOUR_WORKERS="2",
               PARLOUR_HEARTBEAT_TTL="4", PARLOUR_RECONCILE_EVERY="2")
    for name in ("REDIS_URL", "REFEREE_ADDRESS", "DATABASE_URL", "PARLOUR_OPERATOR_TOKEN"):
        env.pop(name, None)
    bots = ["greedy", "random", "random#2", "random#3"]
    subprocess.run([sys.executable, "-m", "arena", "tournament", "create", "tussie-mussie", "--format", "swiss",
                    "--rounds", "3", "--table-size", "2", "--seed", "5", "--bots", ",".join(bots)],
                   env=env, cwd=ROOT, check=True, capture_output=True, timeout=120)
    run = Console([sys.executable, "-m", "arena", "tournament", "run", "1"], env)
    p = Platform.__new__(Platform)
    p.home = tmp_path
    try:
        wait_for(lambda: database_rows(p, "SELECT COUNT(*) FROM arena_match WHERE status='finished'")[0][0] >= 1,
                 90, "a match played")
        def child(command: str) -> int:
            """The run's own child running ``command`` (not a pool process, not a bot)."""
            found = [pid for pid in descendants(run.process.pid)
                     if command in Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
                     and Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1] == str(run.process.pid)]
            assert len(found) == 1, found
            return found[0]

        os.kill(child("arena worker"), signal.SIGKILL)
        wait_for(lambda: "the worker stopped (killed by SIGKILL); restarted it" in run.text, 30,
                 "the run saying its worker was restarted")
        os.kill(child("referee serve"), signal.SIGKILL)
        wait_for(lambda: "the referee stopped (killed by SIGKILL); restarted it" in run.text, 30,
                 "the run saying its referee was restarted")
        os.kill(child("redis-server"), signal.SIGKILL)
        wait_for(lambda: "the private Redis stopped (killed by SIGKILL); restarted it" in run.text, 30,
                 "the run saying its Redis was restarted")
        assert run.finish(180) == 0, run.text[-3000:]
    finally:
        if run.process.poll() is None:
            run.process.kill()
    export = json.loads(subprocess.run([sys.executable, "-m", "arena", "tournament", "standings", "1", "--json"],
                                       env=env, cwd=ROOT, check=True, capture_output=True, text=True).stdout)
    check_recorded_once(export, 3 * 2)
    check_standings(export, bots)


def test_a_worker_outlives_a_redis_outage_and_the_tournament_finishes(platform, tmp_path) -> None:
    """The operator's Redis down for 4 s mid-tournament (not a quick restart): the worker stays up —
    kombu's crash on a lost connection (``AttributeError(... 'hostname')``) is guarded against,
    arena/fleet/kombu_guard.py — reconnects, and the tournament finishes, each match recorded once."""
    broker = AppendOnlyRedis(tmp_path / "redis")
    p = platform(redis_url=broker.url, PARLOUR_RETRY_MAX_DELAY="2")
    run = None
    try:
        worker = p.start_worker()
        bots = ["greedy", "random", "random#2", "random#3"]
        p.arena("tournament", "create", "tussie-mussie", "--format", "swiss", "--rounds", "2", "--table-size", "2",
                "--seed", "13", "--bots", ",".join(bots))
        run = Console([sys.executable, "-m", "arena", "tournament", "run", "1"], p.env)
        wait_for(lambda: statuses(p).get("finished", 0) >= 1, 60, "a match played")
        broker.kill()
        time.sleep(4)  # longer than a quick restart: the worker's first reconnect fails
        broker.start()
        wait_for(lambda: redis.Redis(unix_socket_path=str(broker.socket)).keys("parlour:worker:*"), 30,
                 "the worker's heartbeat back")
        code = run.finish(120)
        assert code == 0, f"{run.text[-2000:]}\n{p.worker_logs()}"
        assert worker.poll() is None, f"the worker died in the outage:\n{p.worker_logs()}"
        export = json.loads(p.arena("tournament", "standings", "1", "--json").stdout)
        check_recorded_once(export, 2 * 2)
        check_standings(export, bots)
    finally:
        if run is not None and run.process.poll() is None:
            run.process.kill()
        broker.kill()
