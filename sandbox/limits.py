"""The sandbox's limits: each a setting (``sandbox/settings.py``) with the default docs/settings.md lists."""
from __future__ import annotations

import resource
from dataclasses import dataclass

from .settings import environment

MiB = 1024 * 1024


@dataclass(frozen=True)
class SandboxLimits:
    """Per-sandbox limits (``declared()``: each from its setting, with the documented default)."""

    memory_bytes: int
    processes: int
    cpus: float
    cpu_seconds: int
    file_bytes: int
    scratch_bytes: int
    bot_bytes: int
    open_files: int
    output_bytes: int

    @classmethod
    def declared(cls) -> SandboxLimits:
        """The limits the settings say now."""
        env = environment()
        return cls(memory_bytes=env.memory_mb * MiB, processes=env.processes, cpus=env.cpus,
                   cpu_seconds=env.cpu_seconds, file_bytes=env.file_mb * MiB, scratch_bytes=env.scratch_mb * MiB,
                   bot_bytes=env.bot_mb * MiB, open_files=env.open_files, output_bytes=env.output_kb * 1024)

    def rlimits(self) -> dict[str, int]:
        return {
            "RLIMIT_CPU": self.cpu_seconds,
            "RLIMIT_FSIZE": self.file_bytes,
            "RLIMIT_NOFILE": self.open_files,
            "RLIMIT_CORE": 0,
            "RLIMIT_NPROC": self.processes,
        }


def set_rlimits(values: dict[str, int]) -> None:
    """Soft and hard limits alike, so the process cannot raise them again."""
    for name, value in values.items():
        resource.setrlimit(getattr(resource, name), (value, value))
