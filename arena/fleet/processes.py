"""The platform's processes on one machine: a Celery worker or beat, and — with no ``REDIS_URL`` —
a private Redis, a referee and a worker for as long as a command runs (``tournament run``,
``ladder run``, ``demo``), supervised: they die with the command, even killed, and are restarted when they die before it
(arena.fleet.supervise: the command calls ``heal()`` as it waits)."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from contextlib import ExitStack, contextmanager
from typing import Iterator

from django.conf import settings

from ..bots.cores import usable_cores
from .supervise import Supervisor


def worker_concurrency() -> int:
    """Matches a worker plays at once (its pool processes, ~46 MB and a database connection
    each): ``PARLOUR_WORKERS``, default four per core it may use. A match mostly waits (for the
    referee, its bots, the database), so more matches than cores keep the cores busy: on 2 cores,
    with the instant house bots, 4 at once played ~1.2x the matches of 2, 8 ~1.35x
    (``bench/arena.py --concurrency``). Matches whose bots think on this machine (uploads, mcts)
    still play one per core at most: they wait for one of the worker's cores (arena.bots.cores)."""
    return settings.PARLOUR_WORKERS or 4 * usable_cores()


def celery_process(kind: str) -> int:
    from .celery_app import app

    if kind == "worker":
        from sandbox import support

        print(support().describe(), file=sys.stderr, flush=True)  # how uploaded bots will run here
        # a node name of its own per worker process: the heartbeats and the matches it holds name it
        from .queues import worker_queues

        from referee.gc_pace import set_pace

        set_pace()  # inherited by its pool processes: a match's recording allocates by the thousand
        # the default queue, and the queue of the referee this worker was started for (arena.fleet.routing)
        app.worker_main(["worker", "--loglevel=INFO", "--concurrency", str(worker_concurrency()),
                         "--hostname", f"w{os.getpid()}@{socket.gethostname()}", "--queues", ",".join(worker_queues())])
    else:
        app.start(["beat", "--loglevel=INFO", "--schedule", str(settings.PARLOUR_HOME / "celerybeat-schedule")])
    return 0


def seed_key_env() -> dict[str, str]:
    """The platform's seed key for a referee this process starts (the one-machine default's own,
    kept in PARLOUR_HOME: parlour_site.settings), so its bot seeds are keyed like the arena's."""
    key = settings.PARLOUR_SEED_KEY
    return {"PARLOUR_SEED_KEY": key.decode()} if key else {}


@contextmanager
def shared(**values: str) -> Iterator[None]:
    """Settings a command changes while it runs a private platform (the addresses of its Redis and
    referee): for itself (its Django settings) and for the children it starts (their environment),
    put back as they were when it is done."""
    before = {name: getattr(settings, name) for name in values}
    try:
        for name, value in values.items():
            setattr(settings, name, value)
            os.environ[name] = value
        yield
    finally:
        for name, value in before.items():
            setattr(settings, name, value)
            if value:
                os.environ[name] = value
            else:
                os.environ.pop(name, None)


@contextmanager
def platform_processes() -> Iterator[Supervisor]:
    """With no REDIS_URL: a private Redis, a referee and a worker for the duration. Yields the
    supervisor, for more children that must die with this process (the demo's beat and web)."""
    supervisor = Supervisor()
    if settings.REDIS_URL:
        try:
            yield supervisor
        finally:
            supervisor.close()
        return
    from referee.client import LocalReferee

    from .broker import PrivateRedis, use_broker

    broker = referee = None
    try:
        with ExitStack() as addresses:
            broker = PrivateRedis(settings.PARLOUR_HOME, supervisor)
            addresses.enter_context(shared(REDIS_URL=broker.url))  # before the referee: its presence board's
            use_broker(broker.url)
            # the private referee exits with this process
            referee = LocalReferee(["--token-verifier", "arena.fleet.token_verifier:verify",
                                    "--presence", "arena.fleet.presence_board:PresenceBoard"], env=seed_key_env())
            supervisor.watch(referee.process.pid)
            supervisor.keep("referee", referee.process, referee.restart)  # on its port: the worker finds it
            addresses.enter_context(shared(REFEREE_ADDRESS=referee.address, PARLOUR_REFEREE_SOCKET=referee.unix_path,
                                           PARLOUR_OPERATOR_TOKEN=referee.token))
            # kept alive: killed, or ended by its broker library when Redis restarts (kombu's
            # "Unrecoverable error: AttributeError(... 'hostname')"), it is started again
            supervisor.start([sys.executable, "-m", "arena", "worker"], keep="worker", env=dict(os.environ),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            yield supervisor
    finally:
        main = threading.current_thread() is threading.main_thread()
        before = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None  # a second Ctrl-C must
        try:                                                                    # not cut the stopping short
            supervisor.stop_after(broker.process if broker else None)  # the worker and the caller's, first
            if referee is not None:
                referee.close()
            if broker is not None:
                broker.close()
            supervisor.close()
        finally:
            if main:
                signal.signal(signal.SIGINT, before)
