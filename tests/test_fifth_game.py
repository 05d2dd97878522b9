"""The fifth game, Kuhn poker, installed from outside Parlour (examples/kuhn-poker: its own pip
package, found by its entry point): the SDK lists it with the four, and the command line plays it
with the house bots in-process and through a real referee with the same scores and the same log.
(Its rules, policy and search: examples/kuhn-poker/tests; the JavaScript bot plays it in
tests/test_referee.py, its tournament and ladder run in tests/test_arena_e2e.py, its viewer in
tests/test_browser_live.py, the site in tests/web/test_fifth_game.py.)"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from referee.games.registry import package
from referee.replay import read_replay

ROOT = Path(__file__).resolve().parents[1]
GAME = "kuhn-poker"


def sdk(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "bots_sdk", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_sdk_lists_five_games_the_fifth_from_examples() -> None:
    games = [json.loads(line) for line in sdk("games", "--json").splitlines()]
    assert {g["id"] for g in games} == {"tussie-mussie", "tricky-twist", "misty", "bszzzz", GAME}
    kuhn = next(g for g in games if g["id"] == GAME)
    assert kuhn["variants"][0]["players"] == [2] and kuhn["variants"][0]["options"][0]["name"] == "hands"
    assert package(GAME).folder.is_relative_to(ROOT / "examples" / "kuhn-poker")
    assert "Kuhn poker" in sdk("games")  # the table too


def test_in_process_and_through_a_referee_the_same_scores_and_log(tmp_path) -> None:
    """``play kuhn-poker mcts random`` (mcts searches a fixed number of iterations in this small
    game, so its choices are a function of its seed), in this process and with every bot in its own
    process on a real referee."""
    runs = {}
    for path, extra in (("local", []), ("referee", ["--via-referee"])):
        out = sdk("play", GAME, "mcts", "random", "--games", "3", "--seed", "17", "--json",
                  "--replay", str(tmp_path / f"{path}.json.gz"), *extra)
        runs[path] = json.loads(out)
    local, referee = runs["local"]["matches"], runs["referee"]["matches"]
    assert [m["scores"] for m in local] == [m["scores"] for m in referee]
    for i in range(3):
        logs = [read_replay(tmp_path / f"{path}-{i}.json.gz")["log"] for path in ("local", "referee")]
        strip = [[(e["seat"], e["action"], e["source"]) for e in log] for log in logs]
        assert strip[0] == strip[1] and len(strip[0]) >= 20  # ten hands of two or three actions
        assert all(e["source"] == "bot" for e in logs[1])
