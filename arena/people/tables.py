"""A person's table: "play against" the house bots from a game's page, and the person's side of it
(the decision waiting for them, their answer), for the web.

The person's seat is a ``Bot`` of kind ``person`` (one per person and game, its one version's spec
``person``), so the match is an ordinary unrated match: recorded, replayed and listed like any
other. A match key is ``person/<user id>/<random>``.
"""
from __future__ import annotations

import secrets
import time
from typing import Any

from django.conf import settings
from django.db import transaction

from referee.games.seeding import draw_seed

from ..bots.house_entrants import house_specs, house_version
from ..competitions.challenges import variants
from ..fleet.broker import connection
from ..fleet.enqueue import enqueue_matches
from ..models import Bot, BotVersion, Match, MatchSeat
from . import bridge
from .bridge import AnswerRefused

MARGIN = 5.0  # seconds the referee's move limit leaves above the person's clock (the relay answers first)


class TableError(ValueError):
    """A table the rules refuse: one line for the person."""


def time_control() -> dict[str, float]:
    """A match with a person: every seat's move limit above the longest decision the person's clock
    allows (a decision's seconds plus the whole bank), no bank (the house bots answer at once; the
    person's clock is the relay's, ``bridge.SeatBridge``, which also stops a second short of this)."""
    longest = settings.PARLOUR_PERSON_DECISION_SECONDS + settings.PARLOUR_PERSON_BANK_SECONDS
    return {"move_limit": min(600.0, longest + MARGIN), "bank": 0.0}


def table_choices(game: str) -> dict[str, Any]:
    """What "play against" offers for ``game``: its variants (with their player counts, the
    default first) and its house bots."""
    return {"variants": variants(game), "house_bots": house_specs(game)}


def person_version(user, game: str) -> BotVersion:
    """The person's seat in ``game``: their ``person`` bot's version, made on first use."""
    bot, _ = Bot.objects.get_or_create(owner=user, game=game, kind=Bot.PERSON, deleted=None,
                                       defaults={"name": f"@{user.username}"[:64], "active": False})
    version = bot.versions.order_by("-number").first()
    return version or BotVersion.objects.create(bot=bot, number=1, spec="person")


def start_table(user, game: str, variant: str, opponents: list[str], seat: int = 0) -> Match:
    """Seat the person at ``seat`` against the house bots ``opponents`` (e.g. ``["greedy"]``) and
    queue the match."""
    counts = dict(variants(game)).get(variant)
    if counts is None:
        raise TableError(f"{game} has no variant {variant!r}")
    if len(opponents) + 1 not in counts:
        raise TableError(f"the {variant} variant seats {', '.join(map(str, counts))} players: "
                         f"pick {' or '.join(str(c - 1) for c in counts)} opponent(s)")
    unknown = [o for o in opponents if o.split("#", 1)[0] not in house_specs(game)]
    if unknown:
        raise TableError(f"not a house bot of this game: {', '.join(unknown)}")
    if not 0 <= seat <= len(opponents):
        raise TableError(f"there is no seat {seat + 1} at a table of {len(opponents) + 1}")
    labels = [o if opponents.count(o) == 1 else f"{o}#{opponents[:i + 1].count(o)}" for i, o in enumerate(opponents)]
    seated = [house_version(game, label) for label in labels]
    seated.insert(seat, person_version(user, game))
    with transaction.atomic():
        match = Match.objects.create(key=f"person/{user.pk}/{secrets.token_hex(6)}", game=game, variant=variant,
                                     seed=draw_seed(), rated=False, time_control=time_control())
        MatchSeat.objects.bulk_create([MatchSeat(match=match, seat=i, bot_version=v) for i, v in enumerate(seated)])
        transaction.on_commit(lambda: enqueue_matches([match.pk]))
    return match


def person_seat(match: Match, user) -> int | None:
    """The seat ``user`` plays in person at ``match``, or None."""
    if not user.is_authenticated:
        return None
    return (match.seats.filter(bot_version__bot__kind=Bot.PERSON, bot_version__bot__owner=user)
            .values_list("seat", flat=True).first())


def person_tables(user, limit: int = 20) -> list[Match]:
    """The person's own tables, newest first."""
    return list(Match.objects.filter(seats__bot_version__bot__kind=Bot.PERSON, seats__bot_version__bot__owner=user)
                .order_by("-created")[:limit])


def table_state(match: Match, user) -> dict[str, Any]:
    """What the person's page shows now: the match's status, their seat and the decision waiting
    for them (exactly what their seat was sent, with the person's clock), if any. ``now`` is this
    server's time, which the page counts the clock from (the browser's own may be off)."""
    seat = person_seat(match, user)
    state: dict[str, Any] = {"status": match.status, "seat": seat, "decision": None, "now": time.time()}
    if seat is not None and match.status in Match.UNRECORDED:
        state["decision"] = bridge.waiting(connection(), match.pk, seat)
    if match.status == Match.FINISHED:
        state["result"] = match.result
    return state


def answer(match: Match, user, decision_id: Any, index: Any) -> dict[str, Any]:
    """The person's answer to the decision waiting at their seat: the action, or AnswerRefused."""
    seat = person_seat(match, user)
    if seat is None:
        raise AnswerRefused("you have no seat at this table")
    if match.status not in Match.UNRECORDED:
        raise AnswerRefused(f"this match is {match.status}")
    try:
        decision_id, index = int(decision_id), int(index)
    except (TypeError, ValueError):
        raise AnswerRefused("an answer names a decision and one of its actions by number") from None
    return bridge.submit(connection(), match.pk, seat, decision_id, index)
