"""Sandboxes outlive a worker killed mid-match: the sandbox's launcher runs in a session of its
own (so that a bot cannot signal the worker), and its cgroup stays. So every sandbox a warm bot
starts is registered here, machine-wide, with the process that owns it; a worker starting reaps
the sandboxes whose owner is gone — every process in their cgroups (or, for a weak sandbox, in
their session) killed, and the cgroups removed. A sandbox with a live owner, or not registered
(another program's), is left alone. The registry is a folder (``PARLOUR_SANDBOX_REGISTRY``)."""
from __future__ import annotations

import json
import logging
import os
import signal
from pathlib import Path
from typing import Any

from django.conf import settings

log = logging.getLogger("parlour.arena")


def start_time(pid: int) -> int | None:
    """The process's start time (clock ticks since boot): a pid with another start time is
    another process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rpartition(")")[2].split()[19])


def alive(pid: int, started: int | None) -> bool:
    """The same process still runs (a zombie, dead but not yet waited for, does not)."""
    if started is None or start_time(pid) != started:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def register(name: str, launcher_pid: int, cgroups: list[str], mode: str) -> Path:
    """Record a sandbox this process owns; ``forget`` it once closed."""
    registry = settings.PARLOUR_SANDBOX_REGISTRY
    registry.mkdir(mode=0o700, parents=True, exist_ok=True)
    entry = {"name": name, "owner": os.getpid(), "owner_started": start_time(os.getpid()),
             "launcher": launcher_pid, "launcher_started": start_time(launcher_pid), "cgroups": cgroups,
             "mode": mode}
    path = registry / f"{name}.json"
    path.write_text(json.dumps(entry))
    return path


def cgroup_paths(name: str) -> list[str]:
    """Where the sandbox ``name``'s cgroups are (or will be) in every hierarchy (sandbox.cgroups)."""
    from sandbox.cgroups import PARENT, ROOT

    if (ROOT / "cgroup.controllers").exists():
        return [str(ROOT / PARENT / name)]
    return [str(ROOT / controller / PARENT / name) for controller in ("memory", "pids", "cpu", "freezer")
            if (ROOT / controller).is_dir()]


def forget(name: str) -> None:
    (settings.PARLOUR_SANDBOX_REGISTRY / f"{name}.json").unlink(missing_ok=True)


def cgroup_pids(path: Path) -> set[int]:
    try:
        return {int(p) for p in (path / "cgroup.procs").read_text().split()}
    except OSError:
        return set()


def kill_cgroups(paths: list[Path]) -> None:
    """Kill every process in the cgroups, then remove them (the sandbox's own sweep)."""
    from sandbox.cgroups import SandboxCgroup

    cgroup = SandboxCgroup.existing(paths)
    if cgroup.paths:
        cgroup.remove()


def reap(entry: dict[str, Any]) -> None:
    if entry.get("mode") == "weak" and alive(entry["launcher"], entry.get("launcher_started")):
        try:
            os.killpg(entry["launcher"], signal.SIGKILL)  # its session: the bot and what it started
        except (ProcessLookupError, PermissionError):
            pass
    kill_cgroups([Path(p) for p in entry.get("cgroups", [])])


def reap_orphans() -> list[str]:
    """Reap every registered sandbox whose owner process is gone; their names."""
    reaped, registry = [], settings.PARLOUR_SANDBOX_REGISTRY
    for path in sorted(registry.glob("*.json")) if registry.is_dir() else []:
        try:
            entry = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if alive(entry["owner"], entry.get("owner_started")):
            continue
        try:
            reap(entry)
        except OSError as exc:
            log.warning("sandbox %s: could not reap it: %s", entry.get("name"), exc)
            continue
        path.unlink(missing_ok=True)
        reaped.append(entry["name"])
    if reaped:
        log.warning("reaped %s sandbox(es) left by a dead worker: %s", len(reaped), ", ".join(reaped))
    return reaped
