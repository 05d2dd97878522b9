"""The comparison driver (arena/competitions/sequential_comparison.py): duplicate deals, batches
through an injected player, stopping at the verdict or the cap; and ``python -m arena compare`` on real in-process matches."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.competitions import sequential_comparison
from arena.competitions.sequential_comparison import GameSpec, LocalPlayer

ROOT = Path(__file__).resolve().parents[1]
OTHER_RANDOM = str(ROOT / "tests" / "bots" / "other_random_bot.py") + ":OtherRandomBot"


class ScriptedPlayer:
    """Plays nothing: A wins with a fixed pattern; records every batch it was given."""

    def __init__(self, a_wins: Sequence[bool], statuses: Sequence[str] | None = None) -> None:
        self.a_wins, self.statuses, self.batches = list(a_wins), statuses, []

    def __call__(self, specs: Sequence[GameSpec]) -> list[Mapping[str, Any]]:
        self.batches.append(list(specs))
        results = []
        for spec in specs:
            won = self.a_wins[len(results) % len(self.a_wins)]
            ranks = [2] * len(spec.bots)
            ranks[spec.a_seat if won else spec.b_seat] = 1
            ranks[spec.b_seat if won else spec.a_seat] = len(spec.bots)
            result: dict[str, Any] = {"ranks": ranks}
            if self.statuses:
                result["statuses"] = [self.statuses[0] if seat == spec.a_seat else "ok"
                                      for seat in range(len(spec.bots))]
            results.append(result)
        return results


def test_pairs_share_a_deal_with_a_and_b_swapped_and_the_field_unmoved() -> None:
    player = ScriptedPlayer([True, False])
    done = sequential_comparison.run("mine", "theirs", "tussie-mussie", player, players=4, seed=500, max_games=24, batch_pairs=3,
                       elo0=0, elo1=1)
    specs = [spec for batch in player.batches for spec in batch]
    assert [len(batch) for batch in player.batches] == [6, 6, 6, 6]  # 3 pairs per batch, up to the cap
    seat_pairs = []
    for k in range(0, len(specs), 2):
        first, second = specs[k], specs[k + 1]
        assert first.seed == second.seed == 500 + k // 2
        assert (first.a_seat, first.b_seat) == (second.b_seat, second.a_seat)
        assert first.bots[first.a_seat] == second.bots[second.a_seat] == "mine"
        assert first.bots[first.b_seat] == second.bots[second.b_seat] == "theirs"
        field = [s for s in range(4) if s not in (first.a_seat, first.b_seat)]
        assert all(first.bots[s] == second.bots[s] == sequential_comparison.FIELD for s in field)
        seat_pairs.append(frozenset((first.a_seat, first.b_seat)))
        assert first.options == {"honeysuckle": "any_row", "marigold_gap": "close"}  # resolved defaults
    assert set(seat_pairs[:6]) == {frozenset(p) for p in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]}
    # A won the first game of every pair and lost the second: every pair scores 1/2
    assert (done.wins, done.losses, done.pentanomial) == (12, 12, [0, 0, 12, 0, 0])
    assert (done.verdict, done.stopped, done.games) == ("no difference shown", "cap", 24)


def test_a_clear_winner_stops_early_and_the_cap_rounds_down_to_pairs() -> None:
    seen = []
    done = sequential_comparison.run("a", "b", "tussie-mussie", ScriptedPlayer([True]), seed=1, on_progress=lambda c: seen.append(c.games))
    assert done.verdict == "A" and done.stopped == "sprt" and done.losses == 0
    assert done.games < sequential_comparison.DEFAULT_MAX_GAMES and seen[-1] == done.games and seen == sorted(seen)
    figures = done.to_json()
    assert figures["score"] == {"value": 1.0, "low": 1.0, "high": 1.0} and figures["elo"]["value"] is None  # +inf
    assert figures["llr"]["A"] >= figures["bounds"]["upper"]
    capped = sequential_comparison.run("a", "b", "tussie-mussie", ScriptedPlayer([True, False, False, True]), seed=1,
                         max_games=9, elo0=0, elo1=1)
    assert capped.games == 8 and capped.stopped == "cap" and capped.verdict == "no difference shown"


def test_a_forfeited_seat_loses_whatever_its_autopilot_did() -> None:
    done = sequential_comparison.run("a", "b", "tussie-mussie", ScriptedPlayer([True], statuses=["forfeited"]), seed=3)
    assert done.wins == 0 and done.verdict == "B"


def test_bad_settings_are_refused_before_any_game() -> None:
    player = ScriptedPlayer([True])
    for kwargs in ({"a": "x", "b": "x"}, {"max_games": 1}, {"elo0": 5, "elo1": 5}, {"players": 9},
                   {"variant": "nope"}, {"alpha": 0}):
        settings = {"a": "x", "b": "y", **kwargs}
        with pytest.raises(ValueError):
            sequential_comparison.run(settings.pop("a"), settings.pop("b"), "tussie-mussie", player, **settings)
    assert player.batches == []


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "arena", "compare", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_cli_greedy_beats_random_within_its_cap() -> None:
    done = run_cli("greedy", "random", "--game", "tussie-mussie", "--json", "--seed", "2026")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["verdict"] == "A" and figures["stopped"] == "sprt"
    assert figures["games"] == figures["wins"] + figures["draws"] + figures["losses"] < figures["max_games"]
    assert figures["games"] == 2 * sum(figures["pentanomial"])
    assert figures["score"]["low"] > 0.5 and figures["elo"]["low"] > 0
    assert figures["llr"]["A"] >= figures["bounds"]["upper"]
    text = run_cli("greedy", "random", "--game", "tussie-mussie", "--seed", "2026")
    assert "verdict: A (greedy is stronger)" in text.stdout and "95 % interval" in text.stdout


def test_cli_refuses_bad_input_in_one_line() -> None:
    for args, word in ((["random", "nobody", "--game", "tussie-mussie"], "nobody"),
                       (["random", "greedy", "--game", "chess"], "chess"),
                       (["random", "random", "--game", "misty"], "random#2")):
        done = run_cli(*args)
        assert done.returncode == 2 and word in done.stderr and done.stderr.count("\n") == 1, done.stderr


@pytest.mark.parametrize("b", ["random#2", OTHER_RANDOM])
def test_equal_bots_are_never_declared_different(b: str) -> None:
    """random against random#2 (the same bot: on duplicate deals every pair is level) and against
    another random bot drawing from its own stream (equal strength, different games), on real
    in-process matches (random#2 also at three seats, the third holding the greedy field)."""
    for players, seed in ((2, 11), (3, 12)) if b == "random#2" else ((2, 11),):
        done = sequential_comparison.run("random", b, "tussie-mussie", LocalPlayer(), players=players, seed=seed, max_games=400)
        assert done.verdict == "no difference shown", done.to_json()
        if b == "random#2":
            assert done.pentanomial == [0, 0, done.pairs, 0, 0]
