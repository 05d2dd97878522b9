"""The sandbox's settings: every environment variable the sandbox reads, declared once with its
type, default and one line of doc (docs/settings.md is generated from it; docs/security.md says
what each limit guards). Sandbox code reads them through ``environment()`` when it needs them, so a
test's ``monkeypatch.setenv`` is seen."""
from __future__ import annotations

import environ


@environ.config(prefix="PARLOUR_SANDBOX")
class SandboxEnvironment:
    """The sandbox of uploaded bots: read by the arena's workers (and the web, which says whether
    uploads are open) and by `parlour-play --sandboxed`."""

    mode: str = environ.var("strict", name="PARLOUR_SANDBOX",
                            help="strict (the full sandbox or no uploaded bots), weak (rlimits where the full "
                                 "sandbox is refused) or off")
    memory_mb: int = environ.var(512, converter=int, help="MiB of memory per sandbox")
    processes: int = environ.var(64, converter=int, help="processes and threads per sandbox")
    cpus: float = environ.var(1.0, converter=float, help="CPUs' worth of time per sandbox")
    cpu_seconds: int = environ.var(900, converter=int, help="seconds of CPU time per sandbox process")
    file_mb: int = environ.var(16, converter=int, help="MiB of any one file a bot writes")
    scratch_mb: int = environ.var(64, converter=int, help="MiB of the sandbox's scratch folder")
    bot_mb: int = environ.var(16, converter=int, help="MiB of an uploaded bot's own files")
    open_files: int = environ.var(256, converter=int, help="open files per sandbox process")
    service: str = environ.var("", help="the sandbox service's Unix socket (python -m sandbox serve): workers launch "
                                        "uploaded bots there; empty: in the worker's own process (one machine)")
    output_kb: int = environ.var(64, converter=int, help="KiB of a bot's stdout and stderr kept per match")


def environment() -> SandboxEnvironment:
    """The sandbox's settings from the environment as it is now."""
    return SandboxEnvironment.from_environ()
