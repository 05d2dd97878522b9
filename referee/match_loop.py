"""Driving one hosted match, one asyncio task per room: wait for the seats, then ask each decision
of the transport-free ``Match`` (the same host as local play) and apply the answers, until the
match is over; then tell the seats, build and store the replay, and tell the followers.

The clock charges a bot only for its own time (``clock.py``); a lost connection gets the grace
period to resume; every fault is answered by the match's one fault policy, never by stopping the
match for the others.
"""
from __future__ import annotations

import asyncio
import json
import logging
import time

import grpc

from parlour.v1 import referee_pb2

from . import wire
from .clock import LoopLag, Stopwatch
from .faults import bot_failure_reason
from .limits import INBOX_LIMIT
from .match import DecisionRequest, Reply
from .replay_pool import build_replay, store_replay
from .room import Room, Rooms
from .seats import Pending, Seat
from .settings import Settings

PV = wire.PROTOCOL_VERSION
log = logging.getLogger("parlour.referee")


def decision_message(game: str, request: DecisionRequest, observation: wire.SeatObservation) -> wire.DecisionMessage:
    """A decision's message: its fields built in one constructor call, its observation serialized
    from its parts (``wire.SeatObservation``, of the seat's read-only observation: the part a
    window's seats share is spliced in as bytes)."""
    decision = referee_pb2.Decision(
        protocol_version=PV, decision_id=request.decision_id,
        legal_actions=[wire.legal_action(game, a, request.label(a)) for a in request.legal_actions],
        deadline_seconds=request.deadline, bank_seconds=request.bank)
    try:
        observed = observation.serialized()
    except Exception:  # noqa: BLE001 - a value that does not fit its field: the slow way names it (and raises)
        observed = wire.observation_message(game, request.observe()).SerializeToString()
    return wire.DecisionMessage(decision, observed)


