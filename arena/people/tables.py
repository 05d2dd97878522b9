"""A person's table: "play against" the house bots from a game's page, or a bot from its page (any
active bot whose owner allows it, ``Bot.people_may_play``), and the person's side of it (the
decision waiting for them, their answer), for the web.

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
from django.db.models import QuerySet

from referee.games import GAMES
from referee.games.interface import ConfigError
from referee.games.seeding import draw_seed

from ..bots.house_entrants import house_specs, house_version
from ..competitions.challenges import latest_active, seats_wanted, variants
from ..competitions.tournaments import number_repeated_house_bots
from ..fleet.broker import connection
from ..fleet.presence_seen import seen
from ..games import game_choices, game_variants
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
    """What "play against" offers for ``game``: its variants played at a table (with their player
    counts, the default first), their rule options (each once, with its allowed values and default),
    its house bots, the opponents' choices (the first, then the others' defaults) and the seats."""
    tables = [(name, counts) for name, counts in variants(game) if max(counts) > 1]
    options: dict[str, dict] = {}
    for variant in game_variants(game):
        if variant["name"] in dict(tables):
            for option in variant["options"]:
                options.setdefault(option["name"], option)
    most = max((max(counts) for _, counts in tables), default=1)
    house = house_specs(game)
    pick = "greedy" if "greedy" in house else next(iter(house), "")
    smallest = min(tables[0][1]) if tables else 1
    # the opponents offered past the first, those the default variant's smallest table needs picked
    extra = [pick if players <= smallest else "" for players in range(3, most + 1)]
    return {"variants": tables, "options": list(options.values()), "house_bots": house, "first_opponent": pick,
            "extra_opponents": extra, "seats": list(range(1, most + 1))}


def person_version(user, game: str) -> BotVersion:
    """The person's seat in ``game``: their ``person`` bot's version, made on first use."""
    bot, _ = Bot.objects.get_or_create(owner=user, game=game, kind=Bot.PERSON, deleted=None,
                                       defaults={"name": f"@{user.username}"[:64], "active": False})
    version = bot.versions.order_by("-number").first()
    return version or BotVersion.objects.create(bot=bot, number=1, spec="person")


def may_be_played(user, bot: Bot) -> str | None:
    """Why ``user`` may not sit down against ``bot`` now, in one line; None when they may: an active
    house bot, or an active bot of the user's own or whose owner allows it; a remote bot only while
    it is connected (its seat would otherwise wait and forfeit)."""
    if bot.kind == Bot.PERSON:
        return f"{bot.name} is a person's seat, not a bot to play against"
    state = bot.state()
    if state != "active":
        return f"{bot.name} is {state}: only an active bot can be played"
    if bot.kind != Bot.HOUSE and bot.owner_id != user.pk and not bot.people_may_play:
        return f"{bot.name}'s owner does not let people play against it"
    if bot.kind == Bot.REMOTE:
        presence = seen(f"bot-{bot.pk}")
        if presence is None or not presence.online:
            return f"{bot.name} is a remote bot that is not connected now: it can be played only while online"
    return None


def house_label(game: str, pick: str) -> str:
    """A house bot picked by id (from its own page) as its name, so that its repeats are numbered."""
    if pick.startswith("bot-") and pick[4:].isdigit():
        name = Bot.objects.filter(pk=int(pick[4:]), game=game, kind=Bot.HOUSE).values_list("name", flat=True).first()
        return name or pick
    return pick


def opponent_version(user, game: str, pick: str) -> BotVersion:
    """The version that plays the opponent ``pick``: a house bot by name (``greedy``, ``greedy#2``)
    or a bot by id (``bot-<id>``: its current version); TableError says why it may not be played."""
    if not pick.startswith("bot-"):
        return house_version(game, pick)
    bot = Bot.objects.filter(pk=int(pick[4:]) if pick[4:].isdigit() else None).select_related("owner").first()
    if bot is None:
        raise TableError(f"there is no bot {pick}")
    if bot.game != game:
        names = dict(game_choices())
        raise TableError(f"{bot.name} plays {names.get(bot.game, bot.game)}, not {names.get(game, game)}")
    refused = may_be_played(user, bot)
    if refused:
        raise TableError(refused)
    return latest_active([bot])[0]


def start_table(user, game: str, variant: str, opponents: list[str], seat: int = 0,
                options: dict[str, Any] | None = None) -> Match:
    """Seat the person at ``seat`` against ``opponents`` (house bots by name, e.g. ``["greedy"]``,
    or bots by id, ``bot-<id>``) under the variant's rule ``options`` (names to values; left out:
    the defaults), and queue the unrated match."""
    counts = dict(variants(game)).get(variant)
    if counts is None:
        raise TableError(f"{game} has no variant {variant!r}")
    if len(opponents) + 1 not in counts:
        raise TableError(seats_wanted(variant, counts))
    picks = [house_label(game, o) for o in opponents]
    unknown = [p for p in picks if not p.startswith("bot-") and p.split("#", 1)[0] not in house_specs(game)]
    if unknown:
        raise TableError(f"not a house bot of this game: {', '.join(unknown)}")
    bots = [p for p in picks if p.startswith("bot-")]
    if len(set(bots)) != len(bots):
        raise TableError("pick each bot once (house bots may sit more than once)")
    if not 0 <= seat <= len(opponents):
        raise TableError(f"there is no seat {seat + 1} at a table of {len(opponents) + 1}")
    try:
        config = GAMES[game].configure(len(opponents) + 1, variant, options or {})
    except ConfigError as exc:
        raise TableError(str(exc)) from None
    houses = iter(number_repeated_house_bots([p for p in picks if not p.startswith("bot-")]))
    seated = [opponent_version(user, game, p if p.startswith("bot-") else next(houses)) for p in picks]
    seated.insert(seat, person_version(user, game))
    with transaction.atomic():
        match = Match.objects.create(key=f"person/{user.pk}/{secrets.token_hex(6)}", game=game, variant=variant,
                                     options={name: config.options[name] for name in options or {}},
                                     seed=draw_seed(), rated=False,
                                     time_control=time_control())
        MatchSeat.objects.bulk_create([MatchSeat(match=match, seat=i, bot_version=v) for i, v in enumerate(seated)])
        transaction.on_commit(lambda: enqueue_matches([match.pk]))
    return match


def person_seat(match: Match, user) -> int | None:
    """The seat ``user`` plays in person at ``match``, or None."""
    if not user.is_authenticated:
        return None
    return (match.seats.filter(bot_version__bot__kind=Bot.PERSON, bot_version__bot__owner=user)
            .values_list("seat", flat=True).first())


def person_tables(user) -> QuerySet[Match]:
    """The person's own tables, newest first."""
    return Match.objects.filter(seats__bot_version__bot__kind=Bot.PERSON,
                                seats__bot_version__bot__owner=user).order_by("-created", "-pk")


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
