"""Who a referee is in a fleet: its id and the address every seat of its matches must use.

Several referees may stand behind one service name (``referee:50051``); a match lives in the
memory of the one that created it. So each referee has an id (``--id``, else ``REFEREE_ID``, else
the host name: a container's is unique per replica) and an advertised address (``--advertise
HOST:PORT``, else ``REFEREE_ADVERTISE``, else the host name and the bound port). ``CreateMatch``
answers with both, and every seat token carries the id: a token presented to another referee is
refused with FAILED_PRECONDITION naming the right one (docs/deploy.md).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

TOKEN_SEPARATOR = "."  # a seat token is "<secret hex>.<referee id>"


@dataclass(frozen=True)
class Identity:
    """One referee of the fleet."""

    id: str
    address: str  # host:port as the bots and workers reach it

    def seat_token(self, secret: str) -> str:
        return f"{secret}{TOKEN_SEPARATOR}{self.id}"


def clean_id(raw: str) -> str:
    """An id usable in a queue name and a token: letters, digits, '-' and '_' only."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "-", raw).strip("-")
    if not cleaned:
        raise ValueError(f"a referee id needs letters or digits: {raw!r}")
    return cleaned


def resolve(referee_id: str, advertise: str, host: str, bound_port: int | None, host_name: str) -> Identity:
    """The identity from the settings (the command line's, else the environment's: REFEREE_ID,
    REFEREE_ADVERTISE), or the host name and bound port."""
    chosen = clean_id(referee_id or host_name)
    address = advertise
    if not address:
        if bound_port is None:
            address = ""  # Unix socket only: nobody outside this machine can be sent here
        else:
            reachable = host if host not in ("0.0.0.0", "::", "[::]", "") else host_name
            address = f"{reachable}:{bound_port}"
    elif ":" not in address:
        raise ValueError(f"--advertise wants HOST:PORT, not {address!r}")
    return Identity(chosen, address)


def holder_of(seat_token: str) -> str:
    """The id of the referee a seat token belongs to ("" for a token of no known shape)."""
    _, separator, referee_id = seat_token.rpartition(TOKEN_SEPARATOR)
    return referee_id if separator else ""
