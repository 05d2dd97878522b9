"""The arena's settings: every environment variable the platform's processes (a Celery worker,
beat, the ``python -m arena`` commands) read for the arena, declared once with its type, default and
one line of doc (docs/settings.md is generated from it).

These are Django processes: ``parlour_site/settings.py`` reads this declaration once and makes each
variable a Django setting of the same name, so arena code reads ``django.conf.settings.PARLOUR_...``
(tests override one with pytest-django's ``settings`` fixture). A command that starts a private
platform changes a few for itself and its children alike (``arena.fleet.processes.shared``).
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import environ


def _path(value: str | Path) -> Path:
    return Path(value).expanduser()


def _optional_path(value: str | Path | None) -> Path | None:
    return Path(value).expanduser() if value else None


def _optional_int(value: str | int | None) -> int | None:
    return int(value) if value not in (None, "") else None


def _optional_float(value: str | float | None) -> float | None:
    return float(value) if value not in (None, "") else None


def _names(value: str | list[str] | None) -> list[str] | None:
    """A comma-separated list of names; unset is None (the caller's "all")."""
    return value.split(",") if isinstance(value, str) else value


@environ.config(prefix="PARLOUR")
class ArenaEnvironment:
    """The platform's processes: a Celery worker, beat, the `python -m arena` commands, and the web,
    which runs the arena's queries and reads its live frames."""

    home: Path = environ.var("~/.parlour", converter=_path,
                             help="the platform's own folder (database, secret key, replays, uploads), "
                                  "outside the repository tree")
    database_url: str = environ.var("", name="DATABASE_URL",
                                    help="the database (e.g. postgres://...; unset: SQLite in PARLOUR_HOME)")
    redis_url: str = environ.var("", name="REDIS_URL", help="the Celery broker and the live frames' Redis "
                                                            "(unset: the commands start a private one)")
    replay_dir: Path | None = environ.var(None, converter=_optional_path,
                                          help="where replays are stored (unset: PARLOUR_HOME/replays)")
    upload_dir: Path | None = environ.var(None, converter=_optional_path,
                                          help="where uploaded bots' files are kept (unset: PARLOUR_HOME/uploads)")
    referee_address: str = environ.var("", name="REFEREE_ADDRESS", help="HOST:PORT of the referee service "
                                                                        "matches are created on")
    referee_socket: str = environ.var("", help="the referee's Unix socket, when it runs on this machine "
                                               "(sandboxed bots reach it through a relay)")
    workers: int | None = environ.var(None, converter=_optional_int,
                                      help="matches a worker plays at once (unset: four per usable core)")
    worker_referee: str = environ.var("", help="a referee id whose queue this worker serves besides the "
                                               "default one")
    thinking_matches: int | None = environ.var(None, converter=_optional_int,
                                               help="matches with a thinking bot a worker plays at once "
                                                    "(unset: one per usable core)")
    sandbox_registry: Path | None = environ.var(None, converter=_optional_path,
                                                help="the machine's record of live sandboxes, for the reaper "
                                                     "(unset: parlour-sandboxes in the temporary folder)")
    sandbox_reuse_matches: int = environ.var(25, converter=int,
                                             help="matches an uploaded version's sandbox plays before it is replaced")
    sandbox_reuse_minutes: float = environ.var(10.0, converter=float,
                                               help="minutes a sandbox lives before it is replaced")
    house_reuse_matches: int = environ.var(2000, converter=int,
                                           help="matches (seats, for a shared one) a house bot's process plays")
    idle_bots: int = environ.var(4, converter=int, help="idle one-seat bots a pool process keeps between matches")
    ladder_games: list[str] | None = environ.var(None, converter=_names,
                                                 help="comma-separated games with a ladder (unset: every game)")
    ladder_house_bots: list[str] | None = environ.var(None, converter=_names,
                                                      help="comma-separated house bots put on the ladders "
                                                           "(unset: all)")
    ladder_open: int = environ.var(2, converter=int, help="unrecorded matches each ladder keeps open")
    ladder_every: float = environ.var(10.0, converter=float, help="seconds between beat's ladder ticks")
    fit_every: float = environ.var(300.0, converter=float, help="seconds between the ladders' rating fits")
    reconcile_every: float = environ.var(10.0, converter=float, help="seconds between the reconciler's runs")
    reconcile_grace: float = environ.var(20.0, converter=float,
                                         help="seconds a due match may be missing from the queue before it is sent again")
    live_frame_cap: int = environ.var(20_000, converter=int, help="a live match's frames kept in Redis")
    live_keep_seconds: int = environ.var(120, converter=int,
                                         help="seconds a finished match's live frames stay in Redis")
    platform_failures: int = environ.var(60, converter=int,
                                         help="platform failures (referee, Redis away) before a match is aborted")
    retry_first_delay: float = environ.var(1.0, converter=float,
                                           help="seconds before a failed match's first retry (doubling after)")
    retry_max_delay: float = environ.var(60.0, converter=float, help="the longest delay between retries")
    match_time_limit: float | None = environ.var(None, converter=_optional_float,
                                                 help="seconds any match may take at most (unset: the longest "
                                                      "its time control allows)")
    visibility_timeout: int | None = environ.var(None, converter=_optional_int,
                                                 help="the broker's visibility timeout in seconds (unset: above "
                                                      "the longest possible match)")
    heartbeat_ttl: float = environ.var(10.0, converter=float,
                                       help="seconds a worker's heartbeat lasts without a new beat")
    stall_notice: float = environ.var(60.0, converter=float,
                                      help="seconds without a match finished before `tournament run` / "
                                           "`ladder run` say why (no live worker, referee unreachable, ...)")
    restore_interval: int = environ.var(10, converter=int, help="seconds between workers' looks for "
                                                                "unacknowledged tasks past the visibility timeout")
    restore_throttle: int = environ.var(10, converter=int, help="the same look's throttle (kombu's)")
    webhook_attempts: int = environ.var(5, converter=int, help="attempts to deliver a webhook before it is failed")
    webhook_first_delay: float = environ.var(30.0, converter=float,
                                             help="seconds before a failed webhook delivery's first retry (doubling after)")
    webhook_private_addresses: bool = environ.bool_var(False, help="deliver webhooks to loopback and private "
                                                                   "addresses too (a test, a one-machine demo)")
    person_decision_seconds: float = environ.var(60.0, converter=float,
                                                 help="seconds a person at the table has for each decision; "
                                                      "beyond them they draw on their bank, then the fault "
                                                      "policy plays for them (the default action)")
    person_bank_seconds: float = environ.var(120.0, converter=float,
                                             help="seconds a person at the table may draw on over the whole "
                                                  "match, once a decision outlasts its own seconds")
    demo_tournaments: bool = environ.bool_var(True, help="`make demo` starts its demo tournaments")

    def __attrs_post_init__(self) -> None:
        """The folders whose default depends on another setting."""
        self.replay_dir = self.replay_dir or self.home / "replays"
        self.upload_dir = self.upload_dir or self.home / "uploads"
        self.sandbox_registry = self.sandbox_registry or Path(tempfile.gettempdir()) / "parlour-sandboxes"
