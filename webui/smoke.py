"""The upload smoke match: one strict match of an uploaded bot against random bots, in a separate
process with CPU, memory, file-size and wall-clock limits and, best effort, no network.

Never imports the bot: the child runs ``python -m bots_sdk play GAME path.py:Class random ...
--strict --json`` (through a tiny bootstrap, so that the bot's own folder is on ``sys.path`` *after*
the standard library and the SDK and cannot shadow them).

What the child gets (best effort until the sandbox of DESIGN.md lands, which is why uploads need
``PARLOUR_ALLOW_UPLOADS=1``):

- a copy of the bot's files in a fresh temporary folder (deleted afterwards), as its working folder;
- ``python -I`` (no user site, no ``PYTHON*`` variables, no current folder on ``sys.path``) and an
  emptied environment (``PATH``, ``LANG``, ``HOME`` = the temporary folder);
- a new session (so the whole process group is killed at the wall-clock limit);
- ``resource.setrlimit``: RLIMIT_CPU, RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_CORE = 0,
  RLIMIT_NPROC (not enforced for root);
- no network: a new network namespace (``unshare(CLONE_NEWNET)``, only a downed loopback inside),
  else a new user + network namespace, else nothing (the report says which);
- when the web process runs as root and the Python interpreter is readable by everyone, the uid and
  gid of ``nobody``; otherwise the uid is kept (the report says so).
"""
from __future__ import annotations

import ctypes
import json
import os
import pwd
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

# the smallest table of each game's standard variant (``python -m bots_sdk games``): webui never
# imports the engines, so the counts are written here
SMOKE_PLAYERS = {"tussie-mussie": 2, "tricky-twist": 3, "misty": 2, "bszzzz": 3}

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
REPORT_LIMIT = 8000  # characters of each of stdout / stderr kept in the report

BOOTSTRAP = (
    "import sys\n"
    "import os\n"
    "sys.path.extend(sys.argv[1].split(os.pathsep))\n"  # the bot's folders, after the stdlib and the SDK
    "from bots_sdk.cli import main\n"
    "sys.exit(main(sys.argv[2:]))\n"
)


def limits() -> dict[str, int]:
    return {
        "cpu_seconds": int(getattr(settings, "PARLOUR_SMOKE_CPU", os.environ.get("PARLOUR_SMOKE_CPU", 30))),
        "memory_bytes": int(getattr(settings, "PARLOUR_SMOKE_MEMORY",
                                    os.environ.get("PARLOUR_SMOKE_MEMORY", 1024 * 1024 * 1024))),
        "wall_seconds": int(getattr(settings, "PARLOUR_SMOKE_TIMEOUT", os.environ.get("PARLOUR_SMOKE_TIMEOUT", 60))),
        "file_bytes": 16 * 1024 * 1024,
        "open_files": 64,
        "processes": 64,
    }


@dataclass
class SmokeResult:
    passed: bool
    report: dict = field(default_factory=dict)

    def text(self) -> str:
        return json.dumps(self.report, indent=1)


def _world_accessible(path: Path) -> bool:
    """Whether a uid other than ours could execute ``path`` (every folder above it searchable)."""
    path = path.resolve()
    try:
        if not path.stat().st_mode & stat.S_IXOTH:
            return False
        return all(parent.stat().st_mode & stat.S_IXOTH for parent in path.parents)
    except OSError:
        return False


def _drop_to() -> tuple[int, int] | None:
    if os.geteuid() != 0:
        return None
    if not _world_accessible(Path(sys.executable)):
        return None
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        return None
    return nobody.pw_uid, nobody.pw_gid


def _preexec(lim: dict[str, int], ids: tuple[int, int] | None, status_fd: int):
    """Runs in the child between fork and exec: namespaces, limits, then the uid."""

    def apply() -> None:
        notes = []
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(CLONE_NEWNET) == 0:
            notes.append("net:netns")
        elif libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0:
            notes.append("net:userns+netns")
        else:
            notes.append("net:none")
        resource.setrlimit(resource.RLIMIT_CPU, (lim["cpu_seconds"], lim["cpu_seconds"] + 1))
        resource.setrlimit(resource.RLIMIT_AS, (lim["memory_bytes"], lim["memory_bytes"]))
        resource.setrlimit(resource.RLIMIT_FSIZE, (lim["file_bytes"], lim["file_bytes"]))
        resource.setrlimit(resource.RLIMIT_NOFILE, (lim["open_files"], lim["open_files"]))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NPROC, (lim["processes"], lim["processes"]))
        if ids is not None:
            uid, gid = ids
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            notes.append(f"uid:{uid}")
        else:
            notes.append(f"uid:{os.getuid()}")
        os.write(status_fd, (" ".join(notes) + "\n").encode())
        os.close(status_fd)

    return apply


