"""Finished matches' replays: built in a pool of processes, stored where the operator asked.

Re-simulating every seat's view is the referee's heaviest work per match: it runs in processes of
their own (off the event loop and its GIL), each replay gzipped once there and kept compressed
(a long replay is megabytes of JSON as Python objects).
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import gzip
import json
import multiprocessing
import os
import threading
import time
from pathlib import Path

from .gc_pace import set_pace
from .match import Match
from .replay import packed, packed_replay, replay_parts
from .settings import environment

REFEREE_CHECK_SECONDS = 1.0  # how often a replay process looks whether its referee is still there

_replay_pool: concurrent.futures.ProcessPoolExecutor | None = None


def replay_pool() -> concurrent.futures.ProcessPoolExecutor:
    """The processes that build finished matches' replays (``PARLOUR_REPLAY_PROCESSES``, default
    one per core it may run on)."""
    global _replay_pool
    if _replay_pool is None:
        workers = environment().replay_processes or len(os.sched_getaffinity(0))
        _replay_pool = concurrent.futures.ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("forkserver"),
            initializer=start_replay_process, initargs=(os.getpid(),))
    return _replay_pool


def start_replay_process(referee: int) -> None:
    """A replay process's start: its garbage collector at the referee's pace (``gc_pace``: a
    replay allocates a view per seat and step), and its end tied to the referee's."""
    set_pace()
    exit_with_referee(referee)


def exit_with_referee(referee: int) -> None:
    """In a replay process: end once the referee that started it is gone. A referee that is killed
    cannot shut its pool down, and its replay processes (and their forkserver, which lives as long
    as they do) would otherwise wait for work for ever: they hold both ends of their work queue."""
    def watch() -> None:
        while True:
            time.sleep(REFEREE_CHECK_SECONDS)
            try:
                os.kill(referee, 0)
            except (ProcessLookupError, PermissionError):  # gone (or its pid now another user's)
                os._exit(0)

    threading.Thread(target=watch, name="exit-with-referee", daemon=True).start()


async def build_replay(match: Match, versions: list[str], public_frames: list[bytes]
                       ) -> tuple[bytes, list[dict], list[dict]]:
    """A finished match's replay, gzipped, with its bot log lines and its notes (kept apart: each
    reader sees the lines and notes it may read). ``public_frames``: the public frames encoded as the match went (its
    broadcast's), written into the replay as they are."""
    header, log, bot_logs, expected, notes = replay_parts(match, versions)
    replay_gz = await asyncio.get_running_loop().run_in_executor(
        replay_pool(), packed_replay, header, log, bot_logs, expected, public_frames, notes)
    return replay_gz, bot_logs, notes


def store_replay(replay_dir: Path | None, match_id: str, data: bytes) -> None:
    """Also keep the replay in ``replay_dir`` (``--replay-dir``), when there is one."""
    if replay_dir:
        replay_dir.mkdir(parents=True, exist_ok=True)
        (replay_dir / f"{match_id}.replay.json.gz").write_bytes(data)


def with_logs(replay_gz: bytes, logs: list[dict], notes: list[dict]) -> bytes:
    """The replay with these bot log lines and notes instead of its own (for a reader who may see
    only those)."""
    replay = json.loads(gzip.decompress(replay_gz))
    replay["bot_logs"] = logs
    replay["notes"] = notes
    return packed(replay)
