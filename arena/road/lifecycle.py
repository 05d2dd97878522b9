"""A match's road, top to bottom: every recorded match — tournament, ladder, an upload's check, a
challenge, a comparison's game — goes this way, one transition each.

1. **Claimed** (``claim``): a scheduled match becomes ``running`` for one numbered attempt (a
   fencing token). A duplicate or redelivered task finds it claimed, or recorded, and does nothing.
   An attempt waiting for a core (arena.bots.cores) restarts the match's clock (``renew_claim``).
2. **Seated** (``seat_plan``): who plays each seat and how — a warm bot of this worker
   (arena.bots.warm_pool: the instant house bots' seats all to their spec's one shared process), or
   a remote bot, offered its seat on its ``Connect`` stream by the referee itself.
3. **Played** (``play``): created on the referee (asking it to keep the public frames) through the
   operator's referee client — in a fleet of referees on the one its remote bots are connected to
   (arena.fleet.routing), else on whichever answers, and played where its creation answer names
   (``referee_address``) — then followed on one stream, its frames going to Redis as they come
   (arena.road.live_frames). The referee's result rows come back with the replay, stored once
   under ``PARLOUR_REPLAY_DIR`` exactly as the referee gzipped it.
4. **Recorded once** (``record``): the seats' rows, the result, the replay's path and the ratings,
   in one transaction that changes the row only while it is unrecorded.
5. **Followed up** (``finish``): its live frames end, its tournament moves on, its upload gets its
   verdict — whoever recorded it (a worker, or the reconciler aborting a match at its cap).

**Handed back** (``hand_back``): the platform failed the attempt (the referee unreachable, the
worker gone, the queue lost): the match is ``scheduled`` again and its task re-sent after a back-off
that doubles with each failure (``PARLOUR_RETRY_FIRST_DELAY`` s, up to ``PARLOUR_RETRY_MAX_DELAY``
s). Only the attempt that holds the match may hand it back, so a late worker never undoes a newer
one. At ``PARLOUR_PLATFORM_FAILURES`` failures the match is aborted *unplayed*, its reason kept
(``result = {"aborted": reason, "unplayed": true}``): its tournament halts until an operator runs
``tournament run ID`` again (arena.competitions.tournaments plays its unplayed matches again).

The bots' own faults never make a platform failure: the referee ends their seats and the match is
recorded. ``play_once`` walks the whole road for one attempt: a worker's task
(arena.fleet.tasks.run_match) and a comparison's games call it.
"""
from __future__ import annotations

import atexit
import logging
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connections, router, transaction
from django.utils import timezone

from sandbox import SandboxUnavailable
from referee.client import LocalReferee, MatchOutcome, RefereeClient, RefereeFull
from referee.timecontrol import TimeControl

from ..bots import uploads
from ..bots.cores import core_for
from ..bots.warm_pool import BotKey, WarmBot, pool_for
from ..competitions import ladder_editions, tournaments
from ..competitions.ratings import rate_match
from ..competitions.stats import forfeit_last
from ..fleet import webhooks
from ..fleet.enqueue import enqueue_match_later
from ..fleet.routing import holder_of
from ..models import Bot, Match, MatchSeat
from ..people.relay import start_relay
from . import live_frames, replay_copies
from .batch_updates import update_rows
from .live_frames import LiveMatch
from .time_limits import match_time_limit

log = logging.getLogger("parlour.arena")


