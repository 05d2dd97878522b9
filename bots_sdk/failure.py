"""Saying why a bot failed, in the bot's own terms: the exception, its message, and the traceback
through the bot's own files (the SDK's frames, which every bot shares, are left out).

The same words on every path: local play and the referee's ``Answer.failure`` both carry the
reason built here, and the traceback travels as the bot's log lines of the decision that failed.
"""
from __future__ import annotations

import os
import sys
import sysconfig
import traceback
from pathlib import Path

_SDK = str(Path(__file__).resolve().parent) + os.sep
_REFEREE = str(Path(__file__).resolve().parent.parent / "referee") + os.sep
_LIBRARY = tuple(str(Path(p).resolve()) + os.sep for p in
                 {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")})


def is_bot_file(filename: str) -> bool:
    """A file of the bot's own (not the SDK, the referee, Python's library or installed packages)."""
    if filename.startswith("<"):
        return False
    path = str(Path(filename).resolve())
    return not path.startswith((_SDK, _REFEREE, *_LIBRARY))


def shown_path(filename: str) -> str:
    """A bot file as its author knows it: relative to the working folder when inside it, else to
    the outermost import folder holding it (a sandboxed bot's folder), else as it is."""
    path = Path(filename).resolve()
    relative = os.path.relpath(path)
    if not relative.startswith(".."):
        return relative
    roots = [Path(p).resolve() for p in sys.path if p and Path(p).resolve() != Path("/")]
    holding = sorted((r for r in roots if r in path.parents), key=lambda r: len(r.parts))
    return str(path.relative_to(holding[0])) if holding else str(path)


def failure_report(exc: BaseException, prefix: str = "crash") -> tuple[str, list[str]]:
    """The fault reason (``crash: ValueError: boom (at bot.py:12, in decide)``) and the traceback's
    lines, from the first frame in the bot's own files (all frames when none is)."""
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [i for i, f in enumerate(frames) if is_bot_file(f.filename)]
    if mine:
        frames = traceback.StackSummary.from_list(frames[mine[0]:])
    where = ""
    if mine:
        last = frames[max(i for i, f in enumerate(frames) if is_bot_file(f.filename))]
        where = f" (at {shown_path(last.filename)}:{last.lineno}, in {last.name})"
    elif isinstance(exc, SyntaxError) and exc.filename:
        where = f" (at {shown_path(exc.filename)}:{exc.lineno})"
    message = str(exc).splitlines()[0] if str(exc) else ""
    reason = f"{prefix}: {type(exc).__name__}{': ' + message if message else ''}{where}"
    lines = ["Traceback (most recent call last):"]
    for frame in frames:
        lines.append(f'  File "{shown_path(frame.filename)}", line {frame.lineno}, in {frame.name}')
        if frame.line:
            lines.append(f"    {frame.line}")
    lines += [line.rstrip("\n") for line in traceback.format_exception_only(type(exc), exc)]
    return reason[:500], [line for text in lines for line in text.split("\n")]
