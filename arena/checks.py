"""An uploaded version's check match: one match on the one road, the version in seat 0 against
random house bots, with a short clock. The upload returns at once with the version *pending*;
the match is an arena task like any other (its page follows it live), and when it is recorded
the version becomes *active* (the newest active version plays; older ones retire) or *rejected*,
with a report saying why.

A version passes when the match finishes and its seat made no fault (no timeout, no illegal or
malformed answer, no crash): the report names the first faulty decision, with the bot's own log
lines.
"""
from __future__ import annotations

import gzip
import json
import secrets

from django.db import transaction

from .games import game_info
from .house import house_version
from .models import BotVersion, Match, MatchSeat
from .queue import enqueue_matches

CHECK_TIME_CONTROL = {"move_limit": 1.0, "bank": 5.0}  # seconds: a check has no time to waste
REPORT_LINES = 200  # of the bot's log lines kept in the report


def sandbox_support() -> tuple[bool, str]:
    """Whether this platform can run uploaded bots (their check included), and a line saying how.
    The workers play them, so the workers say (their heartbeats): open when one of the live
    workers can. With no worker heard from (none started yet, Redis away, the tests' own site),
    this process looks for itself, as a worker would."""
    from sandbox import support

    from .heartbeats import alive_workers

    try:
        reports = [info["sandbox"] for info in alive_workers().values() if "sandbox" in info]
    except Exception:  # noqa: BLE001 - Redis away: look here instead
        reports = []
    if not reports:
        return support().mode != "refused", support().describe()
    running = [r for r in reports if r["runs"]]
    if running:
        return True, f"{running[0]['says']} ({len(running)} of {len(reports)} live worker(s) run uploaded bots)"
    return False, f"{reports[0]['says']} (on every live worker)"


def start_check(version: BotVersion, seed: int | None = None) -> Match:
    """Schedule the check match of a pending version (played once the transaction commits)."""
    game = game_info(version.bot.game)
    players = game.smallest_table
    seed = seed if seed is not None else secrets.randbits(63)
    with transaction.atomic():
        match = Match.objects.create(key=f"check/{version.pk}/{secrets.token_hex(4)}", game=game.id, seed=seed,
                                     rated=False, check_of=version, time_control=CHECK_TIME_CONTROL)
        opponents = [house_version(game.id, "random" if i == 1 else f"random#{i}") for i in range(1, players)]
        MatchSeat.objects.bulk_create([MatchSeat(match=match, seat=i, bot_version=v)
                                       for i, v in enumerate([version, *opponents])])
        transaction.on_commit(lambda: enqueue_matches([match.pk]))
    return match


def after_match(match: Match) -> None:
    """Give the checked version its verdict once its check match is recorded."""
    if match.check_of_id is None:
        return
    version = BotVersion.objects.select_related("bot").get(pk=match.check_of_id)
    passed, report = verdict(match)
    with transaction.atomic():
        version.smoke_report = json.dumps(report, indent=1)
        version.state = BotVersion.ACTIVE if passed else BotVersion.REJECTED
        version.save(update_fields=["smoke_report", "state"])
        if passed:  # the newest active version plays; the older ones retire
            (BotVersion.objects.filter(bot=version.bot, state=BotVersion.ACTIVE, number__lt=version.number)
             .update(state=BotVersion.RETIRED))


def verdict(match: Match) -> tuple[bool, dict]:
    """Did seat 0 play the whole match without a fault? And the report that says so."""
    report: dict = {"game": match.game, "seed": match.seed, "match": match.pk, "sandbox": sandbox_support()[1]}
    if match.status != Match.FINISHED:
        report["error"] = f"the check match did not finish: {(match.result or {}).get('aborted', match.status)}"
        return False, report
    result = match.result
    report["result"] = {"scores": result["scores"], "ranks": result["ranks"], "statuses": result["statuses"]}
    replay = json.loads(gzip.decompress(open(match.replay_path, "rb").read()))
    lines = [f"step {e['step']}, decision {e['decision']}: {e['line']}" if e.get("decision") else e["line"]
             for e in replay["bot_logs"] if e["seat"] == 0]
    lines += [e["line"] for e in result.get("sandbox_logs", []) if e["seat"] == 0]
    report["log"] = lines[:REPORT_LINES]
    faults = [(step, e) for step, e in enumerate(replay["log"], 1) if e.get("seat") == 0 and e.get("fault")]
    if faults:
        report["fault_step"], first = faults[0]  # the replay's frame showing the fault
        report["error"] = (f"the bot faulted on decision {first['decision']} (step {report['fault_step']}): "
                           f"{first['fault']} "
                           f"({len(faults)} fault(s) in all); its seat ended {result['statuses'][0]!r}")
        return False, report
    if result["statuses"][0] != "ok":
        report["error"] = f"the bot's seat ended with status {result['statuses'][0]!r}"
        return False, report
    return True, report
