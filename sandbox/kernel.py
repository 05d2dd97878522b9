"""The few Linux system calls the sandbox needs that Python's ``os`` lacks (3.11: no ``unshare``,
``mount`` or ``pivot_root``), through libc."""
from __future__ import annotations

import ctypes
import os
from pathlib import Path

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS = 1, 38
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
LAUNCH_FAILED = 120  # exit status of a launch that failed before the bot ran

libc = ctypes.CDLL(None, use_errno=True)


class LaunchError(Exception):
    pass


def check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise LaunchError(f"{what}: {os.strerror(errno)}")


def unshare(flags: int, what: str) -> None:
    check(libc.unshare(flags), f"unshare {what}")


def mount(source: str | None, target: str | Path, fstype: str | None, flags: int, data: str | None = None) -> None:
    def enc(s: str | Path | None) -> bytes | None:
        return None if s is None else str(s).encode()

    check(libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
          f"mount {source or fstype} on {target}")


def bind_read_only(source: str | Path, target: Path) -> None:
    mount(str(source), target, None, MS_BIND | MS_REC)
    mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def prctl(option: int, value: int) -> None:
    check(libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0), f"prctl {option}")
