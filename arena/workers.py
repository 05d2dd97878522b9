"""A worker's upkeep, in its main process (Celery's signals connect it in every worker): at start,
reap the sandboxes dead workers left and reconcile; then, on a thread, a heartbeat every few
seconds and, in turn with the other workers, the reconciler (arena.reconcile)."""
from __future__ import annotations

import logging
import threading
import time

from celery.signals import worker_ready, worker_shutdown

from . import heartbeats, reconcile, sandbox_reaper

log = logging.getLogger("parlour.arena")
_stop = threading.Event()


def upkeep(node: str, started: float) -> None:
    last_reconcile = time.monotonic()
    while not _stop.wait(heartbeats.EVERY):
        try:
            heartbeats.beat(node, started)
            if time.monotonic() - last_reconcile >= reconcile.EVERY:
                last_reconcile = time.monotonic()
                reconcile.reconcile_if_turn(node)
        except Exception as exc:  # noqa: BLE001 - Redis or the database away: try again next beat
            log.warning("worker upkeep: %s", exc)
        finally:
            from django.db import connection

            connection.close_if_unusable_or_obsolete()


@worker_ready.connect
def on_worker_ready(sender, **_: object) -> None:
    node = sender.hostname
    started = time.time()
    try:
        sandbox_reaper.reap_orphans()
    except OSError as exc:
        log.warning("could not reap the sandboxes of dead workers: %s", exc)
    try:
        heartbeats.beat(node, started)
        reconcile.reconcile()
    except Exception as exc:  # noqa: BLE001 - the upkeep thread tries again
        log.warning("reconciling at start: %s", exc)
    threading.Thread(target=upkeep, args=(node, started), name="parlour-upkeep", daemon=True).start()


@worker_shutdown.connect
def on_worker_shutdown(sender, **_: object) -> None:
    _stop.set()
    try:
        heartbeats.gone(sender.hostname)
    except Exception:  # noqa: BLE001 - nothing to tell
        pass