# ---------------------------------------------------------------------- the whole road, once
def play_once(match_id: int, worker: str) -> str:
    """Claim, play and record the match as ``worker``: "recorded", "handed back" (the platform
    failed; it is played again after its back-off) or "not scheduled" (claimed or recorded already)."""
    match = claim(match_id, worker)
    if match is None:
        return "not scheduled"
    recorded: Match | bool | None
    try:
        plan = seat_plan(match)
        # a bot that thinks on this machine waits for a core of its own (arena.bots.cores), held until
        # the match is recorded: a match's play never overlaps the next one's on that core
        with core_for(any(p.thinks_here for p in plan), lambda: renew_claim(match_id, match.attempts)):
            recorded = record(match, play(match, plan))
    except SandboxUnavailable as exc:  # the operator's switch or the machine: retrying cannot help
        log.warning("match %s not played: %s", match.key, exc)
        recorded = record(match, None, f"uploaded bots cannot run on this worker: {str(exc)[:300]}")
    except RefereeFull as exc:  # back-pressure: nothing failed, the match waits its turn
        log.info("match %s waits: %s", match.key, exc)
        recorded = hand_back(match_id, match.attempts, f"referee full: {str(exc)[:300]}", counted=False)
    except Exception as exc:  # noqa: BLE001 - the platform failed, never the bots (the referee judges them)
        log.warning("match %s failed: %s", match.key, exc)
        recorded = hand_back(match_id, match.attempts, f"{type(exc).__name__}: {str(exc)[:500]}")
    if recorded:
        # the row as this attempt recorded it (aborted at the cap by hand_back: read again)
        finish(match_id, recorded if isinstance(recorded, Match) else None)
    return "recorded" if recorded else "handed back"


