"""Warm bots (arena/bots/warm_pool.py): a clean bot plays its next match in the same process; a bot
that faulted meets its next match in a fresh one. Proved by process ids, on a real referee, with
an uploaded bot in its real sandbox."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.bots import warm_pool
from arena.bots.warm_pool import BotKey, BotPool
from referee.client import LocalReferee, MatchOutcome
from referee.timecontrol import TimeControl

# crashes (its whole process) in the middle of any match where it holds seat 1; plays clean in seat 0
CRASHER = '''
import os

from bots_sdk import RandomBot


class Crasher(RandomBot):
    def on_match_start(self, game, seat, options, seed):
        self.seat, self.decisions = seat, 0

    def decide(self, decision):
        self.decisions += 1
        if self.seat == 1 and self.decisions == 3:
            os._exit(3)
        return super().decide(decision)
'''


@pytest.fixture(scope="module")
def referee():
    with LocalReferee(env={"PARLOUR_RECONNECT_GRACE": "0.3", "PARLOUR_JOIN_TIMEOUT": "20"}) as ref:
        yield ref


def play(referee: LocalReferee, pool: BotPool, keys: list[BotKey], seed: int,
         game: str = "tussie-mussie") -> tuple[MatchOutcome, list[int]]:
    created = referee.create_match(game, "", {}, seed, TimeControl(2.0, 10.0), [k.spec for k in keys])
    bots = [pool.acquire(key) for key in keys]
    for bot, token in zip(bots, created.seat_tokens):
        bot.play(token)
    outcome = referee.follow(created.match_id, timeout=120)
    pids = [bot.pid for bot in bots]
    for bot, seat in zip(bots, outcome.seats):
        pool.release(bot, seat)
    return outcome, pids


def test_house_bots_stay_warm_across_matches(referee) -> None:
    pool = BotPool(referee)
    try:
        keys = [BotKey("random", sandboxed=False), BotKey("greedy", sandboxed=False)]
        runs = [play(referee, pool, keys, seed) for seed in (1, 2, 3)]
        assert all(outcome.finished and all(s.status == "ok" for s in outcome.seats) for outcome, _ in runs)
        assert runs[0][1] == runs[1][1] == runs[2][1]  # the same two processes played all three
        assert pool.started == 2
    finally:
        pool.close()


def test_instant_house_bots_share_one_process_across_seats_and_matches(referee) -> None:
    """random and greedy: one process of each spec plays all its seats at once (random vs random,
    then a Bszzzz table of four randoms); mcts keeps a process per seat."""
    pool = BotPool(referee)
    random, greedy, mcts = (BotKey(spec, sandboxed=False) for spec in ("random", "greedy", "mcts?budget=0.01"))
    try:
        runs = [play(referee, pool, [random, random], 21), play(referee, pool, [random] * 4, 22, game="bszzzz"),
                play(referee, pool, [greedy, random], 23)]
        assert all(o.finished and all(s.status == "ok" for s in o.seats) for o, _ in runs)
        assert len({pid for _, pids in runs[:2] for pid in pids}) == 1  # six seats, one process
        assert runs[2][1][1] == runs[0][1][0] != runs[2][1][0]  # greedy has its own
        assert pool.started == 2
        _, pids = play(referee, pool, [mcts, mcts], 24)
        assert len(set(pids)) == 2 and pool.started == 4
    finally:
        pool.close()


def test_a_shared_house_process_is_retired_after_its_seats_and_replaced_when_dead(referee, settings) -> None:
    settings.PARLOUR_HOUSE_REUSE_MATCHES = 2
    pool = BotPool(referee)
    random = BotKey("random", sandboxed=False)
    try:
        first, first_pids = play(referee, pool, [random, random], 25)
        retired = pool.shared.bots[random]
        second, second_pids = play(referee, pool, [random, random], 26)  # two seats played: a fresh one
        assert retired.process.wait(10) == 0  # its input closed, its seats done: it exits
        assert len(set(first_pids)) == len(set(second_pids)) == 1 and first_pids != second_pids
        pool.shared.bots[random].process.kill()
        pool.shared.bots[random].process.wait()
        bot = pool.acquire(random)  # the dead one is replaced at once
        assert bot.alive() and bot.pid not in second_pids and pool.started == 3
        pool.release(bot, None)
        assert all(o.finished and [s.status for s in o.seats] == ["ok", "ok"] for o in (first, second))
    finally:
        pool.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="the full sandbox needs root (docs/security.md)")
def test_a_crashed_sandbox_is_replaced_and_a_clean_one_reused(referee, tmp_path: Path) -> None:
    (tmp_path / "crasher.py").write_text(CRASHER)
    upload = BotKey(f"{tmp_path / 'crasher.py'}:Crasher", sandboxed=True, root=str(tmp_path))
    house = BotKey("random", sandboxed=False)
    pool = BotPool(referee)
    try:
        first, first_pids = play(referee, pool, [upload, house], 11)  # seat 0: clean
        second, second_pids = play(referee, pool, [upload, house], 12)  # seat 0 again: the same sandbox
        third, third_pids = play(referee, pool, [house, upload], 13)  # seat 1: it crashes mid-match
        fourth, fourth_pids = play(referee, pool, [upload, house], 14)  # a fresh sandbox
    finally:
        pool.close()
    assert first.seats[0].status == second.seats[0].status == fourth.seats[0].status == "ok"
    assert first_pids[0] == second_pids[0] == third_pids[1]  # clean: never restarted
    assert third.finished and third.seats[1].status != "ok"  # the match went on without it
    assert fourth_pids[0] != third_pids[1]  # after the crash, a new sandbox
    assert first_pids[1] == second_pids[1] == third_pids[0] == fourth_pids[1]  # the house bot never left


def test_a_workers_house_bots_serve_its_pool_processes_only(referee) -> None:
    """arena.bots.keeper, as a worker's main process runs it: a child (a pool process) is handed
    the spec's one process for its seats, and its seats are released when it exits holding them;
    any other process (here a grandchild, as a bot a pool process started would be) is refused."""
    import json
    import subprocess
    import sys
    import time

    import psutil

    from arena.bots.keeper import Keeper

    root = Path(__file__).resolve().parents[1]
    house = Keeper()
    house.start()
    try:
        created = referee.create_match("tussie-mussie", "", {}, 31, TimeControl(2.0, 10.0), ["random", "random"])
        seats = ("import json, sys; from arena.bots.keeper_client import keeper_client; c = keeper_client(); "
                 "print(json.dumps([c.request(op='seat', referee=sys.argv[1], spec='random', token=t)['pid'] "
                 "for t in sys.argv[2:]]))")
        done = subprocess.run([sys.executable, "-c", seats, referee.address, *created.seat_tokens], cwd=root,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        pids = json.loads(done.stdout)
        assert len(set(pids)) == 1 and psutil.Process(pids[0]).ppid() == os.getpid()
        outcome = referee.follow(created.match_id, timeout=120)
        assert outcome.finished and [s.status for s in outcome.seats] == ["ok", "ok"]
        shared = house.bots[referee.address]
        bot = shared.bots[BotKey("random", sandboxed=False)]
        deadline = time.monotonic() + 10
        while bot.in_play and time.monotonic() < deadline:  # the child exited holding both seats
            time.sleep(0.05)
        assert bot.in_play == 0 and bot.matches == 2
        stranger = ("import socket, sys; from arena.bots.keeper_client import KeeperClient, socket_name; "
                    "c = socket.socket(socket.AF_UNIX); c.connect(socket_name(int(sys.argv[1]))); "
                    "KeeperClient(c).request(op='release', referee='x', pid=1)")
        refused = subprocess.run(["sh", "-c", '"$0" -c "$1" "$2"; exit $?', sys.executable, stranger, str(os.getpid())],
                                 cwd=root, capture_output=True, text=True, timeout=60)
        assert refused.returncode != 0, "a stranger was served"
        assert "the worker's house bots are gone" in refused.stderr
    finally:
        house.close()


def test_a_worker_hands_out_its_cores_for_thinking_matches_one_each(settings) -> None:
    """arena.bots.cores, as a worker's main process hands them out: with one core, a pool process
    holding it leaves the next one waiting (not granted within its wait) until it frees the core,
    and a pool process that dies holding one gives it back with its connection."""
    import subprocess
    import sys
    import time

    from arena.bots.keeper import Keeper

    settings.PARLOUR_THINKING_MATCHES = 1
    root = Path(__file__).resolve().parents[1]
    house = Keeper()
    house.start()
    # each child: take a core (waiting up to argv[1] s), print whether it was granted, then hold it
    # argv[2] s and free it ("free") or exit holding it ("die")
    take = ("import sys, time; from arena.bots.keeper_client import keeper_client; c = keeper_client(); "
            "g = c.request(op='core', wait=float(sys.argv[1]))['granted']; print(g, flush=True); "
            "time.sleep(float(sys.argv[2])); "
            "sys.argv[3] == 'free' and g and c.request(op='core_free')")

    def child(wait: float, hold: float, end: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", take, str(wait), str(hold), end], cwd=root,
                                stdout=subprocess.PIPE, text=True)

    try:
        holder = child(0, 8, "free")
        assert holder.stdout.readline().strip() == "True"
        refused = child(0.5, 0, "free")
        assert refused.stdout.readline().strip() == "False"  # the one core is taken
        waiter = child(30, 0, "free")
        deadline = time.monotonic() + 6
        while house.cores.summary() != "1/1 thinking, 1 waiting" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert house.cores.summary() == "1/1 thinking, 1 waiting"  # what the worker's heartbeat says
        assert waiter.stdout.readline().strip() == "True"  # granted once the holder freed it
        assert holder.wait(30) == 0 and refused.wait(30) == 0 and waiter.wait(30) == 0
        dying = child(0, 0, "die")
        assert dying.stdout.readline().strip() == "True"
        assert dying.wait(30) == 0
        after = child(30, 0, "free")
        assert after.stdout.readline().strip() == "True"  # the dead one's core came back
        assert after.wait(30) == 0
    finally:
        house.close()


def test_a_pool_process_keeps_a_few_idle_bots_and_stops_the_longest_idle(settings) -> None:
    """PARLOUR_IDLE_BOTS: past it the longest idle one-seat bot is stopped, and an idle bot past its
    reuse limits is stopped at the next hand-back (a pool process holds no sandbox forever)."""
    from types import SimpleNamespace

    from referee.client import SeatOutcome

    class Idle(warm_pool.WarmBot):
        def __init__(self, name: str) -> None:  # no process: what the pool reads of one
            self.key, self.name, self.matches, self.started, self.sandbox = BotKey(name, sandboxed=True), name, 1, 0.0, object()
            self.closed, self.idle_since = False, 0.0

        def alive(self) -> bool:
            return True

        def worn_out(self) -> bool:
            return self.name == "old"

        def close(self) -> list[str]:
            self.closed = True
            return []

    settings.PARLOUR_IDLE_BOTS = 2
    pool = BotPool(SimpleNamespace(address="referee:1", unix_path=None))
    clean = SeatOutcome(score=0.0, rank=1, status="ok", fault_counts={})
    a, b, c = Idle("a"), Idle("b"), Idle("c")
    for bot in (a, b, c):
        pool.release(bot, clean)
    assert (a.closed, b.closed, c.closed) == (True, False, False)
    assert pool.idle == {a.key: [], b.key: [b], c.key: [c]}
    old = Idle("b")
    pool.idle[b.key].append(old)
    old.name = "old"  # aged past its reuse minutes while idle
    pool.release(Idle("d"), clean)
    assert old.closed and b.closed and not c.closed  # the aged one, then the longest idle beyond 2


def test_a_workers_cores_are_those_its_container_allows(tmp_path) -> None:
    """arena.bots.cores.usable_cores: a cgroup's CPU quota (a container's ``cpus``) counts, rounded up,
    never above the cores the process may run on; no quota, the cores it may run on."""
    from arena.bots.cores import usable_cores

    runnable = len(os.sched_getaffinity(0))
    assert usable_cores(tmp_path) == runnable  # no cgroup files: the affinity
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert usable_cores(tmp_path) == runnable
    (tmp_path / "cpu.max").write_text("50000 100000\n")  # half a core: one
    assert usable_cores(tmp_path) == 1
    (tmp_path / "cpu.max").write_text(f"{runnable * 300000} 100000\n")  # more than it may run on
    assert usable_cores(tmp_path) == runnable
    (tmp_path / "cpu.max").unlink()
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")  # cgroup v1, no quota
    (tmp_path / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    assert usable_cores(tmp_path) == runnable
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("100000\n")
    assert usable_cores(tmp_path) == 1
