"""``python -m bots_sdk play`` as a user runs it: tables, JSON, bad input, faults, strict mode."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bots_sdk.cli import main
from referee.replay import read_replay


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bots_sdk", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def test_json_output_shape(capsys) -> None:
    assert main(["play", "tussie-mussie", "greedy", "random", "--games", "4", "--seed", "10", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["game"] == "tussie-mussie" and doc["variant"] == "standard"
    assert doc["options"] == {"honeysuckle": "any_row", "marigold_gap": "close"}
    assert [m["seed"] for m in doc["matches"]] == [10, 11, 12, 13]
    # seats rotate so no entry always sits first
    assert [m["seats"] for m in doc["matches"][:2]] == [["greedy", "random"], ["random", "greedy"]]
    for m in doc["matches"]:
        assert len(m["scores"]) == len(m["ranks"]) == 2


def test_same_seed_same_matches(capsys) -> None:
    outputs = []
    for _ in range(2):
        main(["play", "tussie-mussie", "greedy", "random", "random", "--games", "3", "--seed", "5", "--json"])
        outputs.append(json.loads(capsys.readouterr().out)["matches"])
    assert outputs[0] == outputs[1]


def test_through_the_referee_the_same_scores_and_log_as_in_process(tmp_path: Path) -> None:
    """``--via-referee`` (the referee's own client, a process per bot) prints what in-process play
    prints, and records the same actions in the same order."""
    outputs = {}
    for mode, extra in (("local", []), ("referee", ["--via-referee"])):
        done = run("play", "misty", "greedy", "random", "--games", "2", "--seed", "21", "--json",
                   "--replay", str(tmp_path / mode / "match.json.gz"), *extra)
        assert done.returncode == 0, done.stderr
        outputs[mode] = json.loads(done.stdout)["matches"]
    assert outputs["local"] == outputs["referee"]
    for local, remote in zip(sorted((tmp_path / "local").iterdir()), sorted((tmp_path / "referee").iterdir())):
        logs = [[(e["seat"], e["action"], e["source"]) for e in read_replay(path)["log"]] for path in (local, remote)]
        assert logs[0] == logs[1] and logs[0]


def test_solo_plays_with_one_bot(capsys) -> None:
    assert main(["play", "tussie-mussie", "greedy", "--variant", "solo", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "greedy" in out and "rank" in out


@pytest.mark.parametrize("args, message", [
    (["chess", "random", "random"], "unknown game 'chess' (allowed: "),
    (["tussie-mussie", "random"], "is played by 2, 3, 4 player(s), not 1"),
    (["tussie-mussie", "random", "random", "--variant", "solo"], "is played by 1 player(s), not 2"),
    (["tussie-mussie", "random", "random", "--variant", "trio"], "no variant 'trio' (allowed: standard, solo)"),
    (["tussie-mussie", "random", "random", "--option", "colour=red"], "no option 'colour' (allowed: honeysuckle, marigold_gap)"),
    (["tussie-mussie", "random", "random", "--option", "marigold_gap=open"], "'open' is not allowed (allowed: close, keep)"),
    (["tussie-mussie", "random", "missing.py:Bot"], "bot file missing.py does not exist"),
    (["tussie-mussie", "random", "clever"], "unknown bot 'clever' (allowed: random, greedy, mcts, path/to/file.py:ClassName)"),
])
def test_bad_input_one_line_exit_2(args, message, tmp_path) -> None:
    done = run("play", *args, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_bot_file_without_the_class(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text("from bots_sdk import Bot\nclass Real(Bot):\n    pass\n")
    done = run("play", "tussie-mussie", "mine.py:Missing", "random", cwd=tmp_path)
    assert done.returncode == 2
    assert "has no Bot subclass 'Missing' (allowed: Real)" in done.stderr


FAULTY = '''
from bots_sdk import Bot

class Crashes(Bot):
    def decide(self, decision):
        raise RuntimeError("boom")

class Garbage(Bot):
    def decide(self, decision):
        return {"type": "flowers please"}
'''


def test_faulty_bot_gets_warnings_strikes_and_autopilot(tmp_path: Path) -> None:
    (tmp_path / "faulty.py").write_text(FAULTY)
    done = run("play", "tussie-mussie", "faulty.py:Crashes", "random", "--seed", "1", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.strip().splitlines() if line.startswith("warning:")]
    assert len(warnings) == 3, "three strikes, then the autopilot plays without faults"
    assert ("bot 'faulty.py:Crashes' (seat 0) faulted on its decision 1 (decision 1 of the match): "
            "crash: RuntimeError: boom "
            "(at faulty.py:") in warnings[0]
    assert 'File "faulty.py", line' in done.stderr and 'raise RuntimeError("boom")' in done.stderr
    assert "forfeited to the random autopilot" in warnings[2]
    match = json.loads(done.stdout)["matches"][0]
    assert match["statuses"] == ["forfeited", "ok"]


def test_strict_stops_at_the_first_fault(tmp_path: Path) -> None:
    (tmp_path / "faulty.py").write_text(FAULTY)
    done = run("play", "tussie-mussie", "random", "faulty.py:Garbage", "--strict", cwd=tmp_path)
    assert done.returncode == 1
    # counted the way the bot counts: its first decision, the match's second
    assert "error: bot 'faulty.py:Garbage' (seat 1) faulted on its decision 1 (decision 2 of the match)" in done.stderr
    assert "illegal: returned {'type': 'flowers please'}, not a legal action" in done.stderr


def test_replay_written_checked_and_tampering_detected(tmp_path: Path) -> None:
    import gzip

    assert run("play", "tussie-mussie", "greedy", "random", "--seed", "8", "--replay", "m.gz", cwd=tmp_path).returncode == 0
    assert run("replay", "check", "m.gz", cwd=tmp_path).returncode == 0
    replay = json.loads(gzip.decompress((tmp_path / "m.gz").read_bytes()))
    replay["result"]["scores"][0] += 1
    (tmp_path / "edited.gz").write_bytes(gzip.compress(json.dumps(replay).encode()))
    done = run("replay", "check", "edited.gz", cwd=tmp_path)
    assert done.returncode == 1 and "the result differs" in done.stdout


def test_replay_show_for_a_seat_names_no_tile_another_seat_laid_face_down(tmp_path: Path, capsys) -> None:
    """With ``--seat 1``, seat 0's offers read "a tile face down", as seat 1 could read them; without
    it (everything) and for seat 1's own offers, the face-down tile is named."""
    replay = tmp_path / "m.gz"
    assert main(["play", "tussie-mussie", "random", "random", "--seed", "8", "--replay", str(replay)]) == 0
    capsys.readouterr()
    assert main(["replay", "show", str(replay)]) == 0
    everything = [line for line in capsys.readouterr().out.splitlines() if ") offer the " in line]
    assert main(["replay", "show", str(replay), "--seat", "1"]) == 0
    seat_one = [line for line in capsys.readouterr().out.splitlines() if ") offer the " in line]
    assert len(everything) == len(seat_one) == 2 * 2 * 3  # two offers per seat a round, three rounds
    for full, seen in zip(everything, seat_one):
        assert not full.endswith("and a tile face down")
        if " seat 0 " in full:
            assert seen.endswith("and a tile face down") and seen != full
        else:
            assert seen == full


def test_sandboxed_needs_the_referee_and_an_allowed_sandbox(tmp_path: Path) -> None:
    bot = tmp_path / "mine.py"
    bot.write_text("import sys\nsys.exit('imported outside the sandbox')\n")
    done = run("play", "tussie-mussie", f"{bot}:Mine", "random", "--sandboxed")
    assert done.returncode == 2 and "--sandboxed needs --via-referee" in done.stderr
    done = subprocess.run([sys.executable, "-m", "bots_sdk", "play", "tussie-mussie", f"{bot}:Mine", "random",
                           "--via-referee", "--sandboxed"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PARLOUR_SANDBOX": "off"})
    assert done.returncode == 2, done.stderr
    assert "sandbox: unavailable (the operator turned uploaded bots off" in done.stderr
    assert "imported outside the sandbox" not in done.stderr  # the file is never imported here


def test_games_prints_a_table_and_json_on_request(capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "160")  # rich wraps cells to the terminal's width
    assert main(["games"]) == 0
    table = capsys.readouterr().out
    for game in ("Tussie Mussie", "Tricky Twist", "Misty", "Bszzzz!"):
        assert game in table
    assert "solo" in table and "beginner" in table and "total" in table
    assert "3, 4, 5, 6" in table and "marigold_gap = close" in table and "(disjoint, overlapping)" in table
    assert main(["games", "--json"]) == 0
    games = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {g["id"] for g in games} >= {"tussie-mussie", "tricky-twist", "misty", "bszzzz"}  # and any installed
    solo = next(v for g in games for v in g["variants"] if v["name"] == "solo")
    assert solo["players"] == [1]


def test_tournament_create_numbers_repeated_house_bots(tmp_path: Path) -> None:
    """Each repeat of a house bot is its own entrant; a number named explicitly is skipped."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    done = subprocess.run([sys.executable, "-m", "arena", "tournament", "create", "tussie-mussie", "--format", "swiss",
                           "--bots", "random,random,random#2,greedy,greedy"], capture_output=True, text=True,
                          env={**env, "PARLOUR_HOME": str(tmp_path)}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "5 entrants: random, random#3, random#2, greedy, greedy#2" in done.stdout
