"""The referee's settings: every environment variable the referee reads, declared once with its type,
default and one line of doc (``RefereeEnvironment``; docs/settings.md is generated from it), and one
referee process's settings, resolved at start-up from its command line and that environment
(``settings_from_env``, for ``python -m referee serve``).

Referee code reads the environment only through ``environment()``, when it needs a value (so a
test's ``monkeypatch.setenv`` is seen); the platform's processes read the values they share with
the referee (the decision cap, the join timeout, the operator token, the seed key) from their Django
settings, which ``parlour_site/settings.py`` fills from this same declaration.
"""
from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path

import environ

from .log_budget import RATE as LOG_RATE  # the SDK keeps to the same default
from .presence import Presence, load_presence
from .tokens import Verifier, load_verifier


def _secret(value: str | bytes | None) -> bytes | None:
    """A secret key as bytes; unset or empty is None."""
    if isinstance(value, str):
        value = value.encode()
    return value or None


@environ.config(prefix="PARLOUR")
class RefereeEnvironment:
    """The referee (`python -m referee serve`). The platform's processes read the values they share
    with it from here too (decision cap, join timeout, operator token, seed key), and local play
    (`parlour-play`) its log bound."""

    operator_token: str = environ.var("", help="the operator credential that CreateMatch and ListConnected "
                                                          "require (unset: nobody may call them)")
    api_tokens: str = environ.var("", help="the hashed-token file of the default verifier of remote bots' API tokens")
    seed_key: bytes | None = environ.var(
        None, converter=_secret, help="the platform's secret for bot seeds and tournament match seeds "
                                      "(unset: the platform's commands make one, kept in PARLOUR_HOME/seed_key; "
                                      "local play uses the public derivation)")
    join_timeout: float = environ.var(30.0, converter=float,
                                      help="seconds the other seats have to join once a match's first seat "
                                           "joined, before play starts anyway")
    first_join_timeout: float = environ.var(120.0, converter=float,
                                            help="seconds a new match waits for its first seat (then play starts "
                                                 "anyway, every seat absent)")
    max_matches: int = environ.var(1500, converter=int,
                                   help="matches under way at once; beyond it CreateMatch is refused with "
                                        "RESOURCE_EXHAUSTED (the arena tries again later)")
    reconnect_grace: float = environ.var(5.0, converter=float,
                                         help="seconds a disconnected seat has to resume before it is forfeited")
    decision_cap: int = environ.var(100_000, converter=int,
                                    help="decisions per match before a runaway match is aborted")
    hello_timeout: float = environ.var(10.0, converter=float, help="seconds a Play stream has to send its Hello")
    watchers_per_match: int = environ.var(64, converter=int,
                                          help="anonymous WatchMatch and GetReplay calls at once per match")
    spectator_calls_per_peer: int = environ.var(32, converter=int,
                                                help="the same anonymous calls at once per peer (address without port)")
    spectator_calls_per_identity: int = environ.var(32, converter=int,
                                                    help="WatchMatch and GetReplay calls at once per bot API token "
                                                         "(an authenticated caller is not limited by its address)")
    spectator_calls: int = environ.var(2048, converter=int,
                                       help="WatchMatch and GetReplay calls at once on this referee, everyone's but "
                                            "the operator's")
    idle_connection_seconds: float = environ.var(
        300.0, converter=float, help="seconds a connection may hold no call before the referee closes it "
                                     "(and the most a silent TCP connection is kept before its HTTP/2 handshake)")
    presence_ttl: float = environ.var(6.0, converter=float,
                                      help="seconds a remote bot's presence outlives its referee's last beat")
    token_recheck: float = environ.var(2.0, converter=float,
                                       help="seconds between checks of a connected remote bot's API token")
    log_limit_kb: int = environ.var(64, converter=int, help="KiB of log lines kept per seat per match")
    log_lines_per_second: float = environ.var(LOG_RATE, converter=float,
                                              help="log lines a seat may send a second (a burst of five "
                                                   "seconds' worth); more are dropped, ten times more cut "
                                                   "its stream")
    gc_young: int = environ.var(10_000, converter=int, help="net allocations between young-generation "
                                                            "collections in long-running processes (0: CPython's)")
    replay_processes: int = environ.var(0, converter=int,
                                        help="processes that build finished replays (0: one per core)")
    keep_finished: int = environ.var(500, converter=int, help="finished matches kept for GetReplay")
    exit_with_parent: bool = environ.bool_var(False, help="stop when the parent process dies (set for the "
                                                          "private referee a command starts)")
    referee_id: str = environ.var("", name="REFEREE_ID", help="this referee's name in a fleet "
                                                                 "(unset: the host name; `--id` wins)")
    advertise: str = environ.var("", name="REFEREE_ADVERTISE",
                                 help="HOST:PORT the seats of this referee's matches connect to "
                                      "(unset: the host name and bound port; `--advertise` wins)")
    host_name: str = environ.var("", name="HOSTNAME",
                                 help="this machine's name (a container's; unset: the system's host name)")


def environment() -> RefereeEnvironment:
    """The referee's settings from the environment as it is now."""
    return RefereeEnvironment.from_environ()


@dataclass
class Settings:
    """One referee process's settings: the environment's and the command line's, resolved once."""

    operator_token: str
    join_timeout: float
    grace: float
    decision_cap: int
    host_name: str
    verifier: Verifier | None = None
    replay_dir: Path | None = None
    referee_id: str = ""  # the fleet's names for this referee (referee/identity.py)
    advertise: str = ""
    presence: Presence | None = None
    seed_key: bytes | None = None  # the platform's secret for bot seeds (PARLOUR_SEED_KEY)
    first_join_timeout: float = 120.0
    max_matches: int = 1500
    idle_connection_seconds: float = 300.0  # PARLOUR_IDLE_CONNECTION_SECONDS


def settings_from_env(verifier_spec: str | None, replay_dir: str | None, referee_id: str | None = None,
                      advertise: str | None = None, presence_spec: str | None = None) -> Settings:
    env = environment()
    return Settings(
        referee_id=referee_id or env.referee_id, advertise=advertise or env.advertise,
        host_name=env.host_name or socket.gethostname(), presence=load_presence(presence_spec),
        operator_token=env.operator_token,
        verifier=load_verifier(verifier_spec, env.api_tokens),
        join_timeout=env.join_timeout,
        first_join_timeout=env.first_join_timeout,
        max_matches=env.max_matches,
        idle_connection_seconds=env.idle_connection_seconds,
        grace=env.reconnect_grace,
        decision_cap=env.decision_cap,
        replay_dir=Path(replay_dir) if replay_dir else None,
        seed_key=env.seed_key,
    )