def _copy_bot(source: Path, target: Path) -> None:
    for path in source.rglob("*"):
        relative = path.relative_to(source)
        if path.is_symlink():
            continue
        if path.is_dir():
            (target / relative).mkdir(parents=True, exist_ok=True)
            os.chmod(target / relative, 0o755)
        elif path.is_file():
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target / relative)
            os.chmod(target / relative, 0o644)


def run_smoke(game: str, spec: str, root: Path | None = None, seed: int = 1) -> SmokeResult:
    """Play one strict match of ``spec`` (``/abs/path/file.py:Class``) against random bots; ``root``
    is the folder of the upload (default: the file's folder), copied whole for the match."""
    lim = limits()
    path_text, _, class_name = spec.rpartition(":")
    source_file = Path(path_text)
    players = SMOKE_PLAYERS.get(game)
    report: dict = {"game": game, "spec": spec, "limits": lim}
    if players is None or not source_file.is_file():
        report["error"] = "unknown game" if players is None else "the bot file is missing"
        return SmokeResult(False, report)
    workdir = Path(tempfile.mkdtemp(prefix="parlour-smoke-"))
    try:
        os.chmod(workdir, 0o755)
        root = (root or source_file.parent).resolve()
        relative = source_file.resolve().relative_to(root)
        _copy_bot(root, workdir)
        bot_spec = f"{workdir / relative}:{class_name}"
        folders = os.pathsep.join(dict.fromkeys([str((workdir / relative).parent), str(workdir)]))
        argv = ["play", game, bot_spec] + ["random"] * (players - 1) + [
            "--seed", str(seed), "--strict", "--json", "--time-limit", "1", "--time-bank", "5"]
        command = [sys.executable, "-I", "-c", BOOTSTRAP, folders] + argv
        report["command"] = "python -m bots_sdk " + " ".join(argv)
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(workdir)}
        ids = _drop_to()
        if ids is not None:
            os.chown(workdir, ids[0], ids[1])
        read_fd, write_fd = os.pipe()
        try:
            process = subprocess.Popen(command, cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                       start_new_session=True, pass_fds=(write_fd,),
                                       preexec_fn=_preexec(lim, ids, write_fd))
        finally:
            os.close(write_fd)
        timed_out = False
        try:
            stdout, stderr = process.communicate(timeout=lim["wall_seconds"])
        except subprocess.TimeoutExpired:
            timed_out = process.poll() is None  # else: it ended, but processes it started kept its pipes
            report["outlived"] = not timed_out
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            stdout, stderr = process.communicate()
        try:  # the group may hold processes the bot started: kill them too
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        with os.fdopen(read_fd) as status:
            report["sandbox"] = status.read().strip()
        report["exit_code"] = process.returncode
        report["stdout"] = stdout[-REPORT_LIMIT:]
        report["stderr"] = stderr[-REPORT_LIMIT:]
        if timed_out:
            report["error"] = f"the match took longer than {lim['wall_seconds']} s (wall clock)"
            return SmokeResult(False, report)
        if process.returncode != 0:
            code = process.returncode
            why = f"killed by {signal.Signals(-code).name}" if code < 0 and -code in signal.valid_signals() \
                else f"exit status {code}"
            if code == -signal.SIGXCPU:
                why += f": over the CPU limit of {lim['cpu_seconds']} s"
            report["error"] = f"the smoke match failed ({why})"
            return SmokeResult(False, report)
        if report.get("outlived"):
            report["error"] = "processes started by the bot outlived the match (they were killed)"
            return SmokeResult(False, report)
        try:
            outcome = json.loads(stdout)
            statuses = outcome["matches"][0]["statuses"]
        except (ValueError, KeyError, IndexError, TypeError):
            report["error"] = "the smoke match printed no result"
            return SmokeResult(False, report)
        if statuses[0] != "ok":
            report["error"] = f"the bot's seat ended with status {statuses[0]!r}"
            return SmokeResult(False, report)
        report["result"] = outcome["matches"][0]
        return SmokeResult(True, report)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def smoke_version(version) -> bool:
    """Run the smoke match of a pending ``BotVersion`` and record the verdict (active or rejected)."""
    from arena.models import BotVersion

    root = Path(settings.UPLOAD_DIR) / str(version.bot_id) / str(version.number)
    path = Path(version.spec.rpartition(":")[0])
    try:
        result = run_smoke(version.bot.game, version.spec, root if root.resolve() in path.resolve().parents else None)
    except Exception as exc:  # the sandbox itself failed: the version cannot be vouched for
        result = SmokeResult(False, {"error": f"the smoke match could not run: {type(exc).__name__}: {exc}"})
    version.smoke_report = result.text()
    version.state = BotVersion.ACTIVE if result.passed else BotVersion.REJECTED
    version.save(update_fields=["smoke_report", "state"])
    if result.passed:  # the newest active version plays; the older ones retire
        (BotVersion.objects.filter(bot=version.bot, state=BotVersion.ACTIVE, number__lt=version.number)
         .update(state=BotVersion.RETIRED))
    return result.passed
