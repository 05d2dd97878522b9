"""The Celery queues of a fleet: the default one, which every worker consumes, and one per
referee, ``referee.<id>``, which the workers started for that referee
(``PARLOUR_WORKER_REFEREE=<id>``) consume besides (arena.fleet.routing sends tasks there)."""
from __future__ import annotations

from django.conf import settings

DEFAULT_QUEUE = "celery"  # Celery's own default
QUEUE_PREFIX = "referee."


def queue_of(referee_id: str) -> str:
    return QUEUE_PREFIX + referee_id


def worker_queues() -> list[str]:
    """The queues a worker started here consumes."""
    referee_id = settings.PARLOUR_WORKER_REFEREE
    return [DEFAULT_QUEUE] + ([queue_of(referee_id)] if referee_id else [])
