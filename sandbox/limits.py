"""The sandbox's limits: each an environment setting with the default docs/security.md lists."""
from __future__ import annotations

import os
import resource
from dataclasses import dataclass, field

MiB = 1024 * 1024


def _setting(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


@dataclass(frozen=True)
class SandboxLimits:
    """Per-sandbox limits; each is an environment setting with the documented default."""

    memory_bytes: int = field(default_factory=lambda: int(_setting("PARLOUR_SANDBOX_MEMORY_MB", 512) * MiB))
    processes: int = field(default_factory=lambda: int(_setting("PARLOUR_SANDBOX_PROCESSES", 64)))
    cpus: float = field(default_factory=lambda: _setting("PARLOUR_SANDBOX_CPUS", 1.0))
    cpu_seconds: int = field(default_factory=lambda: int(_setting("PARLOUR_SANDBOX_CPU_SECONDS", 900)))
    file_bytes: int = field(default_factory=lambda: int(_setting("PARLOUR_SANDBOX_FILE_MB", 16) * MiB))
    scratch_bytes: int = field(default_factory=lambda: int(_setting("PARLOUR_SANDBOX_SCRATCH_MB", 64) * MiB))
    bot_bytes: int = field(default_factory=lambda: int(_setting("PARLOUR_SANDBOX_BOT_MB", 16) * MiB))
    open_files: int = field(default_factory=lambda: int(_setting("PARLOUR_SANDBOX_OPEN_FILES", 256)))
    output_bytes: int = field(default_factory=lambda: int(_setting("PARLOUR_SANDBOX_OUTPUT_KB", 64) * 1024))

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
