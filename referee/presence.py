"""Where remote bots are connected, told to the platform: the interface the referee is given at
start-up (``--presence module:callable``), like the token verifier.

The referee imports no platform code (docs/architecture.md): it calls a presence board, and the arena passes
its own (``arena.fleet.presence_board:PresenceBoard``, in Redis). A board's calls may do I/O; the referee
makes them off its event loop. Standalone, the board is ``NoPresence``: a lone referee answers
``ListConnected`` itself and needs nobody to find its bots.

- ``connected(identity, bot_id)``: a remote bot's connection opened here; the newest connection
  anywhere is the bot's one presence.
- ``disconnected(identity, bot_id)``: its connection here closed (the presence goes, if still ours).
- ``beat(identity, bot_ids) -> bot ids``: every third of ``PARLOUR_PRESENCE_TTL``, this referee is alive with
  these bots; the answer names the bots whose presence a newer connection on another referee
  took: their connection here is closed (one live connection per remote bot, fleet-wide).
- ``address_of(referee_id) -> str | None``: where another referee of the fleet is (to name it to
  a seat that reached the wrong one).

A referee that dies stops beating: its presences expire (``PARLOUR_PRESENCE_TTL``, default 6 s).
"""
from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Callable, Iterable
from typing import Protocol

from .identity import Identity

log = logging.getLogger("parlour.referee")


class Presence(Protocol):
    def connected(self, identity: Identity, bot_id: str) -> None: ...

    def disconnected(self, identity: Identity, bot_id: str) -> None: ...

    def beat(self, identity: Identity, bot_ids: Iterable[str]) -> set[str]: ...

    def address_of(self, referee_id: str) -> str | None: ...


class NoPresence:
    """A lone referee: nothing to tell, nobody else to name."""

    def connected(self, identity: Identity, bot_id: str) -> None:
        pass

    def disconnected(self, identity: Identity, bot_id: str) -> None:
        pass

    def beat(self, identity: Identity, bot_ids: Iterable[str]) -> set[str]:
        return set()

    def address_of(self, referee_id: str) -> str | None:
        return None


def load_presence(spec: str | None) -> Presence:
    """``module:callable`` (a class or factory is called with no arguments), or ``NoPresence``."""
    if not spec:
        return NoPresence()
    module_name, _, attr = spec.partition(":")
    target = getattr(importlib.import_module(module_name), attr)
    return target() if callable(target) and isinstance(target, type) else target


async def tell(call: Callable[..., object], *args: object) -> object:
    """One board call off the event loop; the platform unreachable is logged, never fatal (the
    next beat says it all again)."""
    try:
        return await asyncio.to_thread(call, *args)
    except Exception:  # a presence lost for a beat is better than a referee down
        log.warning("the presence board did not answer", exc_info=True)
        return None


async def keep_presence(presence: Presence, identity: Identity, connected: Callable[[], list[str]],
                        taken: Callable[[str], None], every: float) -> None:
    """Beat every ``every`` seconds for as long as the referee runs; ``taken(bot_id)`` closes a
    connection another referee's newer one replaced."""
    while True:
        elsewhere = await tell(presence.beat, identity, connected())
        for bot_id in elsewhere or ():
            taken(bot_id)
        await asyncio.sleep(every)