class MatchLoop:
    """Plays the rooms' matches with this referee's settings (join timeout, reconnect grace,
    decision cap, replay folder)."""

    def __init__(self, settings: Settings, rooms: Rooms, lag: LoopLag) -> None:
        self.settings = settings
        self.rooms = rooms
        self.lag = lag  # the event loop's own lag, never charged to a bot

    async def run(self, room: Room) -> None:
        match = room.match
        kept = wire.Elements()  # the messages of the views' unchanged parts, from one window to the next
        try:
            await self.wait_for_seats(room)
            room.status = "playing"
            while not match.finished:
                if match.decisions >= self.settings.decision_cap:
                    room.status = f"aborted: decision cap of {self.settings.decision_cap} reached"
                    break
                seats = match.pending()
                requests = {s: match.request(s) for s in seats}
                if len(seats) == 1:  # the usual case: no task and no gather for one seat
                    seat = seats[0]
                    (observation,) = wire.observation_parts(
                        match.config.game, [match.state.read_only_observation(seat)], kept)
                    answers = [await self.ask(room, seat, requests[seat], observation)]
                else:  # a simultaneous window: the seats' views share a table, built and encoded once
                    _, views = match.state.read_only_views(spectator=False)
                    observations = wire.observation_parts(match.config.game, [views[s] for s in seats], kept)
                    answers = await asyncio.gather(*(self.ask(room, s, requests[s], observation)
                                                     for s, observation in zip(seats, observations)))
                arrivals = sorted(zip(seats, answers), key=lambda item: item[1][0])
                replies = [(s, reply) for s, (_, reply) in arrivals]
                for fault in match.submit(replies):  # each applied step's public view: Match.on_step
                    seat = room.seats[fault.seat]
                    seat.send(referee_pb2.RefereeMessage(fault=referee_pb2.FaultNotice(
                        protocol_version=PV, decision_id=fault.decision, reason=fault.reason,
                        strikes=match.policy.strikes[fault.seat], forfeited=fault.forfeited)))
                    if fault.forfeited:  # the autopilot plays on: nothing more is read from this bot
                        seat.forfeit(f"seat {fault.seat} was forfeited ({fault.reason}); the autopilot plays it")
                room.broadcast.publish()  # views in between were not observable live
            if match.finished:
                room.status = "finished"
        except Exception as exc:  # never leave seats hanging on a bug
            log.exception("match %s failed", room.id)
            room.status = f"aborted: {type(exc).__name__}: {exc}"
        await self.finish(room)

    async def wait_for_seats(self, room: Room) -> None:
        """Play starts when every seat joined, or ``join_timeout`` after the first seat joined (or
        ``first_join_timeout`` after creation when none did). The clock starts at the match's first
        connection, not at its creation: a referee busy admitting a thousand matches' seats does not
        charge the seats for its own queue. Absent seats then fault (and are forfeited) like
        disconnected ones."""
        waits = [asyncio.ensure_future(s.attached.wait()) for s in room.seats]
        try:
            done, _ = await asyncio.wait(waits, timeout=self.settings.first_join_timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
            if done:
                await asyncio.wait(waits, timeout=self.settings.join_timeout)
        finally:
            for wait in waits:
                wait.cancel()

    async def ask(self, room: Room, seat_index: int, request: DecisionRequest,
                  observation: wire.SeatObservation) -> tuple[float, Reply]:
        """Send one decision and wait for its answer until the seat's think time (``clock.py``)
        passes the deadline; a lost connection gets the grace period to resume (the decision is
        sent again to the new stream, and the time away is not charged)."""
        seat = room.seats[seat_index]
        match = room.match
        message = decision_message(match.config.game, request, observation)
        watch = Stopwatch(self.lag)
        limit = request.deadline + match.clocks[seat_index].lag_allowance()
        grace = self.settings.grace
        asked = time.monotonic()
        seat.pending = Pending(request.decision_id, message, watch, limit)
        seat.send(message)
        seat.answered.add(request.decision_id)
        stale = 0
        try:
            while True:
                if not seat.attached.is_set():
                    away = time.monotonic()
                    resumed = grace > 0 and await self.await_resume(seat, grace)
                    away = time.monotonic() - away
                    grace -= away
                    if watch.started is not None:
                        watch.exclude(away)
                    if not resumed:
                        return time.monotonic(), Reply(think_time=watch.elapsed(),
                                                       error="disconnected (not resumed within the grace period)")
                    continue  # the new stream was sent the decision
                if watch.started is None:  # not handed to the transport yet (the stream is backed up)
                    wait = limit + self.settings.grace - (time.monotonic() - asked)
                    if wait <= 0:
                        return time.monotonic(), Reply(think_time=limit, error="timeout")
                else:
                    wait = limit - watch.elapsed()
                    if wait <= 0:
                        return time.monotonic(), Reply(think_time=watch.elapsed(), error="timeout")
                try:
                    arrived, lag, item = await seat.inbox.get(wait)
                except TimeoutError:
                    continue  # measured again: the referee's own lag is not the bot's time
                if item is None:  # a stream closed: wait for a resume
                    continue
                think = watch.elapsed(arrived, lag)
                if item == "malformed":
                    return arrived, Reply(think_time=think, error="malformed: the message is not a BotMessage")
                answer = item.answer
                if answer.decision_id < request.decision_id and answer.decision_id in seat.answered:
                    stale += 1  # a late answer to a decision already settled: its fault was counted
                    if stale > INBOX_LIMIT:  # ... but not a stream of them
                        seat.close(None, grpc.StatusCode.RESOURCE_EXHAUSTED,
                                   f"more than {INBOX_LIMIT} answers to decisions already settled")
                    continue
                if answer.decision_id != request.decision_id:
                    return arrived, Reply(think_time=think,
                                          error=f"wrong decision id {answer.decision_id} (expected {request.decision_id})")
                if answer.WhichOneof("choice") == "illegal":  # worded by the match, as in local play
                    return arrived, Reply(returned=answer.illegal[:300], think_time=think, note=answer.note)
                if answer.WhichOneof("choice") == "failure":
                    return arrived, Reply(error=bot_failure_reason(answer.failure), think_time=think)
                if answer.WhichOneof("choice") == "index":
                    return arrived, Reply(action=answer.index, think_time=think, note=answer.note)
                if answer.WhichOneof("choice") == "action":
                    try:
                        return arrived, Reply(action=wire.action_json(answer.action), think_time=think,
                                              note=answer.note)
                    except wire.WireError as exc:
                        return arrived, Reply(think_time=think, error=f"malformed: {exc}")
                return arrived, Reply(think_time=think, error="malformed: an Answer with no choice")
        finally:
            seat.pending = None

    async def await_resume(self, seat: Seat, grace: float) -> bool:
        try:
            await asyncio.wait_for(seat.attached.wait(), grace)
            return True
        except asyncio.TimeoutError:
            return False

    async def finish(self, room: Room) -> None:
        """Tell the seats first (their bots may exit at once), then build and store the replay off
        the event loop, then tell the followers and release the room's memory."""
        match = room.match
        if match.finished:
            result = match.result()
        else:
            result = {"aborted": room.status, "statuses": match.policy.statuses(),
                      "strikes": list(match.policy.strikes)}
        seats = []
        for s in range(match.config.players):
            seats.append(referee_pb2.SeatResult(
                score=float(result["scores"][s]) if "scores" in result else 0.0,
                rank=int(result["ranks"][s]) if "ranks" in result else 0,
                status=match.policy.statuses()[s],
                fault_counts=match.policy.counts[s]))
        room.end_message = referee_pb2.MatchEnd(protocol_version=PV, seats=seats, result_json=json.dumps(result),
                                                status=room.status)
        for seat in room.seats:
            seat.send(referee_pb2.RefereeMessage(end=room.end_message))
        self.rooms.release_tokens(room)
        if match.finished:
            # the public frames the broadcast encoded as play went are the replay's own: not derived twice
            try:
                room.replay_gz, room.bot_logs, room.notes = await build_replay(match, room.versions, room.broadcast.feed.frames)
                await asyncio.to_thread(store_replay, self.settings.replay_dir, room.id, room.replay_gz)
            except Exception:  # never leave the followers hanging: the result stands, without a replay
                log.exception("match %s: the replay could not be built", room.id)
        match.log = []
        match.on_step = None
        room.finished = True
        room.done.set()
        room.broadcast.finish(room.end_message)
        self.rooms.forget_old()
