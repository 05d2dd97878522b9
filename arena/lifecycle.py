"""A match's life on the platform, one transition each: claimed by one attempt, handed back when
the platform failed it, aborted unplayed only at a documented cap.

- ``claim``: a scheduled match becomes ``running`` for one numbered attempt (a fencing token). A
  duplicate or redelivered task finds it claimed, or recorded, and does nothing.
- ``renew_claim``: an attempt waiting for a core (arena.cores) restarts the match's clock.
- ``hand_back``: the platform failed the attempt (the referee unreachable, the worker gone, the
  queue lost): the match is ``scheduled`` again and its task re-sent after a back-off that doubles
  with each failure (``PARLOUR_RETRY_FIRST_DELAY`` s, up to ``PARLOUR_RETRY_MAX_DELAY`` s). Only
  the attempt that holds the match may hand it back, so a late worker never undoes a newer one.
- At ``PARLOUR_PLATFORM_FAILURES`` failures the match is aborted *unplayed*, its reason kept
  (``result = {"aborted": reason, "unplayed": true}``): its tournament halts until an operator
  runs ``tournament run ID`` again (``replay_unplayed``).

The bots' own faults never come here: the referee ends their seats and the match is recorded.
"""
from __future__ import annotations

import logging
import os
from datetime import timedelta

from django.db import connections, router, transaction
from django.utils import timezone

from .models import Match
from .queue import enqueue_match_later
from .recording import record

FAILURE_CAP = int(os.environ.get("PARLOUR_PLATFORM_FAILURES", 60))
FIRST_DELAY = float(os.environ.get("PARLOUR_RETRY_FIRST_DELAY", 1.0))
MAX_DELAY = float(os.environ.get("PARLOUR_RETRY_MAX_DELAY", 60.0))
log = logging.getLogger("parlour.arena")


def backoff(failures: int) -> float:
    """Seconds before the next attempt after this many failures: 1, 2, 4, ... up to MAX_DELAY."""
    return min(MAX_DELAY, FIRST_DELAY * 2 ** max(0, failures - 1))


def claim(match_id: int, worker: str) -> Match | None:
    """Start an attempt at a scheduled match: the claimed row as it now is (its ``attempts`` the
    attempt's number), or None if the match is not scheduled (recorded already, or being played by
    another attempt). The row comes back so the player need not read the match again.

    One ``UPDATE ... RETURNING`` statement (PostgreSQL, SQLite >= 3.35): the ORM's update, then a
    read of the row in a transaction, cost a worker more CPU than the rest of its claim (issue 13)."""
    connection = connections[router.db_for_write(Match)]
    quote = connection.ops.quote_name
    sql = (f"UPDATE {quote(Match._meta.db_table)} SET {quote('status')} = %s, {quote('worker')} = %s, "
           f"{quote('started')} = %s, {quote('attempts')} = {quote('attempts')} + 1 "
           f"WHERE {quote('id')} = %s AND {quote('status')} = %s RETURNING *")
    started = connection.ops.adapt_datetimefield_value(timezone.now())
    claimed = list(Match.objects.raw(sql, [Match.RUNNING, worker, started, match_id, Match.SCHEDULED]))
    return claimed[0] if claimed else None


def renew_claim(match_id: int, attempt: int) -> bool:
    """The attempt still holds the match and its clock starts again now (it waited for a core,
    arena.cores: the wait is not play the reconciler should time). False when it was taken."""
    return bool(Match.objects.filter(pk=match_id, status=Match.RUNNING, attempts=attempt)
                .update(started=timezone.now()))


def hand_back(match_id: int, attempt: int, reason: str) -> bool:
    """The platform failed this attempt: schedule the match again after its back-off, or abort it
    unplayed at the cap. True when the match was recorded (aborted) by this call."""
    with transaction.atomic():
        match = (Match.objects.select_for_update()
                 .filter(pk=match_id, status=Match.RUNNING, attempts=attempt).first())
        if match is None:  # recorded meanwhile, or taken over by a newer attempt
            return False
        failures = match.failures + 1
        if failures >= FAILURE_CAP:
            Match.objects.filter(pk=match_id).update(failures=failures, last_failure=reason)
            log.error("match %s aborted: the platform failed it %s times (last: %s)", match.key, failures, reason)
            return record(match, None, f"the platform failed it {failures} times (last: {reason})") is not None
        delay = backoff(failures)
        Match.objects.filter(pk=match_id).update(status=Match.SCHEDULED, worker="", failures=failures,
                                                 last_failure=reason[:1000],
                                                 due=timezone.now() + timedelta(seconds=delay))
        log.warning("match %s: %s; played again in %.0f s (failure %s of at most %s)",
                    match.key, reason, delay, failures, FAILURE_CAP)
        transaction.on_commit(lambda: enqueue_match_later(match_id, delay))
    return False


def replay_unplayed(match_ids: list[int]) -> list[int]:
    """An operator's "play these again": aborted-unplayed matches back to scheduled, their
    failures forgotten. Returns the ids to enqueue."""
    again = [m.pk for m in Match.objects.filter(pk__in=match_ids, status=Match.ABORTED) if m.unplayed]
    Match.objects.filter(pk__in=again).update(status=Match.SCHEDULED, result=None, finished=None, worker="",
                                              failures=0, due=timezone.now())
    return again
