"""The smaller hardening items of the platform's audit, each as a user or an attacker would meet it:
secrets compared in constant time, a one-machine seed key of its own, answers that must be plain
JSON data, bot log lines that cannot drive a terminal, temporary folders that end with their
process. (An upload's body refused before it is read: tests/web/test_serve.py.)"""
from __future__ import annotations

import ast
import hmac
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from bots_sdk import Bot, RandomBot
from bots_sdk.local import play_match
from referee.plain import describe, is_plain
from referee_process import ROOT

# ------------------------------------------------------------------ secrets compared in constant time


class Metadata:
    def __init__(self, value: str) -> None:
        self.value = value

    def invocation_metadata(self):
        return [("authorization", self.value)]


def test_the_operator_token_is_compared_in_constant_time(monkeypatch) -> None:
    from referee import auth

    compared = []
    real = hmac.compare_digest
    monkeypatch.setattr(hmac, "compare_digest", lambda a, b: compared.append((a, b)) or real(a, b))
    assert auth.is_operator(Metadata("Bearer s3cret"), "s3cret")
    assert not auth.is_operator(Metadata("Bearer s3cres"), "s3cret")
    assert not auth.is_operator(Metadata("Bearer "), "")  # no token: nobody is the operator
    assert not auth.is_operator(Metadata("Bearer é"), "s3cret")  # not ASCII: refused, no error
    assert len(compared) == 3


def test_no_secret_is_compared_with_equals_in_the_platforms_code() -> None:
    """Whatever holds a token, secret or key is never an operand of ``==``/``!=`` (timing leaks
    where they differ): hmac.compare_digest, or a lookup by digest."""
    found = []
    for folder in ("referee", "arena", "webui", "sandbox", "parlour_site"):
        for path in (ROOT / folder).rglob("*.py"):
            if "migrations" in path.parts or "games" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops):
                    for operand in [node.left, *node.comparators]:
                        name = operand.id if isinstance(operand, ast.Name) else \
                            operand.attr if isinstance(operand, ast.Attribute) else ""
                        if any(word in name.lower() for word in ("token", "secret", "password")):
                            found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found


# ------------------------------------------------------------------ the one-machine seed key


