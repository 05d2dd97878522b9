"""Engine speed: random-playout microseconds per decision, per game and player count, beside a
reference measured in the same run (a minimal pure-Python 4-player trick-taking game).

    python bench/engines.py [--seconds S] [--slices K] [--json]

Ratios, not absolutes, are the figures to compare: the machines are shared and noisy. So every row
is timed in K short slices spread over the whole run (round-robin over the rows), each slice right
after a slice of the reference; a row's ratio is the median of its K slice ratios, so a burst of
load from another process skews a slice or two, not a row. Slices are timed in this process's CPU
time (``time.process_time``), so the time the scheduler gives other processes is not counted.
Target: each engine's µs per decision ≤ 3× the reference's µs per card.

Then, per game, ``clone()`` beside a position round trip (``from_position(to_position())``, what a
search would otherwise copy a state with), on states halfway through random games.
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

from referee.games import GAMES

from benchmarks_doc import add_record_flag, record, verdict

TARGET_RATIO = 3.0
# This process's CPU time, not the wall clock: time another process takes from ours does not count.
clock = time.process_time


def reference_hearts_game(rng: random.Random) -> int:
    """One Hearts-like deal: cards as ints in lists, follow suit, a random legal card. Returns
    the number of cards played (52)."""
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [deck[i::4] for i in range(4)]
    leader = 0
    points = [0, 0, 0, 0]
    played = 0
    for _ in range(13):
        trick = []
        suit = -1
        for offset in range(4):
            seat = (leader + offset) % 4
            hand = hands[seat]
            legal = [c for c in hand if c // 13 == suit] if suit >= 0 else hand
            if not legal:
                legal = hand
            card = legal[rng.randrange(len(legal))]
            hand.remove(card)
            if suit < 0:
                suit = card // 13
            trick.append((card, seat))
            played += 1
        winner = max((c, s) for c, s in trick if c // 13 == suit)[1]
        points[winner] += sum(1 for c, _ in trick if c // 13 == 3)
        leader = winner
    return played


class Reference:
    """The reference, timed slice by slice: whole deals until a slice's time is up."""

    def __init__(self) -> None:
        self.rng = random.Random(1)

    def slice(self, seconds: float) -> float:
        """µs per card over one slice."""
        cards = 0
        start = clock()
        while clock() - start < seconds:
            cards += reference_hearts_game(self.rng)
        return (clock() - start) / cards * 1e6


class EngineRow:
    """One game, variant and player count, timed slice by slice: random playouts (legal actions
    listed, one chosen, applied) of whole games, seeds 1, 2, ... continuing from slice to slice."""

    def __init__(self, game_id: str, variant: str, players: int) -> None:
        self.game_id, self.variant, self.players = game_id, variant, players
        self.game = GAMES[game_id]
        self.config = self.game.configure(players, variant)
        self.rng = random.Random(2)
        self.seed = 0
        self.decisions = 0

    def slice(self, seconds: float) -> float:
        """µs per decision over one slice."""
        new_state, config, rng = self.game.new_state, self.config, self.rng
        decisions = 0
        elapsed = 0.0
        while elapsed < seconds:
            self.seed += 1
            start = clock()
            state = new_state(config, self.seed)
            while not state.is_terminal():
                for seat in state.to_move():
                    legal = state.legal_actions(seat)
                    state.apply(seat, legal[rng.randrange(len(legal))])
                    decisions += 1
            elapsed += clock() - start
        self.decisions += decisions
        return elapsed / decisions * 1e6


def time_rows(rows: list[EngineRow], seconds: float, slices: int) -> list[tuple[float, float, float]]:
    """Per row: (median µs per decision, median reference µs per card, median ratio), from
    ``slices`` rounds over all rows, each row's slice right after a reference slice."""
    reference = Reference()
    reference.slice(0.05)  # warm up (imports, caches) before anything counts
    for row in rows:
        row.slice(0.01)
    per_row: list[list[tuple[float, float]]] = [[] for _ in rows]
    for _ in range(slices):
        for samples, row in zip(per_row, rows):
            ref = reference.slice(seconds / slices)
            samples.append((row.slice(seconds / slices), ref))
    return [(statistics.median(us for us, _ in samples), statistics.median(ref for _, ref in samples),
             statistics.median(us / ref for us, ref in samples)) for samples in per_row]


