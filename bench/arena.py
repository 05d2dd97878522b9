"""Arena benchmarks.

    python bench/arena.py [--entrants N] [--rounds R] [--only pairing|road|fleet] [--fleet] [--json]

Pairing: a Swiss of N (10,000) entrants, 2-player and 4-player tables, random results (2 players:
45% first seat wins, 45% second, 10% draws; 4 players: a random order). Round 6 is paired after five
simulated rounds by `arena.competitions.pairing.swiss_round` and, on the same history, by the naive
pairing (sort by points, seat neighbours together) - both from the raw list of played tables, both timed in the
same run (median of 3); the naive pairing's sort alone (points already summed) is timed too, for
the stricter ratio. Then each runs its own R (9) rounds from scratch with the same results
stream, and the pairs that had already met are counted, and the seat spread at the end.
Targets: the 2-player round within 500x the naive time, with no repeated pairing (in a field this
size every repeat is avoidable).

Ratios, not absolutes, are the figures to compare: the machines are shared and noisy.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.competitions.pairing import PlayedTable, swiss_round
from arena.competitions.pairing.common import build_history
from arena.competitions.pairing.points import points_by_entrant
from arena.competitions.pairing.swiss import count_repeats
from arena.settings import ArenaEnvironment
from bench.settings import environment

from benchmarks_doc import add_record_flag, record, verdict

TARGET_RATIO = 500.0


# ------------------------------------------------------------------------------------------ pairing

def naive_round(entrants: list[str], tables: list[PlayedTable], byes: list[str], k: int) -> tuple[list[list[str]], list[str]]:
    """Sort by points (then seeding), seat neighbours together; the last n mod k sit out."""
    points = points_by_entrant(tables, byes)
    seed = {e: i for i, e in enumerate(entrants)}
    order = sorted(entrants, key=lambda e: (-points.get(e, 0), seed[e]))
    cut = len(order) - len(order) % k
    return [order[i:i + k] for i in range(0, cut, k)], order[cut:]


def random_ranks(k: int, rng: random.Random) -> list[int]:
    if k == 2:
        x = rng.random()
        return [1, 1] if x < 0.1 else ([1, 2] if x < 0.55 else [2, 1])
    ranks = list(range(1, k + 1))
    rng.shuffle(ranks)
    return ranks


def timed(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_swiss(entrants: list[str], k: int, rounds: int, pair, seed: int, at_round: int | None = None):
    """Play `rounds` rounds paired by `pair(tables, byes) -> (tables, byes)`; returns the repeated
    pairs per round, the history just before round `at_round` (1-based), and the widest seat spread
    at the end (an entrant's most-used seat count minus its least-used)."""
    rng = random.Random(seed)
    tables: list[PlayedTable] = []
    byes: list[str] = []
    repeats = []
    snapshot = None
    for r in range(1, rounds + 1):
        if r == at_round:
            snapshot = (list(tables), list(byes))
        new_tables, new_byes = pair(tables, byes)
        repeats.append(count_repeats(new_tables, build_history(tables, byes))[0])
        tables.extend(PlayedTable(t, random_ranks(len(t), rng)) for t in new_tables)
        byes.extend(new_byes)
    history = build_history(tables, byes)
    spread = max(max(c) - min(c) for c in (history.seat_counts(e, k) for e in entrants))
    return repeats, snapshot, spread


def bench_pairing(args) -> dict:
    entrants = [f"bot{i:05d}" for i in range(args.entrants)]
    rows = []
    for k in (2, 4):
        def ours(tables, byes, k=k):
            rd = swiss_round(entrants, tables, byes, table_size=k)
            return rd.tables, rd.byes

        def naive(tables, byes, k=k):
            return naive_round(entrants, tables, byes, k)

        timed_round = min(6, args.rounds)
        repeats, (tables, byes), spread = run_swiss(entrants, k, args.rounds, ours, seed=k, at_round=timed_round)
        naive_repeats, _, naive_spread = run_swiss(entrants, k, args.rounds, naive, seed=k)
        ours_s = timed(lambda: ours(tables, byes))  # noqa: B023 - timed here, before the loop moves on
        naive_s = timed(lambda: naive(tables, byes))  # noqa: B023 - timed here, before the loop moves on
        points = points_by_entrant(tables, byes)
        seed = {e: i for i, e in enumerate(entrants)}
        sort_only_s = timed(lambda: sorted(entrants, key=lambda e: (-points.get(e, 0), seed[e])), repeat=5)  # noqa: B023 - timed here, before the loop moves on
        rows.append({
            "table_size": k,
            "round": timed_round,
            "swiss_seconds": round(ours_s, 4),
            "naive_seconds": round(naive_s, 4),
            "ratio": round(ours_s / naive_s, 1),
            "naive_sort_only_seconds": round(sort_only_s, 4),
            "ratio_to_sort_only": round(ours_s / sort_only_s, 1),
            "timed_round_repeats": repeats[timed_round - 1],
            "repeats": sum(repeats),
            "naive_repeats": sum(naive_repeats),
            "repeats_per_round": repeats,
            "naive_repeats_per_round": naive_repeats,
            "seat_spread": spread,
            "naive_seat_spread": naive_spread,
        })
    return {"entrants": args.entrants, "rounds": args.rounds, "target_ratio": TARGET_RATIO, "rows": rows}


def print_pairing(report: dict) -> None:
    timed_round = report["rows"][0]["round"]
    print(f"Swiss pairing, {report['entrants']} entrants: round {timed_round} after {timed_round - 1} random "
          f"rounds; repeated pairs over {report['rounds']} rounds")
    print(f"{'table':>5} {'swiss s':>9} {'naive s':>9} {'ratio':>8} {'sort s':>9} {'ratio':>8} {'repeats':>8}"
          f" {'naive repeats':>14} {'seat spread':>12}  target: 2-player <= {report['target_ratio']:.0f}x, "
          f"0 repeats")
    for r in report["rows"]:
        flag = ""
        if r["table_size"] == 2 and (r["ratio"] > report["target_ratio"] or r["repeats"]):
            flag = "  off target"
        print(f"{r['table_size']:>5} {r['swiss_seconds']:>9.4f} {r['naive_seconds']:>9.4f} {r['ratio']:>7.1f}x "
              f"{r['naive_sort_only_seconds']:>9.4f} {r['ratio_to_sort_only']:>7.1f}x "
              f"{r['repeats']:>8} {r['naive_repeats']:>14} {r['seat_spread']:>5} (naive {r['naive_seat_spread']}){flag}")
    print("(naive s: naive pairing from the played tables, as swiss s is; sort s: its sort alone;\n"
          " seat spread: the widest gap between an entrant's most- and least-used seat after all rounds)")


# ------------------------------------------------------------------------------ the one road

def in_process_per_min(game: str, players: int, matches: int) -> float:
    """Random bots, in-process (no referee, no processes): the engine's own match rate."""
    from bots_sdk import RandomBot
    from bots_sdk.local import play_match

    start = time.perf_counter()
    for seed in range(matches):
        play_match(game, [RandomBot() for _ in range(players)], seed=seed)
    return matches / (time.perf_counter() - start) * 60


def _pinned_rate(core: int, matches: int) -> float:
    os.sched_setaffinity(0, {core})
    return in_process_per_min("tussie-mussie", 2, matches)


def machine_ceiling(matches: int = 2000) -> float:
    """What this machine's cores give side by side: the in-process engine pinned to each core at
    once (their rates summed) against one core alone, the best of two tries each. The emulated
    machines share this box's memory, caches and host, so this is the most two "machines" could
    give; their speed-up is read against it."""
    import multiprocessing

    cores = sorted(os.sched_getaffinity(0))[:2]
    if len(cores) < 2:
        return 1.0
    context = multiprocessing.get_context("spawn")  # a fresh interpreter each, as a worker is
    one, two = 0.0, 0.0
    with context.Pool(2) as pool:
        for _ in range(2):
            one = max(one, pool.apply(_pinned_rate, (cores[0], matches)))
            two = max(two, sum(pool.starmap(_pinned_rate, [(core, matches) for core in cores])))
    return two / one


def postgres_database() -> str | None:
    """A fresh PostgreSQL database for one measurement (its name), or None where there is no
    PostgreSQL server (then the platform's embedded SQLite is measured)."""
    import secrets

    import psycopg

    try:
        name = f"parlour_bench_{secrets.token_hex(4)}"
        with psycopg.connect(environment().postgres, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return name
    except psycopg.Error:  # no server here, or no right to create a database
        return None


def cpu_seconds(process) -> float:
    times = process.cpu_times()
    return times.user + times.system


class Platform:
    """A referee and Celery workers (``concurrency`` pool processes each) on the real Redis, with a
    private SQLite database, for one measurement."""

    def __init__(self, workers: int, concurrency: int, referees: int = 1, service_name: bool = False,
                 machines: bool = False) -> None:
        """``machines``: a machine of one core per worker, emulated on this one: worker i and a
        referee of its own are pinned to core i with every process they start (pool processes,
        house bots, replay builders), and each sizes itself for the one core it may use, as on a
        one-core machine of a compose fleet; Redis and the database are shared, as in a fleet."""
        import os
        import secrets
        import subprocess
        import tempfile

        import psutil
        import redis

        self.root = Path(__file__).resolve().parents[1]
        self.folder = tempfile.TemporaryDirectory()
        base = ArenaEnvironment.from_environ().redis_url or "redis://127.0.0.1:6379/0"
        db = environment().redis_db  # a db of its own (two benches: two dbs)
        url = base.rsplit("/", 1)[0] + f"/{db}" if base.count("/") > 2 else base + f"/{db}"
        redis.Redis.from_url(url).flushdb()
        token = secrets.token_hex(8)
        self.env = dict(os.environ, PARLOUR_HOME=self.folder.name, REDIS_URL=url, PARLOUR_WORKERS=str(concurrency))
        if machines:
            referees = workers
            del self.env["PARLOUR_WORKERS"]  # a worker's default for its one core
        cores = sorted(os.sched_getaffinity(0))

        def on_core(index: int):
            """Popen's preexec_fn: the process (and all it starts) on one core, for ``machines``."""
            return (lambda: os.sched_setaffinity(0, {cores[index % len(cores)]})) if machines else None
        self.env.pop("DATABASE_URL", None)
        self.database = postgres_database()  # what a fleet runs on; SQLite serializes concurrent writers
        if self.database:
            self.env["DATABASE_URL"] = f"{environment().postgres}/{self.database}"
        # a fleet: referee k is "referee-k"; worker i creates its matches on referee i mod n
        self.referees = [subprocess.Popen([sys.executable, "-m", "referee", "serve", "--port", "0", "--id",
                                           f"referee-{k}", "--presence", "arena.fleet.presence_board:PresenceBoard"],
                                          env=dict(self.env, PARLOUR_OPERATOR_TOKEN=token), stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, text=True, cwd=self.root,
                                          preexec_fn=on_core(k - 1))
                         for k in range(1, referees + 1)]
        addresses = [r.stdout.readline().split("listening on", 1)[1].split()[0] for r in self.referees]
        self.referee = self.referees[0]
        self.env.update(REFEREE_ADDRESS=addresses[0], PARLOUR_OPERATOR_TOKEN=token)
        self.arena("tournament", "standings", "0", check=False)  # migrates the database first
        # each worker on its own referee, or every worker creating through one name for them all
        routes = ([dict(REFEREE_ADDRESS="ipv4:" + ",".join(addresses))] * workers if service_name else
                  [dict(REFEREE_ADDRESS=addresses[i % referees], PARLOUR_WORKER_REFEREE=f"referee-{i % referees + 1}")
                   for i in range(workers)])
        self.workers = [subprocess.Popen([sys.executable, "-m", "arena", "worker"], cwd=self.root,
                                         env=dict(self.env, **routes[i]),
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         preexec_fn=on_core(i))
                        for i in range(workers)]
        self.psutil = psutil
        time.sleep(4)  # the workers are up before any clock starts

    def arena(self, *args: str, check: bool = True):
        import subprocess

        return subprocess.run([sys.executable, "-m", "arena", *args], env=self.env, cwd=self.root, check=check,
                              capture_output=True, text=True)

    def cpu_split(self) -> dict[str, float]:
        """CPU seconds so far: the referee (its event loop: the matches, gRPC) and the processes
        that build its replays, the bots (the workers' warm bot processes), the workers themselves
        (Celery, the runner, recording, the Redis client) and the Redis server."""
        split = {"referee": 0.0, "replays": 0.0, "bots": 0.0, "worker": 0.0}
        for one in self.referees:
            referee = self.psutil.Process(one.pid)
            for process in [referee, *referee.children(recursive=True)]:
                try:
                    split["referee" if process.pid == referee.pid else "replays"] += cpu_seconds(process)
                except self.psutil.NoSuchProcess:
                    pass
        for worker in self.workers:
            parent = self.psutil.Process(worker.pid)
            for process in [parent, *parent.children(recursive=True)]:
                try:
                    kind = "bots" if "bots_sdk" in " ".join(process.cmdline()) else "worker"
                    split[kind] += cpu_seconds(process)
                except self.psutil.NoSuchProcess:
                    pass
        redis_servers = [p for p in self.psutil.process_iter(["name"]) if p.info["name"] == "redis-server"]
        split["redis"] = sum(cpu_seconds(p) for p in redis_servers)
        if self.database:  # every PostgreSQL process on the machine (its server is shared)
            servers = [p for p in self.psutil.process_iter(["name"]) if p.info["name"] in ("postgres", "postmaster")]
            split["database"] = sum(cpu_seconds(p) for p in servers if p.is_running())
        return split

    def tournament(self, game: str, bots: list[str], table_size: int, rounds: int | None = None) -> tuple[int, float, dict]:
        """Create and run a tournament; (matches recorded, seconds, CPU seconds by part)."""
        args = ["tournament", "create", game, "--format", "round-robin" if rounds is None else "swiss",
                "--table-size", str(table_size), "--bots", ",".join(bots), "--seed", "1"]
        if rounds is not None:
            args += ["--rounds", str(rounds)]
        created = self.arena(*args).stdout
        number = created.split("tournament ", 1)[1].split()[0].strip(":") if "tournament " in created else "1"
        before = self.cpu_split()
        start = time.perf_counter()
        self.arena("tournament", "run", number)
        elapsed = time.perf_counter() - start
        after = self.cpu_split()
        export = json.loads(self.arena("tournament", "standings", number, "--json").stdout)
        recorded = sum(m["status"] == "finished" for m in export["matches"])
        return recorded, min(elapsed, self.playing_seconds(number)), {k: round(after[k] - before[k], 2) for k in after}

    def playing_seconds(self, tournament: str) -> float:
        """From the first match's start to the last one's end, as the database recorded them: the
        platform's rate, without the CLI's own start-up and its polling for the end."""
        query = "SELECT MIN(started), MAX(finished) FROM arena_match WHERE tournament_id = "
        if self.database:
            import psycopg

            with psycopg.connect(f"{environment().postgres}/{self.database}") as db:
                first, last = db.execute(query + "%s", (int(tournament),)).fetchone()
        else:
            import sqlite3
            from datetime import datetime

            with sqlite3.connect(Path(self.folder.name) / "parlour.sqlite3", timeout=30) as db:
                first, last = db.execute(query + "?", (int(tournament),)).fetchone()
            first, last = (datetime.fromisoformat(v) if v else None for v in (first, last))
        if not first or not last:
            return float("inf")
        return (last - first).total_seconds()

    def close(self) -> None:
        for process in self.workers + self.referees:
            process.terminate()
        for process in self.workers + self.referees:
            process.wait(30)
        self.folder.cleanup()
        if self.database:
            import psycopg

            with psycopg.connect(environment().postgres, autocommit=True) as conn:
                conn.execute(f"DROP DATABASE IF EXISTS {self.database} WITH (FORCE)")


def entrants(count: int) -> list[str]:
    """``count`` random house bots, each its own entrant."""
    return [f"random#{i}" if i > 1 else "random" for i in range(1, count + 1)]


ROUND_ROBIN = entrants(16)  # 240 matches


def round_robin_on(platform: Platform, warm_up_matches: int) -> tuple[int, float, dict]:
    """The Tussie Mussie round robin through ``platform`` after a warm-up of at least
    ``warm_up_matches`` (see warm_up_entrants), then the platform closed: (matches, seconds, CPU)."""
    try:
        platform.tournament("tussie-mussie", warm_up_entrants(warm_up_matches), 2)
        return platform.tournament("tussie-mussie", ROUND_ROBIN, 2)
    finally:
        platform.close()


def faster_of_each(order: tuple[int, ...], run) -> dict[int, tuple[int, float, dict]]:
    """``run(key)`` -> (matches, seconds, CPU) for each key of ``order`` in turn, and the faster run
    of each key kept: in the order 1, 2, 2, 1 a drift of the host's speed (tens of percent within
    minutes on a shared machine) favours neither."""
    best: dict[int, tuple[int, float, dict]] = {}
    for key in order:
        result = run(key)
        if key not in best or result[0] / result[1] > best[key][0] / best[key][1]:
            best[key] = result
    return best


def cpu_figures(cpu: dict[str, float], matches: int, seconds: float, in_process_per_min: float) -> dict:
    """The CPU a platform match costs, by part; how many cores the platform kept busy while it
    played (the machine's limit shows here: on 2 cores, near 2 means the rate is CPU-bound); and
    the match's CPU against the single core an in-process match takes (what the ratio would be on
    a machine with cores to spare)."""
    total = sum(cpu.values())
    return {"cpu_seconds_per_match": {k: round(v / matches, 4) for k, v in cpu.items()},
            "cores_busy": round(total / seconds, 2),
            "cpu_cost_ratio": round(total / matches / (60 / in_process_per_min), 1)}


def warm_up_entrants(concurrency: int) -> list[str]:
    """A round robin with a match for every pool process of a worker: each process's first match
    opens its database, Redis and referee connections, which the steady state measured never pays."""
    count = 2
    while count * (count - 1) // 2 < concurrency:
        count += 1
    return entrants(count)


def bench_road(args) -> dict:
    """Tussie Mussie 2p random vs random, in-process and end to end through the arena (Celery task
    -> referee -> warm house bots -> recorded row), with one and two workers, then with a worker
    per machine (``Platform(machines=True)``: one core each, emulated here; against the machine's
    ceiling, ``machine_ceiling``); Bszzzz 4p likewise
    with one worker (a round robin of 20 at tables of 4: 40 matches), on one referee and on
    a referee per core (two, the worker creating through one name for both), each twice (in the
    order 1, 2, 2, 1) and the faster run kept. Every figure from this one run.

    The in-process rate is sampled before, between and after the platform's runs, and the fastest
    sample is the one the ratios divide by: on a shared machine a single sample taken while the
    machine was slow would flatter the platform."""
    samples = [in_process_per_min("tussie-mussie", 2, 2000)]
    report: dict = {"workers": {}}
    cpu_one_worker: tuple = ()
    for workers in (1, 2):
        matches, seconds, cpu = round_robin_on(Platform(workers, concurrency=args.concurrency), args.concurrency * workers)
        report["workers"][str(workers)] = round(matches / seconds * 60, 1)
        if workers == 1:
            cpu_one_worker = (cpu, matches, seconds)
        samples.append(in_process_per_min("tussie-mussie", 2, 2000))
    report["in_process_per_min"] = round(max(samples), 1)
    report["in_process_samples"] = [round(s) for s in samples]
    report["platform_per_min"] = report["workers"]["1"]
    report.update(cpu_figures(*cpu_one_worker, report["in_process_per_min"]))
    report["ratio"] = round(report["platform_per_min"] / report["in_process_per_min"], 4)
    report["two_workers_speedup"] = round(report["workers"]["2"] / report["workers"]["1"], 2)
    # the same with a machine per worker: one worker keeps this 2-core machine ~1.7 cores busy, so
    # a second worker on it adds processes, not cores; here each worker has a core of its own
    runs = faster_of_each((1, 2, 2, 1), lambda n: round_robin_on(
        Platform(n, concurrency=args.concurrency, machines=True), args.concurrency * n))
    report["machines"] = {str(n): round(matches / seconds * 60, 1) for n, (matches, seconds, _) in sorted(runs.items())}
    report["two_machines_speedup"] = round(report["machines"]["2"] / report["machines"]["1"], 2)
    report["machine_ceiling"] = round(machine_ceiling(), 2)
    bszzzz_samples = [in_process_per_min("bszzzz", 4, 40)]

    # one referee; then a referee per core, one worker creating through a name for both: a
    # Bszzzz! match keeps a referee's one event loop busier than anything else on the road
    def bszzzz_run(referees: int) -> tuple[int, float, dict]:
        platform = Platform(1, concurrency=args.concurrency, referees=referees, service_name=referees > 1)
        try:
            platform.tournament("bszzzz", entrants(4), 4, rounds=1)  # warms up
            # a round robin, as Tussie Mussie's: every match queued at once, so the figure is the
            # road's; a Swiss round is paired only once the round before has ended, and its last
            # matches then play alone (a Swiss of 32 in two rounds measured ~0.85 of this)
            run = platform.tournament("bszzzz", entrants(20), 4)
        finally:
            platform.close()
        bszzzz_samples.append(in_process_per_min("bszzzz", 4, 40))
        return run

    bszzzz = faster_of_each((1, 2, 2, 1), bszzzz_run)
    bszzzz_in_process = max(bszzzz_samples)

    def bszzzz_figures(matches: int, seconds: float, cpu: dict) -> dict:
        return {"platform_per_min": round(matches / seconds * 60, 1),
                "ratio": round(matches / seconds * 60 / bszzzz_in_process, 3),
                **cpu_figures(cpu, max(matches, 1), seconds, bszzzz_in_process)}

    report["bszzzz_4p"] = {"in_process_per_min": round(bszzzz_in_process, 1),
                           "in_process_samples": [round(s, 1) for s in bszzzz_samples],
                           **bszzzz_figures(*bszzzz[1]),
                           "two_referees": bszzzz_figures(*bszzzz[2])}
    report["concurrency_per_worker"] = args.concurrency
    report["database"] = "postgresql" if "database" in bszzzz[1][2] else "sqlite"  # a part of the split there only
    return report


def print_road(report: dict) -> None:
    print("\nthe one road, Tussie Mussie 2p random vs random (matches per minute; targets: ratio >= 1/40, "
          "two workers >= 1.6x, Bszzzz ratio >= 1/10)")
    print(f"  in-process {report['in_process_per_min']:.0f} (the fastest of {report['in_process_samples']}), platform (1 worker, concurrency "
          f"{report['concurrency_per_worker']}, {report['database']}) {report['platform_per_min']:.0f}: ratio {report['ratio']:.4f} "
          f"(1/{1 / report['ratio']:.0f})")
    print(f"  2 workers {report['workers']['2']:.0f}: {report['two_workers_speedup']}x one worker (on this one machine)")
    print(f"  a worker per one-core machine (emulated: each worker and its own referee pinned to a core): "
          f"1 machine {report['machines']['1']:.0f}, 2 machines {report['machines']['2']:.0f}: "
          f"{report['two_machines_speedup']}x (best of two runs each; this machine's two cores give the "
          f"engine {report['machine_ceiling']}x one, measured in this run)")
    b, b2 = report["bszzzz_4p"], report["bszzzz_4p"]["two_referees"]
    print(f"  Bszzzz 4p: in-process {b['in_process_per_min']:.1f}, platform {b['platform_per_min']:.1f}: "
          f"ratio {b['ratio']:.3f} (1/{1 / b['ratio']:.1f}); with a referee per core (2, one name) "
          f"{b2['platform_per_min']:.1f}: ratio {b2['ratio']:.3f} (1/{1 / b2['ratio']:.1f}); the faster of two runs each")
    for name, part in (("Tussie Mussie, 1 worker", report), ("Bszzzz 4p", b), ("Bszzzz 4p, 2 referees", b2)):
        print(f"  {name}: CPU per match " +
              ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in part["cpu_seconds_per_match"].items()) +
              f"; {part['cores_busy']} cores busy; a match costs {part['cpu_cost_ratio']}x the CPU of in-process")


def bench_fleet(args) -> dict:
    """A fleet on one machine: Tussie Mussie 2p random vs random through the arena with 1 referee
    + 2 workers, then 2 referees + 2 workers (each worker creating on its own referee), in one run.
    Target: no loss of throughput from the second referee (docs/deploy.md)."""
    report: dict = {}
    for referees in (1, 2):
        matches, seconds, cpu = round_robin_on(Platform(2, concurrency=args.concurrency, referees=referees),
                                               args.concurrency * 2)
        report[f"{referees}_referees_per_min"] = round(matches / seconds * 60, 1)
        report[f"{referees}_referees_cpu_per_match"] = {k: round(v / matches, 4) for k, v in cpu.items()}
    report["ratio"] = round(report["2_referees_per_min"] / report["1_referees_per_min"], 2)
    report["concurrency_per_worker"] = args.concurrency
    return report


def print_fleet(report: dict) -> None:
    print(f"\na fleet on one machine, Tussie Mussie 2p random vs random, 2 workers of concurrency "
          f"{report['concurrency_per_worker']} (matches per minute; target: 2 referees >= 1 referee)")
    print(f"  1 referee {report['1_referees_per_min']:.0f}, 2 referees {report['2_referees_per_min']:.0f}: "
          f"ratio {report['ratio']}")


# -------------------------------------------------------------- docs/benchmarks.md, a section each

def record_pairing(r: dict) -> None:
    record("arena/pairing", f"Arena: Swiss pairing of {r['entrants']:,} entrants",
           f"Round {r['rows'][0]['round']} paired after {r['rows'][0]['round'] - 1} rounds of random results, "
           "beside the naive pairing (sort by points, neighbours together) on the same history, both from the "
           f"raw list of played tables (median of 3); repeated pairings over {r['rounds']} rounds. Target: the "
           f"2-player round within {r['target_ratio']:.0f}× the naive time, with no repeat.",
           ["table size", "Swiss s", "naive s", "× naive", "× the naive sort alone", "repeats (naive)",
            "seat spread (naive)", "target"],
           [[row["table_size"], f"{row['swiss_seconds']:.4f}", f"{row['naive_seconds']:.4f}", f"{row['ratio']:.1f}",
             f"{row['ratio_to_sort_only']:.1f}", f"{row['repeats']} ({row['naive_repeats']})",
             f"{row['seat_spread']} ({row['naive_seat_spread']})",
             verdict(row["ratio"] <= r["target_ratio"] and not row["repeats"]) if row["table_size"] == 2 else ""]
            for row in r["rows"]])


def cpu_cell(part: dict) -> str:
    return ", ".join(f"{k} {v * 1000:.0f}" for k, v in part["cpu_seconds_per_match"].items()) + " ms"


def record_road(r: dict) -> None:
    b, b2 = r["bszzzz_4p"], r["bszzzz_4p"]["two_referees"]
    rows = [
        ["Tussie Mussie 2p, 1 worker", f"{r['platform_per_min']:.0f} a minute",
         f"1/{1 / r['ratio']:.1f} of in-process ({r['in_process_per_min']:.0f})", f"≥ 1/40: {verdict(r['ratio'] >= 1 / 40)}"],
        ["its CPU a match", cpu_cell(r), f"{r['cores_busy']} cores busy; {r['cpu_cost_ratio']}× in-process's CPU", ""],
        ["2 workers on the same cores", f"{r['workers']['2']:.0f} a minute", f"{r['two_workers_speedup']}× one worker", ""],
        ["a worker per one-core machine (emulated), 2 machines", f"{r['machines']['2']:.0f} a minute",
         f"{r['two_machines_speedup']}× one ({r['machines']['1']:.0f}); the cores' own ceiling {r['machine_ceiling']}×",
         f"≥ 1.6×: {verdict(r['two_machines_speedup'] >= 1.6)}"],
        ["Bszzzz! 4p, 1 referee", f"{b['platform_per_min']:.1f} a minute",
         f"1/{1 / b['ratio']:.1f} of in-process ({b['in_process_per_min']:.0f})", f"≥ 1/10: {verdict(b['ratio'] >= 0.1)}"],
        ["its CPU a match", cpu_cell(b), f"{b['cores_busy']} cores busy", ""],
        ["Bszzzz! 4p, a referee per core (2, one name)", f"{b2['platform_per_min']:.1f} a minute",
         f"1/{1 / b2['ratio']:.1f} of in-process", ""],
    ]
    record("arena/road", "Arena: the one road against in-process play",
           "Random bots through the whole platform (a Celery task, the referee, warm house bots, the recorded "
           f"row; {r['database']}, {r['concurrency_per_worker']} matches at once per worker) beside the same "
           "matches in-process, the fastest in-process sample of the run; the emulated machines and the "
           "Bszzzz! runs are each run twice (in the order 1, 2, 2, 1) and the faster run kept.",
           ["road", "matches", "beside", "target"], rows)


def record_fleet(r: dict) -> None:
    record("arena/fleet", "Arena: a fleet on one machine",
           f"Tussie Mussie 2p random against random through the arena, 2 workers of {r['concurrency_per_worker']} "
           "matches at once, each worker creating on its own referee. Target: a second referee costs no "
           "throughput (its gain is more machines).",
           ["fleet", "matches a minute", "target"],
           [["1 referee + 2 workers", f"{r['1_referees_per_min']:.0f}", ""],
            ["2 referees + 2 workers", f"{r['2_referees_per_min']:.0f} ({r['ratio']}×)", f"≥ 1×: {verdict(r['ratio'] >= 1)}"]])


# -------------------------------------------------------------------------------------------- main

# Each section: (name, run(args) -> dict, print(dict), record(dict) in docs/benchmarks.md).
SECTIONS = [
    ("pairing", bench_pairing, print_pairing, record_pairing),
    ("road", bench_road, print_road, record_road),
    ("fleet", bench_fleet, print_fleet, record_fleet),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--concurrency", type=int, default=None,
                        help="Celery processes per worker (default: a worker's own, PARLOUR_WORKERS or four per core)")
    parser.add_argument("--only", choices=[name for name, *_ in SECTIONS], help="run one section")
    parser.add_argument("--fleet", action="store_true", help="the fleet section only (same as --only fleet)")
    parser.add_argument("--json", action="store_true")
    add_record_flag(parser)
    args = parser.parse_args()
    if args.concurrency is None:
        from arena.fleet.processes import worker_concurrency

        args.concurrency = worker_concurrency()
    if args.fleet:
        args.only = "fleet"
    report = {}
    for name, run, show, write in SECTIONS:
        if args.only and name != args.only:
            continue
        report[name] = run(args)
        if not args.json:
            show(report[name])
        if args.record:
            write(report[name])
    if args.json:
        if "road" in report:  # the one road's headline figures, at the top level too
            report.update({k: report["road"][k] for k in ("in_process_per_min", "platform_per_min", "workers")})
        print(json.dumps(report))


if __name__ == "__main__":
    main()
