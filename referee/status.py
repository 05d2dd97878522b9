"""Ending a call with a status, without an exception.

``context.abort`` raises ``AbortError``; its traceback holds the handler's frames, which hold the
call's context, which holds the call: a reference cycle, freed only by the garbage collector's next
young collection. The call keeps what the C core buffered for it (up to a whole message from a
bot, 256 KiB) until then; with young collections every 10,000 allocations (``gc_pace``), a bot
opening stream after stream that the referee refuses kept ~100 MiB alive that way. The streams
anyone can open (Play, PlaySeats) end with ``end_call`` and a ``return`` instead: the call is freed
when its handler returns.
"""
from __future__ import annotations

import grpc


def end_call(context: grpc.aio.ServicerContext, code: grpc.StatusCode, reason: str) -> None:
    """The call ends with ``code`` and ``reason`` when its handler returns (the caller returns next)."""
    context.set_code(code)
    context.set_details(reason)