def midgame_states(game_id: str, variant: str, players: int, count: int) -> list:
    """States halfway through ``count`` random games (by decisions)."""
    game = GAMES[game_id]
    config = game.configure(players, variant)
    states = []
    for seed in range(1, count + 1):
        rng = random.Random(seed)
        history = []
        state = game.new_state(config, seed)
        while not state.is_terminal():
            for seat in state.to_move():
                legal = state.legal_actions(seat)
                action = legal[rng.randrange(len(legal))]
                history.append((seat, action))
                state.apply(seat, action)
        state = game.new_state(config, seed)
        for seat, action in history[: len(history) // 2]:
            state.apply(seat, action)
        states.append(state)
    return states


def time_copies(game_id: str, variant: str, players: int, seconds: float) -> tuple[float, float]:
    """µs per ``clone()`` and per position round trip, over mid-game states."""
    game = GAMES[game_id]
    states = midgame_states(game_id, variant, players, 8)
    timings = []
    for copy in (lambda s: s.clone(), lambda s: game.from_position(s.to_position())):
        copies = 0
        start = clock()
        while clock() - start < seconds / 2:
            for state in states:
                copy(state)
            copies += len(states)
        timings.append((clock() - start) / copies * 1e6)
    return timings[0], timings[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="engine time per row")
    parser.add_argument("--slices", type=int, default=9, help="slices per row (its ratio: their median)")
    parser.add_argument("--json", action="store_true")
    add_record_flag(parser)
    args = parser.parse_args()
    engine_rows = [EngineRow(game_id, variant.name, players)
                   for game_id, game in sorted(GAMES.items())
                   for variant in game.variants.values()
                   for players in variant.player_counts]
    rows = []
    references = []
    for row, (us, reference_here, ratio) in zip(engine_rows, time_rows(engine_rows, args.seconds, args.slices)):
        references.append(reference_here)
        rows.append({"game": row.game_id, "variant": row.variant, "players": row.players,
                     "us_per_decision": round(us, 2), "decisions": row.decisions,
                     "reference_us_per_card": round(reference_here, 3),
                     "ratio_to_reference": round(ratio, 2)})
    reference = statistics.median(references)
    copies = []
    for game_id, game in sorted(GAMES.items()):
        variant = game.variant(None)
        players = variant.player_counts[-1]
        clone_us, round_trip_us = time_copies(game_id, variant.name, players, args.seconds)
        copies.append({"game": game_id, "variant": variant.name, "players": players,
                       "clone_us": round(clone_us, 1), "position_round_trip_us": round(round_trip_us, 1),
                       "speedup": round(round_trip_us / clone_us, 1)})
    if args.record:
        record_results(reference, rows, copies)
    if args.json:
        print(json.dumps({"reference_us_per_card": round(reference, 3), "target_ratio": TARGET_RATIO,
                          "rows": rows, "copies": copies}))
        return
    print(f"reference (pure-Python 4-player trick-taking): {reference:.2f} µs per card")
    print(f"{'game':<14} {'variant':<10} {'players':>7} {'µs/decision':>12} {'ratio':>7}  target ≤ {TARGET_RATIO}×")
    for r in rows:
        flag = "" if r["ratio_to_reference"] <= TARGET_RATIO else "  over target"
        print(f"{r['game']:<14} {r['variant']:<10} {r['players']:>7} {r['us_per_decision']:>12.2f} "
              f"{r['ratio_to_reference']:>6.2f}×{flag}")
    print(f"\n{'game (mid-game)':<22} {'players':>7} {'clone µs':>9} {'position round trip µs':>23}")
    for c in copies:
        print(f"{c['game'] + ' ' + c['variant']:<22} {c['players']:>7} {c['clone_us']:>9.1f} "
              f"{c['position_round_trip_us']:>23.1f}  ({c['speedup']:.0f}× faster)")


def record_results(reference: float, rows: list[dict], copies: list[dict]) -> None:
    clones = "; ".join(f"{c['game']} {c['clone_us']:.1f} against {c['position_round_trip_us']:.1f} µs"
                       for c in copies)
    record("engines", "Engines: a random playout's decision against the reference",
           f"Random playouts of whole games, µs of CPU per decision, beside a minimal pure-Python 4-player "
           f"trick-taking game timed in the same run ({reference:.2f} µs per card played): the ratio is the "
           f"median of slices interleaved with the reference's. Target: at most {TARGET_RATIO:g}× the "
           f"reference. `clone()` against a position round trip, mid-game: {clones}.",
           ["game", "variant", "players", "µs per decision", "× reference", f"≤ {TARGET_RATIO:g}×"],
           [[r["game"], r["variant"], r["players"], f"{r['us_per_decision']:.2f}", f"{r['ratio_to_reference']:.2f}",
             verdict(r["ratio_to_reference"] <= TARGET_RATIO)] for r in rows])


if __name__ == "__main__":
    main()