def test_the_one_machine_default_makes_its_own_seed_key_once_and_keeps_it(tmp_path) -> None:
    read = "import django; django.setup(); from django.conf import settings; print(settings.PARLOUR_SEED_KEY.decode())"
    env = dict(os.environ, PARLOUR_HOME=str(tmp_path), DJANGO_SETTINGS_MODULE="parlour_site.settings")
    env.pop("PARLOUR_SEED_KEY", None)

    def key(**extra: str) -> str:
        return subprocess.run([sys.executable, "-c", read], env=env | extra, cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()

    first = key()
    kept = tmp_path / "seed_key"
    assert len(first) >= 32 and kept.read_text().strip() == first
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600, "readable by nobody else"
    assert key() == first, "made once, used thereafter"
    assert key(PARLOUR_SEED_KEY="the-operators-own") == "the-operators-own"
    other = tmp_path / "other"
    other.mkdir()
    assert key(PARLOUR_HOME=str(other)) != first, "each home its own secret"


def test_the_referee_a_command_starts_is_given_the_seed_key(settings) -> None:
    from arena.fleet.processes import seed_key_env

    settings.PARLOUR_SEED_KEY = b"k3y"
    assert seed_key_env() == {"PARLOUR_SEED_KEY": "k3y"}


# ------------------------------------------------------------------ answers are plain JSON data


class EqualsEverything(dict):
    def __eq__(self, other):
        return True

    __hash__ = None


class EqualityRaises(dict):
    def __eq__(self, other):
        raise RuntimeError("boom from __eq__")

    def __repr__(self):
        raise RuntimeError("boom from __repr__")


class Sly(int):
    def __ge__(self, other):
        return True

    def __lt__(self, other):
        return True


class Returns(Bot):
    def __init__(self, make) -> None:
        super().__init__()
        self.make = make

    def decide(self, decision):
        return self.make(decision)


@pytest.mark.parametrize("make", [lambda d: EqualsEverything(), lambda d: EqualityRaises(d.legal_actions[0]),
                                  lambda d: Sly(10**6)], ids=["equals-everything", "eq-raises", "int-subclass"])
def test_an_answer_that_is_not_plain_json_data_is_an_illegal_answer_with_a_strike(make) -> None:
    outcome = play_match("tussie-mussie", [Returns(make), RandomBot()], seed=3)
    mine = [f for f in outcome.faults if f.seat == 0]
    assert mine and all(f.reason.startswith("illegal: returned <") for f in mine), mine[:1]
    assert "not plain JSON data" in mine[0].reason
    assert outcome.match.policy.forfeited[0], "three strikes, as for any illegal answer"
    assert outcome.result, "the match went on to its end"


def test_the_sdk_sends_an_answer_that_is_not_plain_data_as_illegal_without_running_its_code() -> None:
    from parlour.v1 import referee_pb2
    from bots_sdk.remote import answer
    from referee import wire

    start = referee_pb2.MatchStart(game="tussie-mussie", variant="standard", seat=0, players=2)
    action = referee_pb2.Action(json='{"type": "take", "side": "face_up"}')
    decision = referee_pb2.Decision(decision_id=1, deadline_seconds=1.0,
                                    legal_actions=[referee_pb2.LegalAction(action=action, label="take")])
    assert wire.action_json(action) == {"type": "take", "side": "face_up"}
    for bot, shown in ((Returns(lambda d: EqualsEverything()), "EqualsEverything"),
                       (Returns(lambda d: EqualityRaises()), "EqualityRaises")):
        reply = answer(bot, start, decision, {}).answer
        assert reply.WhichOneof("choice") == "illegal" and shown in reply.illegal, reply
    plain = answer(Returns(lambda d: {"type": "take", "side": "face_up"}), start, decision, {}).answer
    assert plain.WhichOneof("choice") == "index" and plain.index == 0


def test_plain_json_data_is_exact_types_all_the_way_down() -> None:
    assert is_plain({"type": "take", "cards": [1, 2.5, "x", True, None]})
    assert not is_plain({"a": EqualsEverything()}) and not is_plain([Sly(1)]) and not is_plain({1: "x"})
    assert not is_plain((1, 2)) and describe((1, 2)) == "(1, 2)"
    deep: list = []
    for _ in range(20_000):
        deep = [deep]
    assert not is_plain(deep), "a bounded look, never a recursion error"


# ------------------------------------------------------------------ bot log lines


class Shouter(RandomBot):
    def decide(self, decision):
        self.log("\x1b[2J\x1b]0;pwned\x07 cleared\r\x9b31m red\ttabbed")
        return super().decide(decision)


def test_terminal_control_characters_in_a_bots_log_are_escaped_before_they_are_kept() -> None:
    outcome = play_match("tussie-mussie", [Shouter(), RandomBot()], seed=5)
    lines = [entry["line"] for entry in outcome.match.bot_logs]
    assert lines
    for line in lines:
        assert not any(ord(c) < 32 and c != "\t" or 0x7f <= ord(c) <= 0x9f for c in line), repr(line)
    assert lines[0] == "\\x1b[2J\\x1b]0;pwned\\x07 cleared\\x0d\\x9b31m red\ttabbed"


# ------------------------------------------------------------------ temporary folders

PREFIXES = ("parlour-seat-", "parlour-relay-", "parlour-referee-")


def temp_folders() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).iterdir() if p.name.startswith(PREFIXES)}


def test_a_via_referee_match_leaves_no_temporary_folder() -> None:
    """A match through a referee (sandboxed where the sandbox runs: a relay per seat) leaves none of
    its folders behind; one whose process is gone is a leftover (another live process may hold
    its own meanwhile)."""
    from sandbox import support

    sandboxed = ["--sandboxed"] if support().mode != "refused" else []
    before = temp_folders()
    bot = f"{ROOT / 'tests' / 'bots' / 'other_random_bot.py'}:OtherRandomBot"
    done = subprocess.run([sys.executable, "-m", "bots_sdk", "play", "tussie-mussie", bot, "greedy",
                           "--via-referee", *sandboxed, "--games", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]

    def owner_gone(name: str) -> bool:
        pid = name.split("-")[2]
        return not pid.isdigit() or not Path(f"/proc/{pid}").exists()

    left = {name for name in temp_folders() - before if owner_gone(name)}
    assert not left, left


def test_the_folders_of_a_killed_process_are_removed_by_the_next_one() -> None:
    """A process killed before it could remove its folders (or a pool process leaving by
    ``os._exit``): the next one making such a folder removes them."""
    from referee.client import LocalReferee
    from sandbox.temp_folders import owned_folder, remove

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    stale = [Path(tempfile.mkdtemp(prefix=f"{prefix}{gone}-")) for prefix in PREFIXES]
    mine = owned_folder("parlour-seat-")
    remove(owned_folder("parlour-relay-"))
    with LocalReferee():
        pass
    try:
        assert not [path for path in stale if path.exists()]
    finally:
        remove(mine)
