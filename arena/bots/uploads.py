"""An uploaded version's way in: the upload (its files stored, a *pending* version), its check
match, and the verdict that makes it *active* or *rejected*.

The check is one match on the one road, the version in seat 0 against random house bots, with a
short clock. The upload returns at once with the version pending; the match is an arena task like
any other (its page follows it live), and when it is recorded the version becomes *active* (the
newest active version plays; older ones retire) or *rejected*, with a report saying why.

A version passes when the match finishes and its seat made no fault (no timeout, no illegal or
malformed answer, no crash): the report names the first faulty decision, with the bot's own log
lines.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import secrets
import shutil
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from ..fleet import webhooks
from ..fleet.enqueue import enqueue_matches
from ..games import game_info
from ..models import Bot, BotVersion, Match, MatchSeat
from .house_entrants import house_version

CHECK_TIME_CONTROL = {"move_limit": 1.0, "bank": 5.0}  # seconds: a check has no time to waste
REPORT_LINES = 200  # of the bot's log lines kept in the report


def sandbox_support() -> tuple[bool, str]:
    """Whether this platform can run uploaded bots (their check included), and a line saying how.
    The workers play them, so the workers say (their heartbeats): open when one of the live
    workers can. With no worker heard from (none started yet, Redis away, the tests' own site),
    this process looks for itself, as a worker would."""
    from sandbox import support

    from ..fleet.heartbeats import alive_workers

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


class UploadError(ValueError):
    """An upload the platform refuses: one line for its author."""


def recent_uploads(user) -> list[datetime]:
    """When this user's uploads of the last hour were made (for the hourly limit), rejected ones
    left out: a bot that failed its check costs its author nothing, so fixing it and uploading
    again is never held back by the failures."""
    since = timezone.now() - timedelta(hours=1)
    return list(BotVersion.objects.filter(bot__owner=user, bot__kind=Bot.UPLOAD, created__gte=since)
                .exclude(state=BotVersion.REJECTED).values_list("created", flat=True))


def upload_version(owner, game: str, name: str, raw: bytes, *, files: Mapping[str, bytes], module: str,
                   class_name: str) -> BotVersion:
    """A new version of ``owner``'s uploaded bot ``name`` (created with its first version), its
    ``files`` stored and its check match scheduled: the version comes back *pending*. ``raw``: the
    file as uploaded (its digest is kept); ``module``: the file (of ``files``) holding the bot's
    class ``class_name``. Raises ``UploadError`` when the name is the owner's remote bot's."""
    with transaction.atomic():
        bot, _ = Bot.objects.get_or_create(owner=owner, game=game, name=name, deleted=None,
                                           defaults={"kind": Bot.UPLOAD})
        if bot.kind != Bot.UPLOAD:
            raise UploadError("that name belongs to your remote bot")
        bot = Bot.objects.select_for_update().get(pk=bot.pk)
        number = (bot.versions.aggregate(n=Max("number"))["n"] or 0) + 1
        path = store_files(bot, number, files, module)
        version = BotVersion.objects.create(bot=bot, number=number, spec=f"{path}:{class_name}",
                                            sha256=hashlib.sha256(raw).hexdigest(), state=BotVersion.PENDING)
        start_check(version)  # played by a worker once this commits: the upload returns at once
    return version


def version_folder(bot_id: int, number: int) -> Path:
    """Where an uploaded version's files are stored: ``PARLOUR_UPLOAD_DIR/<bot>/<number>``."""
    return (settings.PARLOUR_UPLOAD_DIR / str(bot_id) / str(number)).resolve()


def store_files(bot: Bot, number: int, files: Mapping[str, bytes], module: str) -> Path:
    """Write a version's files in its folder; the path of its ``module``."""
    directory = version_folder(bot.pk, number)
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    for relative, content in files.items():
        target = (directory / relative).resolve()
        if directory not in target.parents:  # checked by the form already; belt and braces
            raise ValueError(f"unsafe path {relative!r}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    return directory / module


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
        webhooks.version_checked(version, report)


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
    asked = [(step, e) for step, e in enumerate(replay["log"], 1) if e.get("seat") == 0 and "decision" in e]
    faults = [(own, step, e) for own, (step, e) in enumerate(asked, 1) if e.get("fault")]
    if faults:
        own, report["fault_step"], first = faults[0]  # the replay's frame showing the fault
        report["error"] = (f"the bot faulted on its decision {own} (step {report['fault_step']} of the match): "
                           f"{first['fault']} "
                           f"({len(faults)} {'fault' if len(faults) == 1 else 'faults'} in all); "
                           f"its seat ended {result['statuses'][0]!r}")
        return False, report
    if result["statuses"][0] != "ok":
        report["error"] = f"the bot's seat ended with status {result['statuses'][0]!r}"
        return False, report
    return True, report
