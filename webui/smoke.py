"""The upload smoke match: one match of an uploaded bot against random bots, played exactly as the
arena plays it — through a private referee, the uploaded bot in its sandboxed process
(``bots_sdk.sandbox``, docs/security.md), the house bots in their own SDK processes. The web
process never imports the bot.

A version passes when the match finishes and its seat made no fault (no timeout, no illegal or
malformed answer, no crash): the report says which decision failed, with the bot's own log lines.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from bots_sdk.sandbox import SandboxUnavailable, support
from bots_sdk.via_referee import LocalReferee, play_via_referee
from referee.timecontrol import TimeControl

# the smallest table of each game's standard variant (``python -m bots_sdk games``): webui never
# imports the engines, so the counts are written here
SMOKE_PLAYERS = {"tussie-mussie": 2, "tricky-twist": 3, "misty": 2, "bszzzz": 3}
REPORT_LINES = 200  # of the bot's log lines kept in the report


def wall_seconds() -> int:
    return int(getattr(settings, "PARLOUR_SMOKE_TIMEOUT", os.environ.get("PARLOUR_SMOKE_TIMEOUT", 120)))


@dataclass
class SmokeResult:
    passed: bool
    report: dict = field(default_factory=dict)

    def text(self) -> str:
        return json.dumps(self.report, indent=1)


def run_smoke(game: str, spec: str, root: Path | None = None, seed: int = 1) -> SmokeResult:
    """Play one match of ``spec`` (``/abs/path/file.py:Class``) in seat 0 against random bots;
    ``root`` is the folder of the upload (default: the file's folder), the sandbox's ``/bot``."""
    players = SMOKE_PLAYERS.get(game)
    report: dict = {"game": game, "spec": spec, "seed": seed, "sandbox": support().describe()}
    if players is None or not Path(spec.rpartition(":")[0]).is_file():
        report["error"] = "unknown game" if players is None else "the bot file is missing"
        return SmokeResult(False, report)
    names = ["uploaded bot"] + [f"random ({i})" for i in range(1, players)]
    try:
        with LocalReferee() as referee:
            replay = play_via_referee(referee, game, "standard", {}, seed, TimeControl(1.0, 5.0),
                                      [spec] + ["random"] * (players - 1), names, timeout=wall_seconds(),
                                      sandboxed=True, bot_roots=[str(root) if root else None] + [None] * (players - 1))
    except SandboxUnavailable as exc:
        report["error"] = str(exc)
        return SmokeResult(False, report)
    except Exception as exc:  # noqa: BLE001 - a match that never ended, a referee that failed
        report["error"] = f"the smoke match did not finish: {type(exc).__name__}: {exc}"
        return SmokeResult(False, report)
    result = replay["result"]
    report["result"] = {"scores": result["scores"], "ranks": result["ranks"], "statuses": result["statuses"]}
    report["log"] = [f"decision {e['decision']}: {e['line']}" if e["decision"] is not None else e["line"]
                     for e in replay["bot_logs"] if e["seat"] == 0][:REPORT_LINES]
    faults = [e for e in replay["log"] if e.get("seat") == 0 and e.get("fault")]
    if faults:
        first = faults[0]
        report["error"] = (f"the bot faulted on decision {first['decision']}: {first['fault']} "
                           f"({len(faults)} fault(s) in all); its seat ended {result['statuses'][0]!r}")
        return SmokeResult(False, report)
    if result["statuses"][0] != "ok":
        report["error"] = f"the bot's seat ended with status {result['statuses'][0]!r}"
        return SmokeResult(False, report)
    return SmokeResult(True, report)


def smoke_version(version) -> bool:
    """Run the smoke match of a pending ``BotVersion`` and record the verdict (active or rejected)."""
    from arena.models import BotVersion
    from arena.runner import upload_root

    try:
        root = upload_root(version)
        result = run_smoke(version.bot.game, version.spec, Path(root) if root else None)
    except Exception as exc:  # the sandbox itself failed: the version cannot be vouched for
        result = SmokeResult(False, {"error": f"the smoke match could not run: {type(exc).__name__}: {exc}"})
    version.smoke_report = result.text()
    version.state = BotVersion.ACTIVE if result.passed else BotVersion.REJECTED
    version.save(update_fields=["smoke_report", "state"])
    if result.passed:  # the newest active version plays; the older ones retire
        (BotVersion.objects.filter(bot=version.bot, state=BotVersion.ACTIVE, number__lt=version.number)
         .update(state=BotVersion.RETIRED))
    return result.passed