# ---------------------------------------------------------------------- 1. claimed
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
    arena.bots.cores: the wait is not play the reconciler should time). False when it was taken."""
    return bool(Match.objects.filter(pk=match_id, status=Match.RUNNING, attempts=attempt)
                .update(started=timezone.now()))


# ---------------------------------------------------------------------- 2. seated
def upload_root(bot_id: int, number: int, spec: str) -> str | None:
    """The folder of an uploaded version (what its sandbox gets at /bot)."""
    root = uploads.version_folder(bot_id, number)
    return str(root) if root in Path(spec.rpartition(":")[0]).resolve().parents else None


@dataclass(frozen=True)
class SeatPlan:
    """Who plays one seat and how."""

    seat: int
    name: str
    version: str
    attributes: dict[str, Any]
    bot: BotKey | None  # a local bot (house or uploaded); None for a remote bot
    remote_bot: str = ""  # the remote bot's id on the referee ("bot-<pk>")
    person: bool = False  # a person in the browser: a relay on this worker plays the seat (arena.people)

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
        elif kind == Bot.PERSON:
            plan.append(SeatPlan(**common, bot=None, person=True))
        elif kind == Bot.UPLOAD:
            plan.append(SeatPlan(**common, bot=BotKey(spec, sandboxed=True, root=upload_root(bot_id, number, spec))))
        else:
            plan.append(SeatPlan(**common, bot=BotKey(spec, sandboxed=False)))
    return plan


# ---------------------------------------------------------------------- 3. played
_referee: RefereeClient | None = None


def referee() -> RefereeClient:
    """The referee this process uses: ``REFEREE_ADDRESS`` (with ``PARLOUR_OPERATOR_TOKEN``, and
    ``PARLOUR_REFEREE_SOCKET`` where the same referee has a Unix socket on this machine; without it
    sandboxed bots reach the referee through a relay), or a private one started on first use and
    stopped at exit."""
    global _referee
    if _referee is None:
        if settings.REFEREE_ADDRESS:
            _referee = RefereeClient(settings.REFEREE_ADDRESS, settings.PARLOUR_OPERATOR_TOKEN,
                                     settings.PARLOUR_REFEREE_SOCKET or None)
        else:
            from ..fleet.processes import seed_key_env

            _referee = LocalReferee(["--token-verifier", "arena.fleet.token_verifier:verify",
                                     "--presence", "arena.fleet.presence_board:PresenceBoard"], env=seed_key_env())
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


@dataclass
class PlayedMatch:
    """What the road brings back: the referee's outcome, where its replay was stored, and what the
    sandboxes of faulted bots reported (per seat, for their owners)."""

    outcome: MatchOutcome
    replay_path: str = ""
    sandbox_lines: dict[int, list[str]] = field(default_factory=dict)


def replay_file(match: Match) -> Path:
    return settings.PARLOUR_REPLAY_DIR / f"{match.key.replace('/', '_')}.replay.json.gz"


def play(match: Match, plan: list[SeatPlan] | None = None) -> PlayedMatch:
    """Play the match on the referee and bring back its outcome (raises when the platform
    failed: the referee unreachable, a sandbox refused). ``plan``: its seats, if read already."""
    plan = seat_plan(match) if plan is None else plan
    if any(p.bot and p.bot.sandboxed for p in plan):
        from sandbox import support
        from sandbox.settings import environment as sandbox_environment

        # with a sandbox service, that service's machine decides (it answers a refused start)
        if not sandbox_environment().service and support().mode == "refused":  # before the match exists: nobody waits for a bot that never comes
            raise SandboxUnavailable(support().describe())
    # a match with remote seats is created on the referee those bots are connected to; any other
    # through the fleet's name, on whichever referee answers (arena.fleet.routing, docs/deploy.md)
    holder = holder_of([p.remote_bot for p in plan if p.remote_bot])
    created = (referee_at(holder.address) if holder else referee()).create_match(
        match.game, match.variant, match.options, match.seed, TimeControl(**match.time_control), [p.name for p in plan],
        [p.remote_bot for p in plan], [p.attributes for p in plan], [p.version for p in plan], record_frames=True)
    client = referee_at(created.referee_address)  # every seat connects where the match lives
    live = LiveMatch(match.pk, referee_id=created.referee_id)
    pool = pool_for(client)
    bots: dict[int, WarmBot] = {}
    relays = []
    outcome: MatchOutcome | None = None
    sandbox_lines: dict[int, list[str]] = {}
    try:
        for p, token in zip(plan, created.seat_tokens):
            if p.bot is not None:
                bots[p.seat] = pool.acquire(p.bot)
                bots[p.seat].play(token)
            elif p.person:
                relays.append(start_relay(client.address, token, match.pk, p.seat))
        outcome = client.follow(created.match_id, timeout=match_time_limit(match.time_control, len(plan)),
                                on_frames=live.add)
    finally:
        for relay in relays:  # a relay ends with its seat's stream (the match's end, or the referee gone)
            relay.join(5.0)
        for seat, bot in bots.items():
            lines = pool.release(bot, outcome.seats[seat] if outcome and seat < len(outcome.seats) else None)
            if lines:
                sandbox_lines[seat] = lines
    played = PlayedMatch(outcome, sandbox_lines=sandbox_lines)
    if outcome.replay_gz is not None:
        path = replay_file(match)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(outcome.replay_gz)  # as the referee gzipped it: stored once, never re-encoded
        replay_copies.prepare(path)  # the viewer's parts, before the match is announced recorded
        played.replay_path = str(path)
    return played


# ---------------------------------------------------------------------- 4. recorded once
def record(match: Match | int, played: PlayedMatch | None, aborted: str = "") -> Match | None:
    """The one function that records a match of any kind: the seats' rows from the referee's
    result rows, the result, the replay's path and the ratings, in one transaction. ``match``: the
    row as its attempt claimed it (else its id: read here). Returns the match as this call recorded
    it (so what follows need not read it again), or None if the match was recorded already.
    ``played=None`` aborts the match unplayed, for ``aborted``'s reason."""
    if not isinstance(match, Match):
        match = Match.objects.get(pk=match)
    outcome = played.outcome if played else None
    with transaction.atomic():
        if outcome is None or not outcome.finished:
            # the referee's verdict on the play (a runaway match) is a result; no play at all (the
            # platform's cap, an operator's decision) leaves the match unplayed: its tournament halts
            ended = {"status": Match.ABORTED, "result": ({"aborted": outcome.status} if outcome else
                                                         {"aborted": aborted or "no result", "unplayed": True})}
        else:
            result = dict(outcome.result)
            if played.sandbox_lines:  # the sandboxes' verdicts on faulted bots, for their owners
                result["sandbox_logs"] = [{"seat": seat, "line": line}
                                          for seat, lines in sorted(played.sandbox_lines.items()) for line in lines]
            ended = {"status": Match.FINISHED, "result": result, "replay_path": played.replay_path}
        ended["finished"] = timezone.now()
        # recorded once: the UPDATE changes the row only while it is unrecorded, and holds its lock
        # to the commit, so a second recording of the match waits, then finds it recorded
        if not Match.objects.filter(pk=match.pk, status__in=Match.UNRECORDED).update(**ended):
            return None
        for name, value in ended.items():
            setattr(match, name, value)
        if match.status == Match.ABORTED:
            return match
        # a forfeited seat ranks last in every count the site keeps (standings, crosstables, lists);
        # what its autopilot scored stays in the result and the replay
        ranks = forfeit_last([row.rank for row in outcome.seats], [row.status for row in outcome.seats])
        seats = [MatchSeat(pk=pk, bot_version_id=version, score=row.score, rank=rank, status=row.status)
                 for (pk, version), row, rank in zip(seat_rows(match), outcome.seats, ranks)]
        update_rows(seats, ["score", "rank", "status"])
        if match.rated and rate_match(match, seats):
            ladder_editions.renew(match.game)  # the ratings were bulk-written: no signal renews the ladder pages
    return match


