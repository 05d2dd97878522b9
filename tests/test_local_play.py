"""In-process play: the fault policy, time control, bot seeds and hooks."""
from __future__ import annotations

import time

import pytest

from bots_sdk import Bot, RandomBot
from bots_sdk.local import play_match
from referee.match import StrictFaultError
from referee.games.seeding import derive_seed
from referee.timecontrol import SeatClock, TimeControl


class Sleeper(Bot):
    """Loops past its deadline on every decision."""

    def decide(self, decision):
        end = time.perf_counter() + 5
        while time.perf_counter() < end:
            pass
        return decision.legal_actions[0]




def test_timeout_interrupts_a_looping_bot_and_the_match_goes_on() -> None:
    tc = TimeControl(move_limit=0.05, bank=0.05)
    started = time.perf_counter()
    outcome = play_match("tussie-mussie", [Sleeper(), RandomBot()], seed=3, time_control=tc)
    assert time.perf_counter() - started < 4, "the loop was interrupted at its deadline"
    assert outcome.result["statuses"] == ["forfeited", "ok"]
    timeouts = [e for e in outcome.log if e.get("fault", "").startswith("timeout")]
    assert len(timeouts) == 3
    assert all(e["source"] == "autopilot" for e in outcome.log[outcome.log.index(timeouts[-1]) + 1:] if e["seat"] == 0)


def test_strict_raises_with_the_message() -> None:
    with pytest.raises(StrictFaultError, match="seat 0.*timeout"):
        play_match("tussie-mussie", [Sleeper(), RandomBot()], seed=3,
                   time_control=TimeControl(0.02, 0.0), strict=True)


def test_hooks_and_own_seed() -> None:
    class Hooked(RandomBot):
        def on_match_start(self, game, seat, options, seed):
            self.started = (game, seat, seed)

        def on_match_end(self, result):
            self.ended = result

    bots = [Hooked(), Hooked()]
    outcome = play_match("tussie-mussie", bots, seed=77)
    assert bots[1].started == ("tussie-mussie", 1, derive_seed(77, "bot", 1))
    assert bots[1].started[2] != 77
    assert bots[0].ended["scores"] == outcome.result["scores"]


def test_decision_is_a_copy() -> None:
    class Vandal(Bot):
        def decide(self, decision):
            choice = dict(decision.legal_actions[0])
            decision.legal_actions.clear()
            decision.observation.clear()
            return choice

    outcome = play_match("tussie-mussie", [Vandal(), RandomBot()], seed=2)
    assert outcome.result["statuses"] == ["ok", "ok"] and not outcome.faults


def test_index_answers_are_accepted() -> None:
    class ByIndex(Bot):
        def decide(self, decision):
            return len(decision.legal_actions) - 1

    outcome = play_match("tussie-mussie", [ByIndex(), RandomBot()], seed=2)
    assert not outcome.faults


def test_bank_is_charged_only_beyond_the_move_limit() -> None:
    clock = SeatClock(TimeControl(move_limit=1.0, bank=2.0))
    assert clock.charge(0.5) and clock.bank == 2.0
    assert clock.charge(2.5) and clock.bank == pytest.approx(0.5)
    assert clock.deadline() == pytest.approx(1.5)
    assert not clock.charge(1.6) and clock.bank == 0.0
