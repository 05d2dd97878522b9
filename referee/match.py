"""Hosting one match: asking seats, applying the fault policy and time control, keeping the log.

Transport-free: in-process play (``bots_sdk.local``) and the gRPC referee both drive a ``Match``,
so a match gives the same results and the same action log on both paths (only timings differ).

The loop a host runs::

    while not match.finished:
        seats = match.pending()                     # bots to ask now (autopilots play themselves)
        replies = [(seat, ask(match.request(seat))) for seat in seats]
        match.submit(replies)                       # in arrival order
"""
from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .faults import Fault, FaultPolicy, illegal_reason, timeout_reason
from .games import GameDescription, GameState, MatchConfig
from .clock import LagQuota
from .games.seeding import derive_seed, keyed_seed, stream
from .log_text import printable
from .plain import describe, is_plain
from .timecontrol import SeatClock, TimeControl

# what a seat's log lines (its ``log`` calls and its captured output) may hold in one match
LOG_LINE_LIMIT = 2000  # characters of one line
# a decision's note (docs/protocol.md, "Decision notes"): bytes of JSON of one note, and of one seat's
# notes in one match (a 4-player Bszzzz! match asks a seat ~700 decisions: 200-byte notes fit)
NOTE_LIMIT = 1024
NOTE_BUDGET = 512 * 1024

Action = dict[str, Any]


class StrictFaultError(Exception):
    """Raised instead of applying the fault policy when a match is run with ``strict=True``."""

    def __init__(self, fault: Fault, message: str) -> None:
        super().__init__(message)
        self.fault = fault


@dataclass
class Reply:
    """A bot's answer: an action (its JSON form, or its index in the legal list) or an error."""

    action: Action | int | None = None
    think_time: float = 0.0
    error: str | None = None  # "timeout", "crash: ...", "failed to import: ...", "disconnected"
    log_lines: list[str] = field(default_factory=list)
    returned: str | None = None  # what the bot returned, as text, when the transport carried no action
    note: str = ""  # the bot's note on this decision, JSON text (kept for its owner, never read by the rules)


@dataclass
class DecisionRequest:
    """What a seat is sent for one decision; ``observe``/``label`` are built on demand."""

    decision_id: int
    seat: int
    legal_actions: list[Action]  # the engine's own list: read-only
    deadline: float  # seconds this decision may take in all
    bank: float  # seconds left in the seat's bank
    observe: Callable[[], dict[str, Any]]
    label: Callable[[Action], str]


def bot_seed(seed: int, seat: int, key: bytes | None = None) -> int:
    """A seat's own bot seed, revealing nothing about the cards. With the platform's secret ``key``
    it is an HMAC of the match seed, so no bot can invert it even when the seed is small; without
    one (local play) it is a public hash, so a match is reproducible from its seed alone."""
    if key:
        return keyed_seed(key, seed, "bot", seat)
    return derive_seed(seed, "bot", seat)


