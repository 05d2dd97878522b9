"""Capturing a bot's stdout and stderr as log lines of the decision they were written during.

File descriptors 1 and 2 of the process (and so of every process the bot starts) are pointed at one
pipe, which a thread drains as it fills, so a bot that writes much never blocks on a full pipe.
``take()``, called when the bot has answered, flushes Python's own buffers and returns what was
written since the last call: everything the bot wrote before answering is in the pipe by then.
At most ``limit`` bytes are kept in a match; a line says how much more was dropped.
"""
from __future__ import annotations

import os
import select
import sys
import threading

PREFIX = "[output] "


class OutputCapture:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = 0
        self.dropped = 0
        self._told = False
        self._buffer = bytearray()
        self._lock = threading.Lock()
        for stream in (sys.stdout, sys.stderr):  # keep the order of lines across both streams
            stream.flush()
            stream.reconfigure(line_buffering=True, write_through=True)
        read, write = os.pipe()
        os.dup2(write, 1)
        os.dup2(write, 2)
        os.close(write)
        os.set_blocking(read, False)
        self._fd = read
        threading.Thread(target=self._pump, name="output-capture", daemon=True).start()

    def _pump(self) -> None:
        while True:
            select.select([self._fd], [], [])
            with self._lock:
                if not self._drain():
                    return

    def _drain(self) -> bool:
        """Read what the pipe holds (at most 1 MiB: a child that never stops writing must not keep
        the lock from ``take``); False at end of file."""
        for _ in range(16):
            try:
                chunk = os.read(self._fd, 65536)
            except BlockingIOError:
                return True
            if not chunk:
                return False
            keep = max(0, min(len(chunk), self.limit - self.kept))
            self._buffer += chunk[:keep]
            self.kept += keep
            self.dropped += len(chunk) - keep
        return True

    def new_match(self) -> None:
        """A warm process starts its next match: the output budget is per match."""
        self.take()
        with self._lock:
            self.kept = self.dropped = 0
            self._buffer = bytearray()
        self._told = False

    def take(self) -> list[str]:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # the bot closed or broke its own stream
                pass
        with self._lock:
            self._drain()
            data, self._buffer = bytes(self._buffer), bytearray()
        lines = [PREFIX + line for line in data.decode(errors="replace").splitlines()]
        if self.dropped and not self._told:
            self._told = True
            lines.append(f"{PREFIX}[more than {self.limit} bytes of output: the rest is dropped]")
        return lines
