"""Arena benchmarks.

    python bench/arena.py [--entrants N] [--rounds R] [--json]

Pairing: a Swiss of N (10,000) entrants, 2-player and 4-player tables, random results (2 players:
45% first seat wins, 45% second, 10% draws; 4 players: a random order). Round 6 is paired after five
simulated rounds by `arena.pairing.swiss_round` and, on the same history, by the naive pairing (sort
by points, seat neighbours together) - both from the raw list of played tables, both timed in the
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
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.pairing import PlayedTable, swiss_round  # noqa: E402
from arena.pairing.common import build_history  # noqa: E402
from arena.pairing.points import points_by_entrant  # noqa: E402
from arena.pairing.swiss import count_repeats  # noqa: E402

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
        ours_s = timed(lambda: ours(tables, byes))
        naive_s = timed(lambda: naive(tables, byes))
        points = points_by_entrant(tables, byes)
        seed = {e: i for i, e in enumerate(entrants)}
        sort_only_s = timed(lambda: sorted(entrants, key=lambda e: (-points.get(e, 0), seed[e])), repeat=5)
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


# ------------------------------------------------------------------------------ Celery throughput

def bench_throughput(args) -> dict:
    """Matches per minute of real arena workers on the real Redis (127.0.0.1:6379, or REDIS_URL),
    each match through a referee process with every bot its own process: one worker, then two,
    on the same kind of tournament (a Tussie Mussie round robin of 5 house bots: 20 matches)."""
    import os
    import secrets
    import subprocess
    import tempfile

    import redis

    root = Path(__file__).resolve().parents[1]
    results = {}
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as home:
            base = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
            url = base.rsplit("/", 1)[0] + "/14" if base.count("/") > 2 else base + "/14"  # a db of its own
            redis.Redis.from_url(url).flushdb()
            token = secrets.token_hex(8)
            env = dict(os.environ, PARLOUR_HOME=home, REDIS_URL=url, PARLOUR_WORKERS="1")
            env.pop("DATABASE_URL", None)
            referee = subprocess.Popen([sys.executable, "-m", "referee", "serve", "--port", "0"],
                                       env=dict(env, PARLOUR_OPERATOR_TOKEN=token), stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, text=True, cwd=root)
            env.update(REFEREE_ADDRESS=referee.stdout.readline().split("listening on", 1)[1].split()[0],
                       PARLOUR_OPERATOR_TOKEN=token)
            run = lambda *a: subprocess.run([sys.executable, "-m", "arena", *a], env=env, cwd=root,  # noqa: E731
                                            check=True, capture_output=True)
            run("tournament", "create", "tussie-mussie", "--format", "round-robin", "--table-size", "2",
                "--bots", "greedy,random,random#2,random#3,random#4")
            procs = [subprocess.Popen([sys.executable, "-m", "arena", "worker"], env=env, cwd=root,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(workers)]
            time.sleep(3)  # the workers are up before the clock starts
            start = time.perf_counter()
            run("tournament", "run", "1")
            elapsed = time.perf_counter() - start
            for proc in procs + [referee]:
                proc.terminate()
            for proc in procs + [referee]:
                proc.wait(30)
            results[f"{workers}_workers"] = round(20 / elapsed * 60, 1)
    results["speedup"] = round(results["2_workers"] / results["1_workers"], 2)
    return results


def print_throughput(report: dict) -> None:
    print(f"\nmatches per minute (Tussie Mussie, 2 seats, through the referee): "
          f"1 worker {report['1_workers']}, 2 workers {report['2_workers']} ({report['speedup']}x)")


# -------------------------------------------------------------------------------------------- main

# Each section: (name, run(args) -> dict, print(dict)).
SECTIONS = [
    ("pairing", bench_pairing, print_pairing),
    ("matches_per_minute", bench_throughput, print_throughput),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = {}
    for name, run, show in SECTIONS:
        report[name] = run(args)
        if not args.json:
            show(report[name])
    if args.json:
        print(json.dumps(report))


if __name__ == "__main__":
    main()
