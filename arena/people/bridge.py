"""The Redis bridge between a person's seat relay (on the worker) and the web.

Per seat of a match, two keys:

- ``parlour:person:<match>:<seat>:decision`` — the decision waiting for the person, as JSON: what
  the referee sent that seat and nothing more (its observation, its legal actions and their
  labels), its id, the person's clock (``clock``: the decision's own seconds, the bank left, when
  each ends) and their latest moves (``moves``: each earlier decision's label, null where the
  fault policy played). Set by the relay, deleted once answered or timed out.
- ``parlour:person:<match>:<seat>:answers`` — a list the web pushes answers on
  (``{"decision_id", "index"}``), which the relay pops.
- ``parlour:person:<match>:<seat>:news`` — a channel the relay publishes on whenever the decision
  key is set or deleted, which the person's page waits on (a long poll, webui/views/people.py).

An answer is checked twice: by the web before it is pushed (a clear message for the person) and by
the relay before it is played (a stale answer, for an earlier decision, is dropped). One answer per
decision: a marker set once (``...:answered:<id>``) refuses a second tab's answer.
"""
from __future__ import annotations

import json
import time
from typing import Any

import redis

KEEP = 24 * 3600  # seconds a seat's keys outlive a worker that died mid-decision
MOVES_SHOWN = 40  # the person's latest moves published with each decision


class PersonAway(Exception):
    """The person did not answer in time: the referee's fault policy plays for them."""


class AnswerRefused(ValueError):
    """An answer the seat cannot take: one line for the person."""


def key(match_id: int, seat: int, part: str) -> str:
    return f"parlour:person:{match_id}:{seat}:{part}"


def news_channel(match_id: int, seat: int) -> str:
    """The channel announcing each change of the seat's waiting decision (one published, one gone)."""
    return key(match_id, seat, "news")


def waiting(connection: redis.Redis, match_id: int, seat: int) -> dict[str, Any] | None:
    """The decision waiting for the person at this seat, or None."""
    raw = connection.get(key(match_id, seat, "decision"))
    return json.loads(raw) if raw else None


def submit(connection: redis.Redis, match_id: int, seat: int, decision_id: int, index: int) -> dict[str, Any]:
    """Hand the person's answer to the relay: the action chosen, or AnswerRefused saying why not
    (no decision waiting, an older one, an index that is no legal action, answered already)."""
    if connection.exists(key(match_id, seat, f"answered:{decision_id}")):
        raise AnswerRefused("this decision was answered already (in another tab?)")
    decision = waiting(connection, match_id, seat)
    if decision is None:
        raise AnswerRefused("no decision is waiting for you at this table")
    if decision["decision_id"] != decision_id:
        raise AnswerRefused("that decision is over: the table has moved on (reload to see where it is)")
    legal = decision["legal_actions"]
    if type(index) is not int or not 0 <= index < len(legal):
        raise AnswerRefused(f"not a legal action: choose one of the {len(legal)} offered")
    if not connection.set(key(match_id, seat, f"answered:{decision_id}"), 1, nx=True, ex=KEEP):
        raise AnswerRefused("this decision was answered already (in another tab?)")
    connection.rpush(key(match_id, seat, "answers"), json.dumps({"decision_id": decision_id, "index": index}))
    connection.expire(key(match_id, seat, "answers"), KEEP)
    return legal[index]


class SeatBridge:
    """The relay's side: publish one decision, wait for its answer, and keep the person's clock.

    The clock is a chess clock's "delay plus bank": each decision has ``seconds`` for free; time
    beyond them is drawn from ``bank``, kept here for the whole match (the relay lives as long as
    the seat). A decision that outlasts both is a timeout: the bank is drawn, as the referee's own
    clock does (``referee/timecontrol.py``), so a person who walked away costs the table their
    bank once, then ``seconds`` a decision until the fault policy's autopilot takes the seat."""

    def __init__(self, connection: redis.Redis, match_id: int, seat: int, seconds: float, bank: float = 0.0) -> None:
        self.connection = connection
        self.match_id, self.seat = match_id, seat
        self.seconds = seconds  # the person's free time for each decision
        self.bank = bank  # seconds left to draw on beyond it, for the rest of the match
        self.moves: list[dict[str, Any]] = []  # what the person played, each decision's label (None: no answer)

    def ask(self, decision: dict[str, Any], room: float | None = None) -> dict[str, Any]:
        """Publish ``decision`` (``decision_id``, ``legal_actions``, ``labels``, ``observation``...)
        with the person's clock, and return the legal action the person chose; PersonAway when no
        answer came in time. ``room``: the seconds the referee allows, which the clock never exceeds."""
        total = self.seconds + self.bank if room is None else min(self.seconds + self.bank, room)
        started = time.time()
        deadline = started + total
        clock = {"seconds": self.seconds, "bank": self.bank, "started": started,
                 "free_until": started + min(self.seconds, total), "deadline": deadline}
        answers = key(self.match_id, self.seat, "answers")
        self.connection.delete(answers)  # answers to earlier decisions are void
        self.connection.set(key(self.match_id, self.seat, "decision"),
                            json.dumps({**decision, "clock": clock, "moves": self.moves[-MOVES_SHOWN:]}), ex=KEEP)
        self.tell()
        try:
            while time.time() < deadline:
                # a second at a time (BLPOP takes whole seconds): a deadline is overshot by less than one
                popped = self.connection.blpop([answers], timeout=1)
                if popped is None:
                    continue
                answer = json.loads(popped[1])
                legal = decision["legal_actions"]
                index = answer.get("index")
                if answer.get("decision_id") == decision["decision_id"] and type(index) is int \
                        and 0 <= index < len(legal):
                    self.charge(time.time() - started)
                    self.moves.append({"decision_id": decision["decision_id"], "label": decision["labels"][index]})
                    return legal[index]
            self.bank = 0.0
            self.moves.append({"decision_id": decision["decision_id"], "label": None})
            raise PersonAway(f"the person did not answer within {total:.0f} s")
        finally:
            self.connection.delete(key(self.match_id, self.seat, "decision"))
            self.tell()

    def charge(self, taken: float) -> None:
        """Draw the time a decision took beyond its free seconds from the bank."""
        self.bank = max(0.0, self.bank - max(0.0, taken - self.seconds))

    def ended(self) -> None:
        """The match is over: nothing waits for the person any more."""
        self.connection.delete(key(self.match_id, self.seat, "decision"), key(self.match_id, self.seat, "answers"))
        self.tell()

    def tell(self) -> None:
        """Wake the person's page: its long poll of the seat's state waits on this channel."""
        self.connection.publish(news_channel(self.match_id, self.seat), json.dumps({"seat": self.seat}))
