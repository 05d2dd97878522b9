"""Playing through a referee: one seat over a Play stream, or a remote bot that takes every match
it is offered on a Connect stream."""
from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any

import grpc

from parlour.v1 import referee_pb2, referee_pb2_grpc
from referee import wire

from .bot import Bot
from .decision import Decision
from .output_capture import OutputCapture

PV = wire.PROTOCOL_VERSION


class RefereeError(Exception):
    """The referee refused us (bad token, unknown match): one line for the user."""


def play_seat(make_bot: Callable[[str], Bot], referee: str, seat_token: str,
              capture: OutputCapture | None = None) -> dict[str, Any]:
    """Play one seat until the match ends; returns the result. ``make_bot(game)`` builds the bot
    once the match start says which game it is; with ``capture``, what the bot writes to stdout and
    stderr travels as log lines of the decision it was written during."""
    return asyncio.run(_play_seat(make_bot, referee, seat_token, capture))


async def _play_seat(make_bot: Callable[[str], Bot], referee: str, seat_token: str,
                     capture: OutputCapture | None) -> dict[str, Any]:
    # asyncio gRPC: reads and writes on this one thread, with no hand-off to a sender thread per
    # answer (the synchronous client's request iterator costs a thread wake-up every decision)
    async with grpc.aio.insecure_channel(referee) as channel:  # HOST:PORT or unix:PATH
        stub = referee_pb2_grpc.RefereeStub(channel)
        call = stub.Play()
        bot: Bot | None = None
        start: referee_pb2.MatchStart | None = None
        forfeited: referee_pb2.FaultNotice | None = None
        try:
            await call.write(referee_pb2.BotMessage(hello=referee_pb2.Hello(protocol_version=PV, seat_token=seat_token)))
            while True:
                message = await call.read()
                if message is grpc.aio.EOF:
                    if forfeited is not None:  # the referee closes a forfeited seat's stream
                        return {"forfeited": True, "reason": forfeited.reason}
                    break
                kind = message.WhichOneof("message")
                if kind == "start":
                    start = message.start
                    if bot is None:
                        try:
                            bot = make_bot(start.game)
                            options = {k: wire.option_python(v) for k, v in start.options.items()}
                            bot.start(start.game, start.seat, options, start.bot_seed)
                        except Exception as exc:  # the owner reads why in the match's log lines
                            lines = (capture.take() if capture else []) + [
                                f"the bot failed to start: {type(exc).__name__}: {exc}"]
                            for line in lines:
                                await call.write(referee_pb2.BotMessage(log=referee_pb2.LogLine(
                                    protocol_version=PV, decision_id=0, text=line)))
                            await call.done_writing()  # the referee reads the lines, then our end
                            try:
                                await asyncio.wait_for(_drain(call), 5)
                            except (asyncio.TimeoutError, grpc.RpcError):
                                pass
                            raise
                elif kind == "decision":
                    await call.write(answer(bot, start, message.decision))
                    lines = bot.take_log_lines() + (capture.take() if capture else [])
                    for line in lines:
                        await call.write(referee_pb2.BotMessage(log=referee_pb2.LogLine(
                            protocol_version=PV, decision_id=message.decision.decision_id, text=line)))
                elif kind == "fault" and message.fault.forfeited:
                    forfeited = message.fault
                elif kind == "end":
                    result = json.loads(message.end.result_json)
                    try:
                        bot.on_match_end(result)
                    finally:
                        await call.done_writing()
                    return result
        except grpc.RpcError as exc:
            raise RefereeError(f"referee {referee}: {exc.code().name}: {exc.details()}") from None
    raise RefereeError("the referee closed the stream before the match ended")


async def _drain(call) -> None:
    while await call.read() is not grpc.aio.EOF:
        pass


def answer(bot: Bot, start: referee_pb2.MatchStart, decision: referee_pb2.Decision) -> referee_pb2.BotMessage:
    """Ask the bot; answer with the index of its action (or the action itself if it is not in
    the list, which the referee then refuses with a reason)."""
    legal = [wire.action_json(a.action) for a in decision.legal_actions]
    labels = [a.label for a in decision.legal_actions]
    options = {k: wire.option_python(v) for k, v in start.options.items()}
    view = Decision(
        game=start.game, variant=start.variant, seat=start.seat, players=start.players, options=options,
        legal_actions=[dict(a) for a in legal], decision_id=decision.decision_id,
        time_left=decision.deadline_seconds,
        _observe=lambda: wire.observation_json(decision.observation), _labels=labels)
    reply = referee_pb2.Answer(protocol_version=PV, decision_id=decision.decision_id)
    try:
        choice = bot.decide(view)
    except Exception as exc:
        bot.log(f"decide raised {type(exc).__name__}: {exc}")
        choice = None  # an answer with no choice: the referee applies the fault policy
    if isinstance(choice, int) and not isinstance(choice, bool):
        reply.index = max(choice, 0)
    elif isinstance(choice, dict) and choice in legal:
        reply.index = legal.index(choice)
    elif isinstance(choice, dict):
        try:
            reply.action.CopyFrom(wire.action_message(start.game, choice))
        except wire.WireError as exc:
            bot.log(f"answer does not fit the protocol: {exc}")
    return referee_pb2.BotMessage(answer=reply)


def serve_remote(make_bot: Callable[[str], Bot], referee: str, api_token: str,
                 on_offer: Callable[[referee_pb2.MatchOffer], None] | None = None,
                 max_matches: int | None = None) -> None:
    """Stay connected and play every match offered (each in its own thread)."""
    with grpc.insecure_channel(referee) as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)
        threads = []
        try:
            for offer in stub.Connect(referee_pb2.ConnectRequest(protocol_version=PV, api_token=api_token)):
                if not offer.match_id:
                    print(f"connected as {offer.bot_id}", flush=True)
                    continue
                if on_offer:
                    on_offer(offer)
                thread = threading.Thread(target=play_seat, args=(make_bot, referee, offer.seat_token), daemon=True)
                thread.start()
                threads.append(thread)
                if max_matches is not None and len(threads) >= max_matches:
                    break
        except grpc.RpcError as exc:
            raise RefereeError(f"referee {referee}: {exc.code().name}: {exc.details()}") from None
        for thread in threads:
            thread.join()