class Match:
    def __init__(
        self,
        game: GameDescription,
        config: MatchConfig,
        seed: int,
        time_control: TimeControl | None = None,
        *,
        strict: bool = False,
        bot_names: list[str] | None = None,
        seed_key: bytes | None = None,
        remote_seats: list[bool] | None = None,
    ) -> None:
        self.game = game
        self.config = config
        self.seed = seed
        self.time_control = time_control or TimeControl()
        self.strict = strict
        self.bot_names = bot_names or [f"seat {s}" for s in range(config.players)]
        self.state: GameState = game.new_state(config, seed)
        self.policy = FaultPolicy(config.players)
        remote = remote_seats or [False] * config.players  # remote seats get lag compensation
        self.clocks = [SeatClock(self.time_control, LagQuota() if remote[s] else None)
                       for s in range(config.players)]
        self.bot_seeds = [bot_seed(seed, s, seed_key) for s in range(config.players)]
        self.autopilots = [stream(seed, "autopilot", s) for s in range(config.players)]
        self.log: list[dict[str, Any]] = []
        self.faults: list[Fault] = []
        self.bot_logs: list[dict[str, Any]] = []
        self.log_bytes = [0] * config.players  # per seat, against log_limit
        self.notes: list[dict[str, Any]] = []
        self.note_bytes = [0] * config.players  # per seat, against NOTE_BUDGET
        # imported here, not at the top: every bot process imports this module (the SDK's), and only
        # a match host reads the settings
        from .settings import environment

        self.log_limit = environment().log_limit_kb * 1024
        self.decisions = 0
        self.asked: dict[int, int] = {}  # seat -> id of the decision it was last asked
        # called after every applied action (a host that streams frames sets it; None costs nothing)
        self.on_step: Callable[[], None] | None = None
        self.play_autopilots()

    def add_bot_log(self, seat: int, decision: int, line: str, note: bool = False) -> None:
        """Keep a bot's log line (its own or its captured output) within the seat's budget; a
        ``note`` of the referee's own (lines dropped, a stream closed) up to twice the budget."""
        used = self.log_bytes[seat]
        if used > self.log_limit * (2 if note else 1):
            return
        if note:
            self.log_bytes[seat] = used + len(line) + 1
            self.bot_logs.append({"seat": seat, "decision": decision, "step": len(self.log), "line": line})
            return
        line = printable(line[:LOG_LINE_LIMIT])[:LOG_LINE_LIMIT]  # no terminal escape reaches a page or terminal
        self.log_bytes[seat] = used + len(line) + 1
        if self.log_bytes[seat] > self.log_limit:
            line = f"[over {self.log_limit} bytes of log lines in this match: the rest is dropped]"
        self.bot_logs.append({"seat": seat, "decision": decision, "step": len(self.log), "line": line})

    def add_note(self, seat: int, decision: int, text: str) -> None:
        """Keep a bot's note on a decision: a JSON object of at most NOTE_LIMIT bytes, within the
        seat's NOTE_BUDGET for the match; else the reason it was dropped, in its place. Only the
        replay holds it: nothing the match does reads it."""
        used = self.note_bytes[seat]
        if used > NOTE_BUDGET:
            return
        size = len(text.encode())
        note: Any = None
        if size <= NOTE_LIMIT:
            try:
                note = json.loads(text)
            except ValueError:
                pass
        if size > NOTE_LIMIT:
            note = {"dropped": f"a note of {size} bytes, over the limit of {NOTE_LIMIT}"}
        elif not isinstance(note, dict):
            note = {"dropped": "the note is not a JSON object"}
        self.note_bytes[seat] = used + size
        if self.note_bytes[seat] > NOTE_BUDGET:
            note = {"dropped": f"over {NOTE_BUDGET} bytes of notes in this match: the rest is dropped"}
        self.notes.append({"seat": seat, "decision": decision, "step": len(self.log), "note": note})

    # ------------------------------------------------------------------ the loop
    @property
    def finished(self) -> bool:
        return self.state.is_terminal()

    def pending(self) -> list[int]:
        """Seats whose bots must be asked now."""
        return [s for s in self.state.to_move() if not self.policy.forfeited[s]]

    def request(self, seat: int) -> DecisionRequest:
        self.decisions += 1
        self.asked[seat] = self.decisions
        state = self.state
        return DecisionRequest(
            decision_id=self.decisions,
            seat=seat,
            legal_actions=state.legal_actions(seat),  # the engine's: read-only (local play copies)
            deadline=self.clocks[seat].deadline(),
            bank=self.clocks[seat].bank,
            observe=lambda: state.observation(seat),
            label=lambda action: state.action_label(seat, action),
        )

    def submit(self, replies: list[tuple[int, Reply]]) -> list[Fault]:
        """Apply the replies of the seats asked, in arrival order; faults get the default action."""
        faults = []
        if not self.state.arrival_order_matters():
            replies = sorted(replies, key=lambda item: item[0])
        for seat, reply in replies:
            decision = self.asked.pop(seat, self.decisions)
            for line in reply.log_lines:
                self.add_bot_log(seat, decision, line)
            if reply.note:
                self.add_note(seat, decision, reply.note)
            action, fault = self.resolve(seat, reply, decision)
            entry = {"seat": seat, "decision": decision, "action": action,
                     "think_ms": round(reply.think_time * 1000, 3)}
            if fault is None:
                entry["source"] = "bot"
            else:
                entry.update(source="default", fault=fault.reason)
                faults.append(fault)
            self.state.apply(seat, action)
            self.log.append(entry)
            if self.on_step is not None:
                self.on_step()
        self.play_autopilots()
        return faults

    def resolve(self, seat: int, reply: Reply, decision: int) -> tuple[Action, Fault | None]:
        """The action to apply for a reply, and the fault when there was one."""
        legal = self.state.legal_actions(seat)
        reason = reply.error
        bank = self.clocks[seat].bank  # before this decision, for a timeout's reason
        if reason is None and not self.clocks[seat].charge(reply.think_time):
            reason = "timeout"
        if reason is not None and reason.startswith("timeout"):
            reason = timeout_reason(self.time_control.move_limit, bank)
            self.clocks[seat].exhaust()  # the bank is drawn: a silent seat stalls its table once
        if reason is None:
            action = reply.action
            # exact types only (referee.plain): no subclass's __eq__ or __index__ runs in the comparison
            if reply.returned is None and type(action) is int:
                if 0 <= action < len(legal):
                    return legal[action], None
            elif reply.returned is None and type(action) is dict and is_plain(action) and action in legal:
                return next(a for a in legal if a == action), None
        returned = reply.returned if reply.returned is not None else describe(reply.action)
        if reason is None:
            reason = illegal_reason(returned[:300], len(legal))
        forfeited = self.policy.strike(seat, reason)
        own = 1 + sum(1 for e in self.log if e["seat"] == seat and "decision" in e)  # the bot's own count
        fault = Fault(seat, decision, reason, returned[:300], forfeited, own)
        if self.strict:  # with what the bot said during that decision (a crash's traceback)
            lines = [e["line"] for e in self.bot_logs if e["seat"] == seat and e["decision"] == decision]
            raise StrictFaultError(fault, "\n".join([fault.message(self.bot_names[seat]), *lines]))
        self.faults.append(fault)
        return self.state.default_action(seat), fault

    def play_autopilots(self) -> None:
        """Forfeited seats play uniformly at random from their own stream, without being asked."""
        state = self.state
        while not state.is_terminal():
            seats = [s for s in state.to_move() if self.policy.forfeited[s]]
            if not seats:
                return
            for seat in seats:
                action = autopilot_choice(self.autopilots[seat], state.legal_actions(seat))
                state.apply(seat, action)
                self.log.append({"seat": seat, "action": action, "think_ms": 0.0, "source": "autopilot"})
                if self.on_step is not None:
                    self.on_step()

    def result(self) -> dict[str, Any]:
        result = dict(self.state.result())
        result["statuses"] = self.policy.statuses()
        result["strikes"] = list(self.policy.strikes)
        result["fault_counts"] = [dict(c) for c in self.policy.counts]
        return result


def autopilot_choice(rng: random.Random, legal: list[Action]) -> Action:
    return legal[rng.randrange(len(legal))]