def seat_rows(match: Match) -> list[tuple[int, int]]:
    """The match's seats as (row id, version id), in seat order: what recording writes to (two
    columns, not the models: building those cost more than the query, issue 13)."""
    return list(match.seats.order_by("seat").values_list("pk", "bot_version_id"))


# ---------------------------------------------------------------------- 5. followed up
def finish(match_id: int, recorded: Match | None = None) -> None:
    """What follows a match's recording, whoever recorded it. ``recorded``: the match as its
    recording left it, when the caller has it (else read here)."""
    match = recorded or Match.objects.get(pk=match_id)
    try:
        live_frames.recorded(match_id, match.status)
    except Exception as exc:  # noqa: BLE001 - Redis down: the live frames expire by themselves
        log.warning("match %s: could not end its live frames: %s", match_id, exc)
    after_match(match)


def after_match(match: Match) -> None:
    """What a recorded match moves on: its tournament's next round, its upload's verdict, its
    bots' webhooks."""
    tournaments.after_match(match)
    uploads.after_match(match)
    webhooks.match_recorded(match)


# ---------------------------------------------------------------------- handed back
def backoff(failures: int) -> float:
    """Seconds before the next attempt after this many failures: 1, 2, 4, ... up to
    ``PARLOUR_RETRY_MAX_DELAY``."""
    return min(settings.PARLOUR_RETRY_MAX_DELAY, settings.PARLOUR_RETRY_FIRST_DELAY * 2 ** max(0, failures - 1))


def hand_back(match_id: int, attempt: int, reason: str, counted: bool = True) -> bool:
    """The platform failed this attempt: schedule the match again after its back-off, or abort it
    unplayed at the cap. True when the match was recorded (aborted) by this call. ``counted``
    False: a refusal under load (a full referee), scheduled again after the first back-off without
    counting towards the cap."""
    with transaction.atomic():
        match = (Match.objects.select_for_update()
                 .filter(pk=match_id, status=Match.RUNNING, attempts=attempt).first())
        if match is None:  # recorded meanwhile, or taken over by a newer attempt
            return False
        failures = match.failures + (1 if counted else 0)
        if failures >= settings.PARLOUR_PLATFORM_FAILURES:
            Match.objects.filter(pk=match_id).update(failures=failures, last_failure=reason)
            log.error("match %s aborted: the platform failed it %s times (last: %s)", match.key, failures, reason)
            return record(match, None, f"the platform failed it {failures} times (last: {reason})") is not None
        delay = backoff(max(failures, 1))
        Match.objects.filter(pk=match_id).update(status=Match.SCHEDULED, worker="", failures=failures,
                                                 last_failure=reason[:1000],
                                                 due=timezone.now() + timedelta(seconds=delay))
        log.warning("match %s: %s; played again in %.0f s (failure %s of at most %s)",
                    match.key, reason, delay, failures, settings.PARLOUR_PLATFORM_FAILURES)
        transaction.on_commit(lambda: enqueue_match_later(match_id, delay))
    return False
