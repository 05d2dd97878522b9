"""The weak mode's launcher: ``python -I -m sandbox.weak_launch RLIMITS_JSON COMMAND...``
takes the bot's process off the network where the kernel lets it, sets its limits and execs the
command (its stdin, environment and folder are the ones it was started with).

A process of its own rather than a ``preexec_fn``: the process that starts a sandbox runs threads
(gRPC's), and Python code between ``fork`` and ``exec`` in such a process can deadlock on a lock
another thread held at the fork. A step that fails ends the launch with exit status 120 and one
line on stderr saying which.
"""
from __future__ import annotations

import json
import os
import sys

from .kernel import CLONE_NEWNET, CLONE_NEWUSER, LAUNCH_FAILED, libc
from .limits import set_rlimits


def main(argv: list[str]) -> None:
    try:
        rlimits, command = json.loads(argv[0]), argv[1:]
        if libc.unshare(CLONE_NEWNET) != 0:  # as root; else in a user namespace of its own, if allowed
            libc.unshare(CLONE_NEWUSER | CLONE_NEWNET)
        set_rlimits(rlimits)
    except Exception as exc:  # noqa: BLE001 - said in one line, the bot never starts
        print(f"weak sandbox: could not set the bot's limits: {exc}", file=sys.stderr, flush=True)
        os._exit(LAUNCH_FAILED)
    os.execv(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
