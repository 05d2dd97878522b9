"""The one road: every recorded match — tournament, ladder, an upload's check, a challenge — is
played here, through the operator's referee client, with warm bots.

``play(match)`` creates the match on the referee (asking it to keep the public frames), hands each
local seat to a warm bot (``bot_pool``: the instant house bots' seats all to their spec's one
shared process), follows the match on one stream — its frames go to Redis
as they come (``live``) — and returns the referee's result rows with the replay, stored once
under ``REPLAY_DIR`` exactly as the referee gzipped it. Remote bots' seats are offered on their
``Connect`` streams by the referee itself. In a fleet of referees, the match is played on the one
its creation answer names (``referee_address``), where its remote bots are (arena.routing).
"""
from __future__ import annotations

import atexit
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings

from referee.client import LocalReferee, MatchOutcome, RefereeClient
from referee.timecontrol import TimeControl

from .bot_pool import BotKey, WarmBot, pool_for
from .live import LiveMatch
from .models import Bot, Match
from .routing import holder_of
from .timing import match_time_limit

_referee: RefereeClient | None = None


def referee() -> RefereeClient:
    """The referee this process uses: ``REFEREE_ADDRESS`` (with ``PARLOUR_OPERATOR_TOKEN``, and
    ``PARLOUR_REFEREE_SOCKET`` where the same referee has a Unix socket on this machine; without it
    sandboxed bots reach the referee through a relay), or a private one started on first use and
    stopped at exit."""
    global _referee
    if _referee is None:
        address = os.environ.get("REFEREE_ADDRESS")
        if address:
            _referee = RefereeClient(address, os.environ.get("PARLOUR_OPERATOR_TOKEN", ""),
                                     os.environ.get("PARLOUR_REFEREE_SOCKET") or None)
        else:
            _referee = LocalReferee(["--token-verifier", "arena.tokens:verify",
                                     "--presence", "arena.presence:PresenceBoard"])
            atexit.register(_referee.close)
    return _referee


_fleet: dict[str, RefereeClient] = {}


def referee_at(address: str) -> RefereeClient:
    """The referee of the fleet at this advertised address (this process's referee when it is
    that one, or when no address is given: a lone referee)."""
    default = referee()
    if not address or address == default.address:
        return default
    client = _fleet.get(address)
    if client is None:
        client = _fleet[address] = RefereeClient(address, default.token)
        atexit.register(client.close)
    return client


def upload_root(bot_id: int, number: int, spec: str) -> str | None:
    """The folder of an uploaded version (what its sandbox gets at /bot)."""
    root = Path(settings.UPLOAD_DIR) / str(bot_id) / str(number)
    return str(root) if root.resolve() in Path(spec.rpartition(":")[0]).resolve().parents else None


@dataclass(frozen=True)
class SeatPlan:
    """Who plays one seat and how."""

    seat: int
    name: str
    version: str
    attributes: dict[str, Any]
    bot: BotKey | None  # a local bot (house or uploaded); None for a remote bot
    remote_bot: str = ""  # the remote bot's id on the referee ("bot-<pk>")

    @property
    def thinks_here(self) -> bool:
        """A bot that may think on this machine (an upload, mcts): not an instant house bot, nor a
        remote bot (it thinks on its author's machine)."""
        return self.bot is not None and not self.bot.shared


def seat_plan(match: Match) -> list[SeatPlan]:
    plan = []
    # the seven columns the plan needs, not three models a seat: building those cost more CPU
    # than the query (issue 13)
    seats = match.seats.order_by("seat").values_list(
        "seat", "attributes", "bot_version__number", "bot_version__spec", "bot_version__bot_id",
        "bot_version__bot__name", "bot_version__bot__kind")
    for seat, attributes, number, spec, bot_id, name, kind in seats:
        common = dict(seat=seat, name=name, version=str(number), attributes=dict(attributes))
        if kind == Bot.REMOTE:
            plan.append(SeatPlan(**common, bot=None, remote_bot=f"bot-{bot_id}"))
        elif kind == Bot.UPLOAD:
            plan.append(SeatPlan(**common, bot=BotKey(spec, sandboxed=True, root=upload_root(bot_id, number, spec))))
        else:
            plan.append(SeatPlan(**common, bot=BotKey(spec, sandboxed=False)))
    return plan


@dataclass
class PlayedMatch:
    """What the road brings back: the referee's outcome, where its replay was stored, and what the
    sandboxes of faulted bots reported (per seat, for their owners)."""

    outcome: MatchOutcome
    replay_path: str = ""
    sandbox_lines: dict[int, list[str]] = field(default_factory=dict)


def replay_file(match: Match) -> Path:
    return Path(settings.REPLAY_DIR) / f"{match.key.replace('/', '_')}.replay.json.gz"


def play(match: Match, plan: list[SeatPlan] | None = None) -> PlayedMatch:
    """Play the match on the referee and bring back its outcome (raises when the platform
    failed: the referee unreachable, a sandbox refused). ``plan``: its seats, if read already."""
    plan = seat_plan(match) if plan is None else plan
    if any(p.bot and p.bot.sandboxed for p in plan):
        from sandbox import SandboxUnavailable, support

        if support().mode == "refused":  # before the match exists: nobody waits for a bot that never comes
            raise SandboxUnavailable(support().describe())
    # a match with remote seats is created on the referee those bots are connected to; any other
    # through the fleet's name, on whichever referee answers (arena.routing, docs/deploy.md)
    holder = holder_of([p.remote_bot for p in plan if p.remote_bot])
    created = (referee_at(holder.address) if holder else referee()).create_match(
        match.game, match.variant, match.options, match.seed, TimeControl(**match.time_control), [p.name for p in plan],
        [p.remote_bot for p in plan], [p.attributes for p in plan], [p.version for p in plan], record_frames=True)
    client = referee_at(created.referee_address)  # every seat connects where the match lives
    live = LiveMatch(match.pk, referee_id=created.referee_id)
    pool = pool_for(client)
    bots: dict[int, WarmBot] = {}
    outcome: MatchOutcome | None = None
    sandbox_lines: dict[int, list[str]] = {}
    try:
        for p, token in zip(plan, created.seat_tokens):
            if p.bot is not None:
                bots[p.seat] = pool.acquire(p.bot)
                bots[p.seat].play(token)
        outcome = client.follow(created.match_id, timeout=match_time_limit(match.time_control, len(plan)),
                                on_frames=live.add)
    finally:
        for seat, bot in bots.items():
            lines = pool.release(bot, outcome.seats[seat] if outcome and seat < len(outcome.seats) else None)
            if lines:
                sandbox_lines[seat] = lines
    played = PlayedMatch(outcome, sandbox_lines=sandbox_lines)
    if outcome.replay_gz is not None:
        path = replay_file(match)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(outcome.replay_gz)  # as the referee gzipped it: stored once, never re-encoded
        played.replay_path = str(path)
    return played
