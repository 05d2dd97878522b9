"""docs/benchmarks.md: every bench's latest results, one section per bench, each written by its bench.

A bench run with ``--record`` (``make bench`` passes it) replaces its own section, and only it: the
text between its two markers (``<!-- bench:NAME -->`` ... ``<!-- /bench:NAME -->``); the page's
introduction and the other benches' sections are kept as they are. A section is a heading, a line
saying when, where and how it was measured (date, CPU model, cores, Python version, commit, the
command), a short note and one table. The history of earlier results is in git, not on the page.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "benchmarks.md"
# The page's order of sections (``make bench``'s order); a section of another name goes last.
ORDER = ("engines", "bots", "referee", "arena/pairing", "arena/road", "arena/fleet", "web", "web/people", "sandbox")
SECTION = re.compile(r"<!-- bench:(?P<name>[\w/-]+) -->\n.*?<!-- /bench:(?P=name) -->\n", re.S)
INTRODUCTION = "# Benchmarks\n\nEach bench's latest results, written by the bench itself (`make bench`).\n"


def add_record_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--record", action="store_true",
                        help=f"write this run's results into {DOC.relative_to(ROOT)} (this bench's section only)")


def machine() -> str:
    """The CPU model, the cores this process may use, the Python version, and how loaded the machine
    was when the run ended (the one-minute load average: on a shared machine it says much)."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return f"{model}, {cores} cores, Python {platform.python_version()}{load}"


def commit() -> str:
    """The checkout's commit, and whether the code measured differs from it (the docs aside)."""
    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)

    head = git("rev-parse", "--short", "HEAD")
    if head.returncode != 0:
        return "not a git checkout"
    changed = git("diff", "--quiet", "HEAD", "--", ".", ":(exclude)*.md").returncode != 0
    return head.stdout.strip() + (" with uncommitted changes" if changed else "")


# The code measured is the code this run started with: its commit is read when the bench starts.
COMMIT = commit()


def command() -> str:
    """How this bench was run, as a reader would type it."""
    script = Path(sys.argv[0]).resolve()
    shown = script.relative_to(ROOT) if script.is_relative_to(ROOT) else script
    return " ".join(["python", str(shown), *sys.argv[1:]])


def verdict(met: bool) -> str:
    """A target's cell: met, or not met in bold."""
    return "met" if met else "**not met**"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    def line(cells: Sequence[object]) -> str:
        return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"

    assert all(len(row) == len(headers) for row in rows), "every row has a cell per column"
    return "\n".join([line(headers), line(["---"] * len(headers)), *map(line, rows)])


def section(name: str, title: str, note: str, headers: Sequence[str], rows: Sequence[Sequence[object]],
            measured: str) -> str:
    return (f"<!-- bench:{name} -->\n## {title}\n\n{measured}\n\n{note.strip()}\n\n"
            f"{markdown_table(headers, rows)}\n<!-- /bench:{name} -->\n")


def replace_section(page: str, name: str, text: str) -> str:
    """The page with section ``name`` replaced by ``text`` (or added in its place in ORDER), every
    other character of the page kept."""
    found = {m.group("name"): m for m in SECTION.finditer(page)}
    if name in found:
        old = found[name]
        return page[:old.start()] + text + page[old.end():]
    rank = ORDER.index(name) if name in ORDER else len(ORDER)
    after = [m for other, m in found.items() if (ORDER.index(other) if other in ORDER else len(ORDER)) > rank]
    if after:  # before the first section that comes after it
        at = min(m.start() for m in after)
        return page[:at] + text + "\n" + page[at:]
    return page.rstrip("\n") + "\n\n" + text


def record(name: str, title: str, note: str, headers: Sequence[str], rows: Sequence[Sequence[object]],
           path: Path = DOC) -> None:
    """Write this run's table as section ``name`` of docs/benchmarks.md (see the module's docstring)."""
    today = datetime.date.today()
    measured = (f"Measured on {today.day} {today:%b %Y} on {machine()}; commit {COMMIT}; "
                f"`{command()}`.")
    page = path.read_text(encoding="utf-8") if path.exists() else INTRODUCTION
    path.write_text(replace_section(page, name, section(name, title, note, headers, rows, measured)),
                    encoding="utf-8")
    print(f"recorded in {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}, section {name}")
