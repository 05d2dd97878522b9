"""Where a match is played in a fleet of referees.

A match with remote seats must live on the referee those bots hold their ``Connect`` stream to
(their presence, ``arena.fleet.presence_board``): the runner creates it there, and its task goes to that
referee's Celery queue, ``referee.<id>``, which the workers started for that referee consume
besides the default one (``PARLOUR_WORKER_REFEREE``, docs/deploy.md). A queue no live worker
consumes is never used: the task goes to the default queue and any worker creates the match on
the right referee all the same. Every other match is created through the fleet's name
(``REFEREE_ADDRESS``) on whichever referee answers, and played where its creation answer says.
"""
from __future__ import annotations

import logging

from ..models import Bot, MatchSeat
from . import heartbeats, presence_board
from .queues import DEFAULT_QUEUE, queue_of

log = logging.getLogger("parlour.arena")


def remote_bots_of(match_id: int) -> list[str]:
    """The remote bots seated at a match (their ids on the referees, ``bot-<pk>``)."""
    return [f"bot-{pk}" for pk in MatchSeat.objects.filter(match_id=match_id, bot_version__bot__kind=Bot.REMOTE)
            .values_list("bot_version__bot_id", flat=True)]


def holder_of(remote_bots: list[str]) -> presence_board.Where | None:
    """The one referee all these remote bots are connected to, or None (no remote seat, a bot not
    connected, or bots on different referees: the match is then created anywhere and the absent
    seats forfeit after the join timeout, as a lone referee would do)."""
    if not remote_bots:
        return None
    found = presence_board.where(remote_bots)
    places = {found[b] for b in remote_bots if b in found}
    if len(places) != 1 or len(found) != len(set(remote_bots)):
        log.warning("remote bots %s are not all connected to one referee (%s)", remote_bots, found)
        return None
    return places.pop()


def served_queues() -> set[str]:
    """The queues some live worker consumes (from the workers' heartbeats)."""
    return {q for info in heartbeats.alive_workers().values() for q in info.get("queues", [DEFAULT_QUEUE])}


def queue_for(match_id: int) -> str:
    """The queue of a match's task: its remote bots' referee's, when a live worker serves it."""
    try:
        holder = holder_of(remote_bots_of(match_id))
        if holder is not None and queue_of(holder.referee_id) in served_queues():
            return queue_of(holder.referee_id)
    except Exception as exc:  # noqa: BLE001 - Redis or the database away: any worker will do
        log.warning("match %s: no route (%s); the default queue", match_id, exc)
    return DEFAULT_QUEUE
