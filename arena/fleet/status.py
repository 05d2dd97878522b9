"""What an operator sees (``python -m arena status``, the site's operator page): matches queued,
running, retried and aborted with their reasons, the workers alive, the referees they reach and
those of the fleet (their beats, arena.fleet.presence_board)."""
from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.db.models import Count

from ..models import Match, Tournament
from . import heartbeats
from .broker import connection
from .presence_board import live_referees

SHOWN = 20  # rows of each list


def platform_status() -> dict[str, Any]:
    counts = dict(Match.objects.values_list("status").annotate(n=Count("pk")).order_by())
    retried = Match.objects.filter(status=Match.SCHEDULED, failures__gt=0).order_by("due")
    aborted = Match.objects.filter(status=Match.ABORTED).order_by("-finished")
    status: dict[str, Any] = {
        "matches": {state: counts.get(state, 0) for state in Match.STATES} | {"retried": retried.count()},
        "running": [{"key": m.key, "worker": m.worker, "started": m.started.isoformat() if m.started else "",
                     "attempt": m.attempts} for m in Match.objects.filter(status=Match.RUNNING).order_by("started")[:SHOWN]],
        "retried": [{"key": m.key, "failures": m.failures, "last_failure": m.last_failure,
                     "due": m.due.isoformat() if m.due else ""} for m in retried[:SHOWN]],
        "aborted": [{"key": m.key, "reason": (m.result or {}).get("aborted", ""), "unplayed": m.unplayed,
                     "finished": m.finished.isoformat() if m.finished else ""} for m in aborted[:SHOWN]],
        "halted_tournaments": [{"id": t.pk, "name": t.name}
                               for t in Tournament.objects.filter(status=Tournament.HALTED).order_by("pk")],
        "workers": [], "referees": [], "queued_tasks": None, "redis": "ok",
    }
    try:
        from .reconcile import queued_match_ids

        workers = heartbeats.alive_workers()
        status["queued_tasks"] = len(queued_match_ids(connection()))
    except Exception as exc:  # noqa: BLE001 - the operator must see that Redis is away
        workers = {}
        status["redis"] = f"unreachable: {exc}"
    now = time.time()
    status["workers"] = [{"node": w["node"], "host": w["host"], "pool": len(w["pool"]), "cores": w.get("cores", ""),
                          "up_seconds": round(now - w["started"]), "referee": w["referee"],
                          "referee_reachable": w["referee_reachable"]} for w in sorted(workers.values(), key=lambda w: w["node"])]
    addresses = {w["referee"] for w in workers.values() if w["referee"]}
    if settings.REFEREE_ADDRESS:
        addresses.add(settings.REFEREE_ADDRESS)
    try:  # the referees of the fleet, from their own beats (arena.fleet.presence_board)
        fleet = {info["address"]: info for info in live_referees().values()}
    except Exception:  # noqa: BLE001 - Redis away: said above
        fleet = {}
    status["referees"] = [{"address": a, "reachable": heartbeats.reachable(a), "id": fleet.get(a, {}).get("id", ""),
                           "remote_bots": fleet.get(a, {}).get("bots", "")} for a in sorted(addresses | set(fleet))]
    return status
