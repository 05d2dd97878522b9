"""Warm bots (arena/bot_pool.py): a clean bot plays its next match in the same process; a bot
that faulted meets its next match in a fresh one. Proved by process ids, on a real referee, with
an uploaded bot in its real sandbox."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.bot_pool import BotKey, BotPool
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


def play(referee: LocalReferee, pool: BotPool, keys: list[BotKey], seed: int) -> tuple[MatchOutcome, list[int]]:
    created = referee.create_match("tussie-mussie", "standard", {}, seed, TimeControl(2.0, 10.0),
                                   [k.spec for k in keys])
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
