"""The copies of a stored replay that the site serves to visitors, made beside it when the match is
recorded (``prepare``), so that no page waits for them: a replay's first view is a read of a file.

- ``<replay>.shared.gz``: the replay without the bots' log lines and notes (what any visitor may see
  of a finished match when no seat's notes are public); a link to the replay when it holds none;
- ``<replay>.spectator.gz``: that copy without the seats' own views, saying how many seats have
  views (``"seat_views": N``): what the viewer fetches to draw its first step;
- ``<replay>.seats.gz``: ``{"views": [...]}``, the seats' own views, fetched when a seat's
  perspective is picked (in a 6-seat Bszzzz! match most of the file).

Each is written atomically and made again when older than the replay (a replay stored anew). A
copy missing (a match recorded before this, a full disk) is made on the first request instead.
"""
from __future__ import annotations

import gzip
import logging
import os
import shutil
from pathlib import Path
from typing import Any

import orjson

GZIP_LEVEL = 6
NO_LOG_LINES = b'"bot_logs":[]'  # as referee/replay.py writes a replay without log lines
NO_NOTES = b'"notes":[]'  # ... and without notes (replays made before notes have no such key)
PARTS = ("spectator", "seats")
log = logging.getLogger("parlour.arena")


def pack(data: Any) -> bytes:
    """JSON, gzipped (the same bytes for the same data: no timestamp)."""
    return gzip.compress(orjson.dumps(data), compresslevel=GZIP_LEVEL, mtime=0)


def fresh(copy: Path, stored: Path) -> bool:
    return copy.is_file() and copy.stat().st_mtime >= stored.stat().st_mtime


def write_atomically(path: Path, body: bytes) -> None:
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(body)
    os.replace(temporary, path)


def without_private_parts(replay: dict) -> dict:
    return {**replay, "bot_logs": [], "notes": []}


def shared_copy(stored: Path) -> Path:
    """The replay without the bots' log lines and notes, beside it (see the module's docstring)."""
    shared = stored.with_name(stored.name + ".shared.gz")
    if fresh(shared, stored):
        return shared
    raw = gzip.decompress(stored.read_bytes())
    # an empty top-level list, found without parsing: inside a JSON string these quotes would be escaped
    if NO_LOG_LINES not in raw or (NO_NOTES not in raw and b'"notes"' in raw):
        write_atomically(shared, pack(without_private_parts(orjson.loads(raw))))
        return shared
    temporary = shared.with_name(f"{shared.name}.{os.getpid()}.tmp")  # nothing to take out: the same bytes
    temporary.unlink(missing_ok=True)
    try:
        os.link(stored, temporary)
    except OSError:
        shutil.copyfile(stored, temporary)
    os.replace(temporary, shared)
    return shared


def spectator_part(replay: dict) -> dict:
    """The replay without the seats' views, saying how many seats have views (``seat_views``)."""
    part = {k: v for k, v in replay.items() if k != "views"}
    if replay.get("views"):
        part["seat_views"] = len(replay["views"])
    return part


def part_paths(stored: Path) -> dict[str, Path]:
    return {part: stored.with_name(f"{stored.name}.{part}.gz") for part in PARTS}


def part_copies(stored: Path) -> dict[str, Path]:
    """The visitors' two parts of the replay, made from it (without log lines and notes) if missing."""
    paths = part_paths(stored)
    if all(fresh(p, stored) for p in paths.values()):
        return paths
    replay = without_private_parts(orjson.loads(gzip.decompress(stored.read_bytes())))
    write_atomically(paths["spectator"], pack(spectator_part(replay)))
    write_atomically(paths["seats"], pack({"views": replay.get("views") or []}))
    return paths


def prepare(stored: Path) -> None:
    """Made when the match is recorded: the parts the viewer fetches (the shared copy, for a
    download, stays made on its first request). A failure costs only the speed of a first view."""
    try:
        part_copies(stored)
    except (OSError, ValueError, EOFError) as exc:
        log.warning("replay %s: its copies were not made (%s)", stored, exc)
