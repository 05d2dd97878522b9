"""What this machine allows and what the operator allows: said once per process, in one line, by
every process that may run uploaded bots."""
from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

from . import seccomp
from .cgroups import version as cgroup_version
from .limits import MiB, SandboxLimits
from .settings import environment


class SandboxUnavailable(Exception):
    """The full sandbox cannot run here and the operator did not allow the weak mode."""


@dataclass(frozen=True)
class Support:
    full: bool
    mode: str  # "full", "weak" or "refused"
    reason: str = ""

    def describe(self) -> str:
        limits = SandboxLimits.declared()
        what = (f"memory {limits.memory_bytes // MiB} MiB, {limits.processes} processes, {limits.cpus:g} CPU, "
                f"files {limits.file_bytes // MiB} MiB, scratch {limits.scratch_bytes // MiB} MiB")
        if self.full:
            filtered = "seccomp filter" if seccomp.available() else "NO seccomp filter (libseccomp2 is missing)"
            return (f"sandbox: full isolation (pid, mount, network, ipc, uts, cgroup and user namespaces; "
                    f"uid nobody; read-only root; {filtered}; cgroup v{cgroup_version()}: {what})")
        if self.mode == "weak":
            return (f"sandbox: WEAK MODE allowed by PARLOUR_SANDBOX=weak ({self.reason}): uploaded bots run "
                    f"with rlimits, an emptied environment and no network where the kernel allows, but keep "
                    f"this process's uid and see its filesystem")
        return (f"sandbox: unavailable ({self.reason}); uploaded bots will not run "
                f"(PARLOUR_SANDBOX=weak allows a weaker mode: see docs/security.md)")


def decide(trial: Callable[[], str]) -> Support:
    """What this machine allows, found by ``trial`` (starting one real sandbox: it says why that
    failed, or nothing), and what the operator allows: ``PARLOUR_SANDBOX`` is ``strict`` (the
    default: the full sandbox or no uploaded bots), ``weak`` (the weak mode where the full sandbox
    is refused) or ``off`` (no uploaded bots at all)."""
    setting = environment().mode
    if setting not in ("strict", "weak", "off"):
        return Support(False, "refused", f"PARLOUR_SANDBOX={setting!r} is not strict, weak or off")
    if setting == "off":
        return Support(False, "refused", "the operator turned uploaded bots off (PARLOUR_SANDBOX=off)")
    reason = _full_sandbox_refused(trial)
    if not reason:
        return Support(True, "full")
    if setting == "weak":
        return Support(False, "weak", reason)
    return Support(False, "refused", reason)


def _full_sandbox_refused(trial: Callable[[], str]) -> str:
    if sys.platform != "linux":
        return f"namespaces need Linux, not {sys.platform}"
    if os.geteuid() != 0:
        return "the sandbox's namespaces, uid change and cgroups need root"
    if cgroup_version() is None:
        return "no cgroup hierarchy is mounted at /sys/fs/cgroup"
    return trial()
