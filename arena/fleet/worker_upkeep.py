"""A worker's upkeep, in its main process (Celery's signals connect it in every worker): before
its pool starts, the shared house bots' socket (arena.bots.keeper); at start, reap the sandboxes
dead workers left and reconcile; then, on a thread, a heartbeat every few
seconds and, in turn with the other workers, the reconciler (arena.fleet.reconcile). Between tasks, in
the pool's processes: the database connection kept or closed as Django keeps it between requests."""
from __future__ import annotations

import logging
import threading
import time

from celery.signals import (task_postrun, task_prerun, worker_init, worker_process_init, worker_ready,
                            worker_shutdown)
from django.db import connections

from django.conf import settings

from ..bots import sandbox_reaper
from ..bots.keeper import Keeper
from . import heartbeats, reconcile

log = logging.getLogger("parlour.arena")
_stop = threading.Event()
_keeper = Keeper()  # the worker's shared house bots and cores, for all its pool processes


def upkeep(node: str, started: float) -> None:
    last_reconcile = time.monotonic()
    while not _stop.wait(heartbeats.every()):
        try:
            heartbeats.beat(node, started, _keeper.pids(), _keeper.cores.summary())
            if time.monotonic() - last_reconcile >= settings.PARLOUR_RECONCILE_EVERY:
                last_reconcile = time.monotonic()
                reconcile.reconcile_if_turn(node)
        except Exception as exc:  # noqa: BLE001 - Redis or the database away: try again next beat
            log.warning("worker upkeep: %s", exc)
        finally:
            from django.db import connection

            connection.close_if_unusable_or_obsolete()


@worker_init.connect
def on_worker_init(**_: object) -> None:
    """Before the pool starts: its processes find the house bots listening from their first task."""
    try:
        _keeper.start()
    except OSError as exc:  # each pool process keeps its own then
        log.warning("the worker's house bots cannot listen: %s", exc)


@worker_process_init.connect
def on_pool_process_init(**_: object) -> None:
    _keeper.in_new_pool_process()


@worker_ready.connect
def on_worker_ready(sender, **_: object) -> None:
    node = sender.hostname
    started = time.time()
    try:
        sandbox_reaper.reap_orphans()
    except OSError as exc:
        log.warning("could not reap the sandboxes of dead workers: %s", exc)
    try:
        heartbeats.beat(node, started, _keeper.pids(), _keeper.cores.summary())
        reconcile.reconcile()
    except Exception as exc:  # noqa: BLE001 - the upkeep thread tries again
        log.warning("reconciling at start: %s", exc)
    threading.Thread(target=upkeep, args=(node, started), name="parlour-upkeep", daemon=True).start()


@worker_shutdown.connect
def on_worker_shutdown(sender, **_: object) -> None:
    _stop.set()
    _keeper.close()
    try:
        heartbeats.gone(sender.hostname)
    except Exception:  # noqa: BLE001 - nothing to tell
        pass


@task_prerun.connect
@task_postrun.connect
def between_tasks(**_: object) -> None:
    """Django's rule between requests, between tasks: a connection is reused until CONN_MAX_AGE,
    closed once it failed (a database restarted). Celery's own fixup would close it every task
    (arena.fleet.celery_app: CELERY_DB_REUSE_MAX)."""
    for conn in connections.all(initialized_only=True):
        conn.close_if_unusable_or_obsolete()
