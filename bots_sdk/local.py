"""Local matches: bots in this process, on the same match host as the referee."""
from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from referee.faults import Fault
from referee.games import GameDescription, get_game
from referee.games.seeding import draw_seed
from referee.match import DecisionRequest, Match, Reply, bot_seed
from referee.replay import build_replay
from referee.timecontrol import TimeControl

from .bot import Bot
from .decision import Decision
from .failure import failure_report


class DecisionTimeout(BaseException):
    """Raised inside a bot that overran its deadline (a BaseException, so ``except Exception``
    in the bot does not swallow it)."""


@dataclass
class MatchOutcome:
    seed: int
    bots: list[str]
    result: dict[str, Any]
    log: list[dict[str, Any]]
    faults: list[Fault]
    match: Match

    def replay(self) -> dict[str, Any]:
        return build_replay(self.match)


def ask_bot(bot: Bot, request: DecisionRequest, game: str, variant: str, players: int,
            options: dict[str, Any], enforce_deadline: bool = True) -> Reply:
    """Call ``bot.decide`` on a copy of the request; a crash or an overrun becomes an error reply.

    In the main thread the deadline interrupts a bot stuck in a loop (SIGALRM); elsewhere the
    overrun is measured and the answer discarded afterwards.
    """
    decision = Decision(
        game=game, variant=variant, seat=request.seat, players=players, options=dict(options),
        legal_actions=[dict(a) for a in request.legal_actions], decision_id=request.decision_id,
        time_left=request.deadline, _observe=request.observe, _label=request.label,
    )
    use_alarm = enforce_deadline and threading.current_thread() is threading.main_thread()
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _raise_timeout)
        signal.setitimer(signal.ITIMER_REAL, request.deadline)
    start = time.perf_counter()
    error = None
    action = None
    details: list[str] = []
    try:
        action = bot.decide(decision)
    except DecisionTimeout:
        error = "timeout"  # the match words it, with the limit and the bank that was left
    except Exception as exc:  # noqa: BLE001 - the fault policy handles a crashing bot
        error, details = failure_report(exc)
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    think = time.perf_counter() - start
    return Reply(action=action, think_time=think, error=error, log_lines=bot.take_log_lines() + details,
                 note=decision.note_text() if error is None else "")


def _raise_timeout(signum: int, frame: Any) -> None:
    raise DecisionTimeout()


def play_match(
    game: str | GameDescription,
    bots: list[Bot],
    *,
    variant: str | None = None,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    seats: list[dict[str, Any]] | None = None,
    time_control: TimeControl | None = None,
    strict: bool = False,
    bot_names: list[str] | None = None,
    on_fault: Callable[[Fault, str], None] | None = None,
) -> MatchOutcome:
    """Play one match in-process; every bot gets its own seed derived from the match seed."""
    description = get_game(game) if isinstance(game, str) else game
    config = description.configure(len(bots), variant, options, seats)
    seed = draw_seed() if seed is None else seed
    names = bot_names or [b.name or type(b).__name__ for b in bots]
    match = Match(description, config, seed, time_control, strict=strict, bot_names=names)
    for seat, bot in enumerate(bots):
        bot.start(config.game, seat, dict(config.options), bot_seed(seed, seat))
    while not match.finished:
        replies = []
        for seat in match.pending():
            request = match.request(seat)
            reply = ask_bot(bots[seat], request, config.game, config.variant, config.players, config.options)
            replies.append((seat, reply))
        # simultaneous answers arrive in the order of their think times
        replies.sort(key=lambda item: item[1].think_time)
        for fault in match.submit(replies):
            if on_fault:
                on_fault(fault, fault.message(names[fault.seat]))
    result = match.result()
    for bot in bots:
        try:
            bot.on_match_end(dict(result))
        except Exception:  # noqa: BLE001 - a bot's end hook cannot change a finished match
            pass
    return MatchOutcome(seed, names, result, match.log, match.faults, match)
