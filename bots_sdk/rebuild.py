"""Any decision of a replay, rebuilt: the messages the referee sent a seat at one step (its match
start and its decision: observation, legal actions and their labels, decision id, clock), from the
replay's header and action log alone, so an author can ask their bot that decision again on their
own machine (``python -m bots_sdk replay decide``).

The rebuild follows the match host's loop (``referee/match.py``, the same on every path): at each
turn the seats to move that are not forfeited are asked at once, decision ids counting up in seat
order; their answers are applied; forfeited seats' autopilots play; the next turn begins. The clock
is the seat's bank charged with each earlier decision's recorded think time, as the host charged it
(a remote seat's lag compensation, which a replay does not record, is not counted).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from parlour.v1 import referee_pb2
from referee import wire
from referee.match import bot_seed
from referee.replay import ReplayError, Resimulation
from referee.timecontrol import SeatClock, TimeControl

from .decision import Decision
from .decision_messages import decision_from_messages

PV = wire.PROTOCOL_VERSION


class RebuildError(Exception):
    """The step or seat names no decision of this replay: one line for the user."""


@dataclass
class RebuiltDecision:
    """One seat's decision at one step, as the referee's messages."""

    step: int  # the step its answer was applied at (1-based, as ``replay show`` numbers the steps)
    start: referee_pb2.MatchStart  # match_id and referee_version are not in a replay: left empty
    decision: referee_pb2.Decision
    played: dict[str, Any]  # the log entry that answered this decision

    def sdk_decision(self) -> Decision:
        """The decision as a bot receives it through the referee."""
        return decision_from_messages(self.start, self.decision)


def rebuild_decision(replay: dict[str, Any], step: int, seat: int | None = None) -> RebuiltDecision:
    """The decision ``seat`` (default: the seat that acted at ``step``) was answering at ``step``
    (1-based): the turn that step belongs to, as the seat was asked it."""
    header, log = replay["header"], replay["log"]
    if not 1 <= step <= len(log):
        raise RebuildError(f"--step must be 1..{len(log)} (the replay has {len(log)} steps)")
    if seat is None:
        seat = log[step - 1]["seat"]
    if not 0 <= seat < header["players"]:
        raise RebuildError(f"--seat must be 0..{header['players'] - 1}")
    if log[step - 1].get("source") == "autopilot" and seat == log[step - 1]["seat"]:
        raise RebuildError(f"step {step} was played by seat {seat}'s autopilot (the seat was forfeited): "
                           "no decision was sent")
    for first, last, asked, make in turns(replay):
        if first <= step <= last:
            if seat not in asked:
                who = ", ".join(map(str, asked))
                raise RebuildError(f"seat {seat} was not asked at step {step} (seats asked then: {who})")
            return make(seat)
    raise RebuildError(f"no decision found at step {step}")  # unreachable: every bot step is in a turn


def all_decisions(replay: dict[str, Any]) -> Iterator[RebuiltDecision]:
    """Every decision of the replay, in the order they were sent (one re-simulation)."""
    for _, _, asked, make in turns(replay):
        for seat in asked:
            yield make(seat)


Maker = Callable[[int], RebuiltDecision]


def turns(replay: dict[str, Any]) -> Iterator[tuple[int, int, list[int], Maker]]:
    """Each turn of the host's loop: its first and last steps (1-based), the seats asked, and a
    function that builds a seat's decision of that turn (valid until the next turn is read)."""
    header, log = replay["header"], replay["log"]
    try:
        sim = Resimulation(header, log)
    except ReplayError as exc:
        raise RebuildError(str(exc)) from None
    control = TimeControl(**header["time_control"])
    clocks = [SeatClock(control) for _ in range(header["players"])]
    state, policy = sim.state, sim.policy
    steps = sim.steps()
    decisions = 0
    position = 0
    while position < len(log):
        if log[position].get("source") == "autopilot":  # forfeited seats play between turns, unasked
            _advance(steps, position)
            position += 1
            continue
        asked = [s for s in state.to_move() if not policy.forfeited[s]]
        ids = {s: decisions + 1 + i for i, s in enumerate(asked)}
        decisions += len(asked)
        turn = log[position: position + len(asked)]
        if sorted(e.get("decision", 0) for e in turn) != sorted(ids.values()):
            raise RebuildError(f"step {position + 1}: the log's decision ids do not follow the host's loop "
                               "(a replay edited by hand?)")

        def make(seat: int, first: int = position, turn: list[dict[str, Any]] = turn,
                 ids: dict[int, int] = ids) -> RebuiltDecision:
            at = next(i for i, e in enumerate(turn) if e["seat"] == seat)  # answers apply in arrival order
            return RebuiltDecision(first + at + 1, _start(header, seat),
                                   _decision(header["game"], state, seat, ids[seat], clocks[seat]), turn[at])

        yield position + 1, position + len(asked), asked, make
        for entry in turn:
            _advance(steps, position)
            _charge(clocks[entry["seat"]], entry)
            position += 1


def _advance(steps, position: int) -> None:
    try:
        next(steps)
    except ReplayError as exc:
        raise RebuildError(f"the replay does not re-simulate at step {position + 1}: {exc}") from None


def _charge(clock: SeatClock, entry: dict[str, Any]) -> None:
    """What the host charged the seat's clock for this answer (``Match.resolve``): a timeout draws
    the bank; an answer (legal or not) is charged its think time; a failure to answer is not."""
    fault = entry.get("fault") or ""
    if fault.startswith("timeout"):
        clock.exhaust()
    elif entry["source"] == "bot" or fault.startswith("illegal"):
        if not clock.charge(entry.get("think_ms", 0.0) / 1000):
            clock.exhaust()


def _start(header: dict[str, Any], seat: int) -> referee_pb2.MatchStart:
    """The match start the seat was sent (as ``referee/admission.py`` builds it)."""
    seeds = header.get("bot_seeds") or [bot_seed(int(header["seed"]), s) for s in range(header["players"])]
    control = header["time_control"]
    return referee_pb2.MatchStart(
        protocol_version=PV, game=header["game"], variant=header["variant"],
        options={k: wire.option_value(v) for k, v in header["options"].items()}, seat=seat,
        players=header["players"], bot_seed=int(seeds[seat]),
        time_control=referee_pb2.TimeControl(move_limit_seconds=control["move_limit"], bank_seconds=control["bank"]),
        engine_version=str(header.get("engine_version", "")),
        seat_attributes={k: str(v) for k, v in header["seats"][seat].get("attributes", {}).items()})


def _decision(game: str, state, seat: int, decision_id: int, clock: SeatClock) -> referee_pb2.Decision:
    """The decision message (as ``referee/match_loop.py`` builds it)."""
    legal = state.legal_actions(seat)
    return referee_pb2.Decision(
        protocol_version=PV, decision_id=decision_id,
        observation=wire.observation_message(game, state.observation(seat)),
        legal_actions=[wire.legal_action(game, a, state.action_label(seat, a)) for a in legal],
        deadline_seconds=clock.deadline(), bank_seconds=clock.bank)
