"""What any one client may cost the referee: the bounds that keep one bot or spectator from hurting
the matches beside it (``docs/security.md``).

Every bound is per seat, per match or per peer (a peer is a client's network address without its
port; every client of the Unix socket is one peer). Operator calls are not limited. The bounds an
operator may set (the Hello timeout, spectators per match and per peer) are settings
(``referee/settings.py``).
"""
from __future__ import annotations

from collections import Counter
from contextlib import contextmanager
from collections.abc import Iterator

import grpc

MAX_MESSAGE_BYTES = 256 * 1024  # any one message a client sends (an Answer is a few bytes)
INBOX_LIMIT = 8  # a seat's messages read but not yet looked at; beyond it its stream is closed
MAX_STREAMS_PER_CONNECTION = 1000  # concurrent calls on one HTTP/2 connection (clients multiplex seats)
PENDING_CALLS = 20_000  # calls arrived but not yet picked up by the server (see SERVER_OPTIONS)

IDLE_CONNECTION_SECONDS = 300  # PARLOUR_IDLE_CONNECTION_SECONDS's default
HANDSHAKE_SECONDS = 120  # gRPC's own default: the most a connection may take to say it speaks HTTP/2

SERVER_OPTIONS = [
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_concurrent_streams", MAX_STREAMS_PER_CONNECTION),
    # a bot's answers are small: the receive window stays at its default instead of growing to
    # what a flood of large messages would fill (the referee's own sending is not affected)
    ("grpc.http2.bdp_probe", 0),
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.min_recv_ping_interval_without_data_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    # gRPC's core keeps calls the server has not picked up yet in a queue; past 1,000 of them it
    # cancels new ones at random (all of them past 3,000), and any call left there 30 s is cancelled.
    # A thousand matches whose seats all connect at once fill it: that queue, not the match loop,
    # made the CANCELLED/INTERNAL streams at 1,000 matches. The referee bounds its load itself
    # (PARLOUR_MAX_MATCHES refuses new matches with RESOURCE_EXHAUSTED), so the queue may be long.
    ("grpc.server.max_pending_requests", PENDING_CALLS),
    ("grpc.server.max_pending_requests_hard_limit", PENDING_CALLS),
    ("grpc.server_max_unrequested_time_in_server", 120),
]


def server_options(idle_seconds: float = IDLE_CONNECTION_SECONDS) -> list[tuple[str, int]]:
    """SERVER_OPTIONS with the idle bounds: a connection that holds no call for ``idle_seconds`` is
    closed (GOAWAY), and one that never finishes its HTTP/2 handshake (a silent TCP connection, which
    the idle timer does not see) is closed after the shorter of the two; keepalive pings find the
    half-open ones that hold a call."""
    idle_ms = max(1, int(idle_seconds * 1000))
    return SERVER_OPTIONS + [("grpc.max_connection_idle_ms", idle_ms),
                             ("grpc.server_handshake_timeout_ms", min(idle_ms, HANDSHAKE_SECONDS * 1000))]


def peer_of(context: grpc.aio.ServicerContext) -> str:
    """The client's address without its port ("ipv4:10.0.0.7", "ipv6:[::1]", "unix")."""
    peer = context.peer() or ""
    if peer.startswith("unix"):
        return "unix"
    kind, _, address = peer.partition(":")
    host = address.rpartition(":")[0] if address.count(":") and not address.endswith("]") else address
    return f"{kind}:{host}"


def is_remote_peer(context: grpc.aio.ServicerContext) -> bool:
    """A TCP client from another machine (not loopback, not the Unix socket)."""
    peer = peer_of(context)
    return not (peer == "unix" or peer.startswith(("ipv4:127.", "ipv6:[::1]", "ipv6:[::ffff:127.")))


class Quota:
    """Concurrent calls counted per key (a match, a peer)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.counts: Counter[str] = Counter()

    def full(self, key: str) -> bool:
        return self.counts[key] >= self.limit

    @contextmanager
    def held(self, key: str) -> Iterator[None]:
        self.counts[key] += 1
        try:
            yield
        finally:
            self.counts[key] -= 1
            if self.counts[key] <= 0:
                del self.counts[key]


def version_error(version: int, expected: int) -> str | None:
    """Why a message's ``protocol_version`` is refused (None: accepted; 0 means unset)."""
    if version in (0, expected):
        return None
    return (f"protocol_version {version} is not supported: this referee speaks protocol {expected} "
            f"(see docs/protocol.md)")
