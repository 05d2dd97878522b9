"""One cgroup per sandbox: memory, process count and CPU limits, and a sweep that kills every process
in it at match end. cgroup v1 (one hierarchy per controller, as on these machines) and v2 (unified)."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PARENT = "parlour-sandbox"  # every sandbox's cgroup lives under this folder of each hierarchy


def version() -> int | None:
    if (ROOT / "cgroup.controllers").exists():
        return 2
    if (ROOT / "memory" / "memory.limit_in_bytes").exists():
        return 1
    return None


class SandboxCgroup:
    """The cgroup folders of one sandbox; ``paths`` are what the launcher joins."""

    def __init__(self, name: str, memory_bytes: int, processes: int, cpus: float) -> None:
        self.paths: list[Path] = []
        self.version = version()
        if self.version == 1:
            self._make_v1(name, memory_bytes, processes, cpus)
        elif self.version == 2:
            self._make_v2(name, memory_bytes, processes, cpus)
        else:
            raise OSError("no cgroup hierarchy under /sys/fs/cgroup")

    def _make_v1(self, name: str, memory_bytes: int, processes: int, cpus: float) -> None:
        settings = {
            "memory": {"memory.limit_in_bytes": memory_bytes, "memory.memsw.limit_in_bytes": memory_bytes},
            "pids": {"pids.max": processes},
            "cpu": {"cpu.cfs_period_us": 100_000, "cpu.cfs_quota_us": int(cpus * 100_000)},
            "freezer": {},
        }
        for controller, values in settings.items():
            if controller == "freezer" and not (ROOT / controller).is_dir():
                continue  # optional: it only makes the final sweep race-free
            path = ROOT / controller / PARENT / name
            path.mkdir(parents=True, exist_ok=True)
            self.paths.append(path)
            for key, value in values.items():
                if (path / key).exists():  # memsw exists only where swap accounting is on
                    (path / key).write_text(str(value))

    def _make_v2(self, name: str, memory_bytes: int, processes: int, cpus: float) -> None:
        parent = ROOT / PARENT
        parent.mkdir(exist_ok=True)
        for folder in (ROOT, parent):  # each level hands the controllers down to the next
            (folder / "cgroup.subtree_control").write_text("+memory +pids +cpu")
        path = parent / name
        path.mkdir(exist_ok=True)
        (path / "memory.max").write_text(str(memory_bytes))
        if (path / "memory.swap.max").exists():
            (path / "memory.swap.max").write_text("0")
        (path / "pids.max").write_text(str(processes))
        (path / "cpu.max").write_text(f"{int(cpus * 100_000)} 100000")
        self.paths.append(path)

    @classmethod
    def existing(cls, paths: list[Path]) -> SandboxCgroup:
        """A sandbox's cgroup that is already there (one left by a dead worker), to kill and remove;
        nothing is created."""
        cgroup = cls.__new__(cls)
        cgroup.paths = [path for path in paths if path.exists()]
        cgroup.version = version()
        return cgroup

    def pids(self) -> set[int]:
        found: set[int] = set()
        for path in self.paths:
            try:
                found.update(int(p) for p in (path / "cgroup.procs").read_text().split())
            except OSError:
                pass
        return found

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process here for going over the memory limit."""
        for path in self.paths:
            for name, key in (("memory.oom_control", "oom_kill"), ("memory.events", "oom_kill")):
                try:
                    for line in (path / name).read_text().splitlines():
                        if line.startswith(key + " ") and int(line.split()[1]) > 0:
                            return True
                except OSError:
                    continue
        return False

    def kill_all(self, timeout: float = 5.0) -> None:
        """Kill every process in the cgroup (frozen first, so a fork bomb cannot outrun the sweep)."""
        freezer = next((p for p in self.paths if p.parent.parent.name == "freezer"), None)
        if self.version == 2 and (self.paths[0] / "cgroup.kill").exists():
            (self.paths[0] / "cgroup.kill").write_text("1")
        deadline = time.monotonic() + timeout
        while True:
            if freezer is not None:
                (freezer / "freezer.state").write_text("FROZEN")
            pids = self.pids()
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if freezer is not None:
                (freezer / "freezer.state").write_text("THAWED")  # a frozen task dies only once thawed
            if not pids or time.monotonic() > deadline:
                return
            time.sleep(0.01)

    def remove(self) -> None:
        self.kill_all()
        for path in self.paths:
            for _ in range(100):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # the last processes are still exiting
                    time.sleep(0.02)
