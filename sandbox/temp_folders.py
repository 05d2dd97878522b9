"""The temporary folders of the sandbox's sockets (``parlour-seat-<pid>-*``, ``parlour-relay-<pid>-*``)
are named with the process that made them and end with it: removed when closed, at the process's
exit, and — when it died first (killed, or a pool process leaving by ``os._exit``) — by the next
process that makes one. (``referee.client`` does the same for ``parlour-referee-``: the layers let
neither package import the other.)"""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

_made: set[Path] = set()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: alive
        return True
    return True


def sweep(prefix: str) -> None:
    """Remove the folders of ``prefix`` whose process is gone."""
    for path in Path(tempfile.gettempdir()).glob(f"{prefix}*"):
        pid = path.name[len(prefix):].partition("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)


def owned_folder(prefix: str) -> Path:
    """A new temporary folder ``<prefix><pid>-*``, removed at this process's exit at the latest."""
    sweep(prefix)
    if not _made:
        atexit.register(_remove_all)
    folder = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-"))
    _made.add(folder)
    return folder


def remove(folder: Path) -> None:
    _made.discard(folder)
    shutil.rmtree(folder, ignore_errors=True)


def _remove_all() -> None:
    for folder in list(_made):
        if folder.name.split("-")[2] == str(os.getpid()):  # never a forked parent's, from its child
            remove(folder)
