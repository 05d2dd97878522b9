"""Challenges: a bot's owner picks its opponents and a variant, and the match is played at once on
the one road, unrated (``rated=False``), like any other match (its page follows it live).

Opponents: the game's house bots (repeatable as ``random#2``...), the owner's own active bots and
their earlier versions, and any other owner's active uploaded bot (a remote bot of someone else's
may not be connected: its seat would only wait and forfeit). The same-owner rule of rated tables does not apply: nothing
rides on an unrated match. A challenge's match key is ``challenge/<user id>/<random>``, which is
what the hourly limit counts.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from referee.games import GAMES
from referee.games.seeding import draw_seed

from ..bots.house_entrants import house_specs, house_version
from ..fleet.enqueue import enqueue_matches
from ..models import Bot, BotVersion, Match, MatchSeat


class ChallengeError(ValueError):
    """A challenge the rules refuse: one line for the owner."""


@dataclass(frozen=True)
class Opponent:
    key: str  # "house:random#2" or "version:<pk>"
    label: str


def variants(game: str) -> list[tuple[str, tuple[int, ...]]]:
    """The game's variants with their player counts, the default first."""
    description = GAMES[game]
    names = sorted(description.variants, key=lambda name: name != description.default_variant)
    return [(name, tuple(description.variants[name].player_counts)) for name in names]


def latest_active(bots) -> list[BotVersion]:
    """The newest active version of each bot."""
    latest: dict[int, BotVersion] = {}
    for version in (BotVersion.objects.filter(bot__in=bots, state=BotVersion.ACTIVE)
                    .select_related("bot__owner").order_by("number")):
        latest[version.bot_id] = version
    return sorted(latest.values(), key=lambda v: (v.bot.owner_id is None, v.bot.name.lower()))


def seats_wanted(variant: str, counts: tuple[int, ...]) -> str:
    """Why a number of opponents does not fit the variant, and what would."""
    if tuple(counts) == (1,):
        return f"the {variant} variant is played alone: pick no opponent"
    wanted = [c - 1 for c in counts if c > 1]
    span = f"{wanted[0]}" if len(wanted) == 1 else f"{wanted[0]} to {wanted[-1]}" \
        if wanted == list(range(wanted[0], wanted[-1] + 1)) else ", ".join(map(str, wanted))
    return f"the {variant} variant seats {', '.join(map(str, counts))} players: pick {span} " \
           f"opponent{'' if wanted == [1] else 's'}"


def opponents(user, bot: Bot) -> list[Opponent]:
    """Whom ``bot`` may be challenged against."""
    most = max(count for _, counts in variants(bot.game) for count in counts) - 1
    house = [Opponent(f"house:{spec}{'' if n == 1 else f'#{n}'}", f"house {spec}{'' if n == 1 else f' #{n}'}")
             for spec in house_specs(bot.game) for n in range(1, most + 1)]
    playing = Bot.objects.filter(game=bot.game, active=True, deleted=None).exclude(pk=bot.pk).exclude(kind=Bot.HOUSE)
    playing = playing.filter(Q(owner=user) | ~Q(kind=Bot.REMOTE))
    own = [Opponent(f"version:{v.pk}", f"{v.bot.name} v{v.number} ({'yours' if v.bot.owner_id == user.pk else v.bot.owner.username})")
           for v in latest_active(playing)]
    # the owner's earlier versions (retired by a newer upload, this bot's own included): "does v2 beat v1?"
    earlier = [Opponent(f"version:{v.pk}", f"{v.bot.name} v{v.number} (yours, earlier)")
               for v in BotVersion.objects.filter(bot__owner=user, bot__game=bot.game, bot__deleted=None,
                                                  bot__kind=Bot.UPLOAD, state=BotVersion.RETIRED)
               .select_related("bot").order_by("bot__name", "-number")]
    return house + own + earlier


def challenge_times(user, since: datetime) -> list[datetime]:
    return list(Match.objects.filter(key__startswith=f"challenge/{user.pk}/", created__gte=since)
                .values_list("created", flat=True))


def recent_challenges(user) -> list[datetime]:
    """When this user's challenges of the last hour were made (for the hourly limit)."""
    return challenge_times(user, timezone.now() - timedelta(hours=1))


def start_challenge(user, bot: Bot, picks: list[str], variant: str) -> Match:
    """Create the unrated match (``bot`` in seat 0, the picks after it) and queue it."""
    if bot.state() != "active":
        raise ChallengeError(f"{bot.name} is {bot.state()}: only an active bot can be challenged")
    counts = dict(variants(bot.game)).get(variant)
    if counts is None:
        raise ChallengeError(f"{bot.game} has no variant {variant!r}")
    if len(picks) + 1 not in counts:
        raise ChallengeError(seats_wanted(variant, counts))
    allowed = {o.key for o in opponents(user, bot)}
    if len(set(picks)) != len(picks) or not set(picks) <= allowed:
        raise ChallengeError("pick each opponent once, among those offered")
    mine = latest_active([bot])[0]
    seated = [mine] + [house_version(bot.game, key[6:]) if key.startswith("house:")
                       else BotVersion.objects.get(pk=int(key[8:])) for key in picks]
    with transaction.atomic():
        match = Match.objects.create(key=f"challenge/{user.pk}/{secrets.token_hex(6)}", game=bot.game, variant=variant,
                                     seed=draw_seed(), rated=False)
        MatchSeat.objects.bulk_create([MatchSeat(match=match, seat=i, bot_version=v) for i, v in enumerate(seated)])
        transaction.on_commit(lambda: enqueue_matches([match.pk]))
    return match
