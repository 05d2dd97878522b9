"""What the sandbox costs, beside the same work without it, measured in one run.

    python bench/sandbox.py [--matches N] [--json]

- start-up: a sandbox that runs ``python -c pass`` (namespaces, root filesystem, cgroup, uid
  change, then the cleanup) beside the same command as a plain process;
- whole matches: a file bot against a random bot through one referee (Tussie Mussie), the file bot
  sandboxed, beside the same matches with the file bot as a plain SDK process; the ratio is the
  sandbox's share of a match;
- a decision's think time as the referee measured it, sandboxed and plain (the bot's side of the
  round trip, which the sandbox's CPU quota and Unix socket could change);
- the same sandboxed matches launched through the sandbox service (``python -m sandbox serve``,
  ``PARLOUR_SANDBOX_SERVICE``) beside launched in-process: the ratio is what the service adds.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]  # run as a script: the checkout's packages, then the imports below

from bots_sdk.via_referee import play_via_referee  # noqa: E402
from referee.client import LocalReferee  # noqa: E402
from sandbox import Sandbox, support  # noqa: E402
from referee.timecontrol import TimeControl  # noqa: E402

from benchmarks_doc import add_record_flag, record  # noqa: E402

BOT = "from bots_sdk import RandomBot\n\n\nclass Plain(RandomBot):\n    pass\n"


def start_up(repeats: int) -> tuple[float, float]:
    command = [sys.executable, "-I", "-c", "pass"]
    plain, boxed = [], []
    for _ in range(repeats):
        began = time.perf_counter()
        subprocess.run(command, check=True)
        plain.append(time.perf_counter() - began)
        began = time.perf_counter()
        box = Sandbox(None, None, "", command=command)
        box.start()
        box.wait()
        box.close()
        boxed.append(time.perf_counter() - began)
    return statistics.median(plain), statistics.median(boxed)


def matches(referee: LocalReferee, spec: str, sandboxed: bool, count: int) -> tuple[float, list[float]]:
    began = time.perf_counter()
    thinks = []
    for seed in range(count):
        replay = play_via_referee(referee, "tussie-mussie", "standard", {}, seed, TimeControl(),
                                  [spec, "random"], ["file", "random"], timeout=120, sandboxed=sandboxed)
        assert replay["result"]["statuses"] == ["ok", "ok"], replay["result"]
        thinks += [e["think_ms"] for e in replay["log"] if e["seat"] == 0 and e["source"] == "bot"]
    return (time.perf_counter() - began) / count, thinks


def through_service(referee: LocalReferee, spec: str, count: int, socket_path: Path) -> float:
    """Sandboxed matches with the sandbox service launching the file bot (a real service process)."""
    service = subprocess.Popen([sys.executable, "-m", "sandbox", "serve", "--socket", str(socket_path)], cwd=ROOT,
                               env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    try:
        while not socket_path.exists():
            time.sleep(0.05)
        os.environ["PARLOUR_SANDBOX_SERVICE"] = str(socket_path)
        return matches(referee, spec, True, count)[0]
    finally:
        del os.environ["PARLOUR_SANDBOX_SERVICE"]
        service.kill()
        service.wait()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    add_record_flag(parser)
    args = parser.parse_args()
    if not support().full:
        print(support().describe())
        return 1
    plain_start, boxed_start = start_up(max(args.matches, 5))
    with tempfile.TemporaryDirectory() as folder, LocalReferee() as referee:
        (Path(folder) / "plain_bot.py").write_text(BOT)
        spec = f"{folder}/plain_bot.py:Plain"
        matches(referee, spec, True, 1)  # warm the page cache for both
        plain_match, plain_think = matches(referee, spec, False, args.matches)
        boxed_match, boxed_think = matches(referee, spec, True, args.matches)
        service_match = through_service(referee, spec, args.matches, Path(folder) / "service.sock")
    rows = {
        "start_up_s": {"plain": plain_start, "sandboxed": boxed_start, "ratio": boxed_start / plain_start},
        "match_s": {"plain": plain_match, "sandboxed": boxed_match, "ratio": boxed_match / plain_match},
        "service_match_s": {"plain": boxed_match, "sandboxed": service_match, "ratio": service_match / boxed_match},
        "think_ms_median": {"plain": statistics.median(plain_think), "sandboxed": statistics.median(boxed_think),
                            "ratio": statistics.median(boxed_think) / statistics.median(plain_think)},
    }
    if args.record:
        record_results(rows, args.matches)
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print(support().describe())
        for name, row in rows.items():
            print(f"{name:18} plain {row['plain']:.4f}  sandboxed {row['sandboxed']:.4f}  ratio {row['ratio']:.2f}")
    return 0


def record_results(rows: dict, matches: int) -> None:
    names = {"start_up_s": ("a process's start-up and cleanup (`python -c pass`, median)", "s"),
             "match_s": (f"a Tussie Mussie match, file bot against random (mean of {matches})", "s"),
             "service_match_s": (f"the same match, sandboxed in-process (plain column) and through the sandbox "
                                 f"service (sandboxed column; mean of {matches})", "s"),
             "think_ms_median": ("a decision's think time as the referee charged it (median)", "ms")}
    record("sandbox", "Sandbox: what it costs",
           "The same work with the file bot sandboxed (namespaces, uid `nobody`, read-only root, cgroup "
           "limits; `docs/security.md`) and as a plain process, through one referee, in one run. No "
           "target: the figures say what an uploaded bot's sandbox adds.",
           ["measure", "plain", "sandboxed", "sandboxed / plain"],
           [[label, f"{row['plain']:.4f} {unit}", f"{row['sandboxed']:.4f} {unit}", f"{row['ratio']:.2f}"]
            for name, row in rows.items() for label, unit in [names[name]]])


if __name__ == "__main__":
    sys.exit(main())
