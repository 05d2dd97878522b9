"""House bots' strength: ``mcts`` (0.05 s of search per decision) against ``greedy``, per game.

    python bench/bots.py [--games N] [--budget S | --playouts N] [--json] [--only GAME]

One mcts seat against greedy in every other seat, seats rotating from match to match, in-process
(the same code as ``python -m bots_sdk play``). A win is rank 1 (shared wins count); the interval
is Wilson's 95 % interval of the win rate. Targets (issue 19): at least 65 % in 2-player Tussie
Mussie and Misty, at least 40 % in 4-player Tricky Twist and Bszzzz! (a fair share is 25 %).

The budget is wall-clock time: on a loaded machine the bot searches less and the rates drop.
``--playouts N`` measures the algorithm whatever the load: a fixed number of iterations per
decision (``mcts?playouts=N``; the matches are then the same on any machine).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bots_sdk.local import play_match
from bots_sdk.loading import parse_bot_spec

from benchmarks_doc import add_record_flag, record, verdict

# (game, players, default matches, target win rate): the matches keep the whole run under ~25 min
ROWS = (
    ("tussie-mussie", 2, 200, 0.65),
    ("misty", 2, 60, 0.65),
    ("tricky-twist", 4, 40, 0.40),
    ("bszzzz", 4, 24, 0.40),
)
SEED = 19_000


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def measure(game: str, players: int, matches: int, budget: float, playouts: int | None = None) -> dict:
    spec = f"mcts?playouts={playouts}" if playouts else f"mcts?budget={budget}"
    wins = 0
    start = time.perf_counter()
    for i in range(matches):
        specs = [spec] + ["greedy"] * (players - 1)
        order = [(s + i) % players for s in range(players)]  # the mcts entry visits every seat
        bots = [parse_bot_spec(specs[k], game).make() for k in order]
        result = play_match(game, bots, seed=SEED + i).result
        wins += result["ranks"][order.index(0)] == 1
    low, high = wilson(wins, matches)
    return {"game": game, "players": players, "matches": matches, "spec": spec, "mcts_wins": wins,
            "win_rate": round(wins / matches, 3), "ci95": [round(low, 3), round(high, 3)],
            "fair_share": round(1 / players, 3), "seconds": round(time.perf_counter() - start, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, help="matches per game (default: per game, see ROWS)")
    parser.add_argument("--budget", type=float, default=0.05, help="mcts seconds per decision")
    parser.add_argument("--playouts", type=int, help="a fixed number of mcts iterations per decision instead")
    parser.add_argument("--only", help="one game id")
    parser.add_argument("--json", action="store_true")
    add_record_flag(parser)
    args = parser.parse_args()
    rows = []
    if not args.json:
        amount = f"{args.playouts} playouts" if args.playouts else f"budget {args.budget} s"
        print(f"mcts ({amount} per decision) against greedy in every other seat")
        print(f"{'game':<14} {'players':>7} {'matches':>7} {'mcts wins':>9} {'rate':>6}  {'95% interval':<15}"
              f" {'target':>6}")
    for game, players, default, target in ROWS:
        if args.only and game != args.only:
            continue
        row = measure(game, players, args.games or default, args.budget, args.playouts)
        row["target"] = target
        rows.append(row)
        if not args.json:
            low, high = row["ci95"]
            flag = "" if row["win_rate"] >= target else "  under target"
            print(f"{game:<14} {players:>7} {row['matches']:>7} {row['mcts_wins']:>9} {row['win_rate']:>6.1%}"
                  f"  [{low:.1%}, {high:.1%}]  {target:>6.0%}{flag}", flush=True)
    if args.record:
        record_results(rows)
    if args.json:
        print(json.dumps({"rows": rows}))


def record_results(rows: list[dict]) -> None:
    spec = rows[0]["spec"] if rows else "mcts"
    record("bots", "House bots: mcts against greedy",
           f"One `{spec}` seat (search per decision) against `greedy` in every other seat, seats rotating, "
           "in-process; a win is rank 1 (shared wins count), with Wilson's 95 % interval. A budget in "
           "seconds is wall-clock time: a loaded machine searches less; `--playouts N` gives the same "
           "matches on any machine. A fair share is 50 % at 2 players, 25 % at 4.",
           ["game", "players", "matches", "mcts wins", "95 % interval", "target"],
           [[r["game"], r["players"], r["matches"], f"{r['win_rate']:.1%}", f"{r['ci95'][0]:.1%}–{r['ci95'][1]:.1%}",
             f"≥ {r['target']:.0%}: {verdict(r['win_rate'] >= r['target'])}"] for r in rows])


if __name__ == "__main__":
    main()
