"""The reconciler: the database says what should be played, the queue and the heartbeats what is
being played; it mends the difference. It runs on every worker's start and then every
``PARLOUR_RECONCILE_EVERY`` seconds in one live worker (a Redis lock), and as a beat task.

- A ``running`` match whose process no live worker vouches for (the worker was killed), or that
  runs past its longest possible time plus a margin (arena.road.time_limits), is handed back: the platform
  failed it (arena.road.lifecycle), so it is played again, on any live worker.
- A running tournament whose matches are all recorded is moved on (its next round paired), in
  case the worker that recorded its round's last match died before pairing the next.
- A ``scheduled`` match whose task is not in the queue some time after it was due (Redis lost
  it, or the worker holding its delayed retry died) gets its task again. A duplicate task is
  harmless: a match is claimed by one attempt only.
"""
from __future__ import annotations

import base64
import json
import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models.functions import Coalesce
from django.utils import timezone

from ..competitions.tournaments import advance
from ..models import Match, Tournament
from ..road import lifecycle
from ..road.time_limits import MARGIN, match_time_limit
from . import heartbeats
from .broker import connection
from .celery_app import RUN_MATCH
from .enqueue import enqueue_matches
from .queues import DEFAULT_QUEUE
from .routing import served_queues

LOCK = "parlour:reconciler"
log = logging.getLogger("parlour.arena")


def queued_match_ids(client: Any = None) -> set[int]:
    """The matches whose ``run_match`` task waits in the queue (not yet delivered to a worker)."""
    client = client or connection()
    found: set[int] = set()
    # kombu keeps each priority of a queue in a Redis list of its own
    keys = [DEFAULT_QUEUE.encode()] + list(client.scan_iter(match=DEFAULT_QUEUE + "\x06\x16*"))
    # a referee's queue counts while a live worker consumes it; a task left in the queue of a
    # referee whose workers are gone is sent again (arena.fleet.routing picks a served queue)
    for queue in served_queues() - {DEFAULT_QUEUE}:
        keys += [queue.encode()] + list(client.scan_iter(match=queue + "\x06\x16*"))
    for key in keys:
        for raw in client.lrange(key, 0, -1):
            try:
                message = json.loads(raw)
                if message.get("headers", {}).get("task") != RUN_MATCH:
                    continue
                body = message["body"]
                if message.get("properties", {}).get("body_encoding") == "base64":
                    body = base64.b64decode(body)
                args = json.loads(body)[0]
                found.add(int(args[0]))
            except (ValueError, KeyError, IndexError, TypeError):
                continue
    return found


def reconcile() -> dict[str, list[int]]:
    """One pass; what it did, by kind (match ids)."""
    now = timezone.now()
    done: dict[str, list[int]] = {"handed_back": [], "aborted": [], "requeued": []}
    workers = heartbeats.alive_workers()
    seats = {}
    for match in Match.objects.filter(status=Match.RUNNING):
        started = match.started or match.created
        if match.pk not in seats:
            seats[match.pk] = match.seats.count()
        limit = match_time_limit(match.time_control, seats[match.pk]) + MARGIN
        if started + timedelta(seconds=limit) < now:
            reason = f"it ran past its time limit ({limit:.0f} s) on {match.worker or 'a worker'}"
        elif (not heartbeats.holder_alive(match.worker, workers)
              and started + timedelta(seconds=settings.PARLOUR_HEARTBEAT_TTL) < now):
            reason = f"the worker process playing it ({match.worker or 'unknown'}) stopped"
        else:
            continue
        recorded = lifecycle.hand_back(match.pk, match.attempts, reason)
        done["aborted" if recorded else "handed_back"].append(match.pk)
        if recorded:
            lifecycle.finish(match.pk)
    missing_since = now - timedelta(seconds=settings.PARLOUR_RECONCILE_GRACE)
    late = (Match.objects.filter(status=Match.SCHEDULED)
            .annotate(due_at=Coalesce("due", "created")).filter(due_at__lt=missing_since)
            .values_list("pk", flat=True))
    late = list(late)
    if late:
        queued = queued_match_ids()
        lost = [pk for pk in late if pk not in queued]
        if lost:
            Match.objects.filter(pk__in=lost, status=Match.SCHEDULED).update(due=now)
            enqueue_matches(lost)
            done["requeued"] = lost
    for tournament_id in (Tournament.objects.filter(status=Tournament.RUNNING)
                          .exclude(matches__status__in=Match.UNRECORDED).values_list("pk", flat=True)):
        advance(tournament_id)  # its round is over, but the worker that recorded it died before pairing on
    if any(done.values()):
        log.warning("reconciler: %s", {k: v for k, v in done.items() if v})
    return done


def reconcile_if_turn(node: str) -> dict[str, list[int]] | None:
    """Reconcile unless another worker did within ``PARLOUR_RECONCILE_EVERY`` seconds (one pass per
    period in all)."""
    if not connection().set(LOCK, node, nx=True, ex=max(1, round(settings.PARLOUR_RECONCILE_EVERY))):
        return None
    return reconcile()
