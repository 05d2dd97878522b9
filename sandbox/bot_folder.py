"""What of a bot's folder goes into its sandbox: everything but hidden entries, ``__pycache__`` and
links (a link could point anywhere on the host)."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path


def bot_entries(root: Path) -> Iterator[Path]:
    """The folders and files copied to ``/bot``, parents before their children."""
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_symlink() or any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
            continue
        yield path


def folder_bytes(root: Path) -> int:
    return sum(path.stat().st_size for path in bot_entries(root) if path.is_file())
