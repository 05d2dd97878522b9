"""Errors that name the bug, alike on every path: a crash gives its exception and its traceback in
the bot's own file (at the step of the fault), an illegal answer names what was returned (an index
of -1 included), a timeout names the limit and the bank left, output printed before a timeout is
kept, and a file that does not import says so with its traceback."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from bots_sdk.loading import parse_bot_spec
from bots_sdk.local import play_match
from bots_sdk.via_referee import SeatProcess, play_via_referee
from referee.client import LocalReferee
from referee.timecontrol import TimeControl

FAULTY = '''import time

from bots_sdk import Bot


def helper(decision):
    raise ValueError("no idea what to play")  # line 7


class Crashes(Bot):
    def decide(self, decision):
        return helper(decision)


class MinusOne(Bot):
    def decide(self, decision):
        return -1


class Dances(Bot):
    def decide(self, decision):
        return {"type": "dance"}


class Sleeps(Bot):
    def decide(self, decision):
        print("thinking about", len(decision.legal_actions), "actions")
        time.sleep(1.0)
        return 0
'''

BROKEN = '''from bots_sdk import Bot
import no_such_module_here  # line 2


class Broken(Bot):
    pass
'''

TC = TimeControl(0.2, 0.3)


@pytest.fixture(scope="module")
def bots(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("bots")
    (folder / "faulty.py").write_text(FAULTY)
    (folder / "broken.py").write_text(BROKEN)
    return folder


@pytest.fixture(scope="module")
def referee():
    with LocalReferee() as ref:
        yield ref


def faults(log: list[dict]) -> list[tuple[int, str]]:
    return [(e["decision"], e["fault"]) for e in log if e.get("fault")]


@pytest.mark.parametrize("name", ["Crashes", "MinusOne", "Dances"])
def test_local_and_referee_paths_give_the_same_reasons(bots, referee, name, monkeypatch) -> None:
    monkeypatch.chdir(bots)
    spec = f"faulty.py:{name}"
    local = play_match("tussie-mussie", [parse_bot_spec(spec, "tussie-mussie").make(),
                                         parse_bot_spec("random", "tussie-mussie").make()], seed=5, time_control=TC)
    replay = play_via_referee(referee, "tussie-mussie", "standard", {}, 5, TC, [spec, "random"], [spec, "random"])
    assert faults(replay["log"]) == faults(local.log) and len(faults(local.log)) == 3
    reason = faults(local.log)[0][1]
    expected = {"Crashes": "crash: ValueError: no idea what to play (at faulty.py:7, in helper)",
                "MinusOne": "illegal: returned -1, not a legal action",
                "Dances": "illegal: returned {'type': 'dance'}, not a legal action"}[name]
    assert reason.startswith(expected)
    if name == "Crashes":  # the traceback, in the bot's own file, at the step whose frame shows the fault
        first = next(i for i, e in enumerate(replay["log"]) if e.get("fault"))
        lines = [e["line"] for e in replay["bot_logs"] if e["step"] == first + 1 and e["seat"] == 0]
        assert lines[0] == "Traceback (most recent call last):"
        assert '  File "faulty.py", line 7, in helper' in lines
        assert lines[-1] == "ValueError: no idea what to play"
        assert not any("bots_sdk" in line for line in lines), "the SDK's own frames are left out"


def serve_one_seat(referee: LocalReferee, folder: Path, spec: str) -> dict:
    """The platform's road for an uploaded bot (a warm ``serve-seats`` process capturing its output),
    without the sandbox around it."""
    created = referee.create_match("tussie-mussie", "standard", {}, 7, TC, [spec, "random"])
    bot = subprocess.Popen([sys.executable, "-m", "bots_sdk", "serve-seats", spec, "--referee", referee.address,
                            "--capture-output", "65536"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, text=True, cwd=folder)
    bot.stdin.write(created.seat_tokens[0] + "\n")
    bot.stdin.close()
    other = SeatProcess(referee, "random", created.seat_tokens[1], False, None)
    try:
        outcome = referee.follow(created.match_id, 60)
    finally:
        other.stop(time.monotonic() + 2)
        bot.kill()
        bot.wait()
    return outcome.replay()


def test_a_timeout_names_the_limit_and_keeps_the_output_printed_before_it(bots, referee) -> None:
    replay = serve_one_seat(referee, bots, "faulty.py:Sleeps")
    decision, reason = faults(replay["log"])[0]
    assert reason == "timeout: no answer within 0.50 s (the 0.2 s move limit + 0.30 s of bank left)"
    printed = [e for e in replay["bot_logs"] if e["decision"] == decision]
    assert printed and printed[0]["line"].startswith("[output] thinking about"), \
        "the line printed before the deadline reached the referee while the bot still slept"


def test_a_file_that_does_not_import_says_so_with_its_traceback(bots, referee) -> None:
    replay = serve_one_seat(referee, bots, "broken.py:Broken")
    reasons = faults(replay["log"])
    assert len(reasons) == 3 and replay["result"]["statuses"][0] == "forfeited"
    assert reasons[0][1] == ("failed to import: ModuleNotFoundError: No module named 'no_such_module_here' "
                             "(at broken.py:2, in <module>)")
    lines = [e["line"] for e in replay["bot_logs"] if e["decision"] == reasons[0][0]]
    assert '  File "broken.py", line 2, in <module>' in lines and "    import no_such_module_here  # line 2" in lines
