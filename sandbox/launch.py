"""The sandbox's launcher: ``python -I -m sandbox.launch`` reads one JSON config line on
stdin and runs the bot's command inside fresh namespaces with an unprivileged uid.

Runs as root (the runner starts it; nothing of the bot has run yet). The steps, in order:

0. read the config, the first line of stdin (the rest, with ``keep_stdin``, is the bot's: its seat
   tokens, never on a command line);
1. join the cgroups the runner made for this sandbox (every later process inherits them);
2. ``unshare`` new mount, PID, network, IPC, UTS and cgroup namespaces, then fork: the child is
   PID 1 of the new PID namespace, the sandbox's *init* (when it dies the kernel kills every process
   left in the namespace, new sessions and double forks included);
3. init builds the root: a tmpfs holding read-only bind mounts of the system's shared libraries
   (``/usr/lib*``) and of what the runner lists (Python, the SDK, the generated protos), a copy of
   the bot's files at ``/bot``, the referee's socket at ``/run/parlour/referee.sock``, ``/dev``
   with four devices, its own ``/proc``, a size-limited scratch tmpfs at ``/tmp``; ``pivot_root``
   into it, the old root detached, the new root read-only;
4. init forks the bot's process, which enters a new user namespace where only the uid and gid
   ``nobody`` exist (init, still root outside, writes the maps), forbids itself further user
   namespaces, sets its rlimits and ``no_new_privs``, becomes ``nobody``, loads the seccomp filter
   (``seccomp.py``) and execs the command with an emptied environment; init reaps children and
   exits with the bot's status.

The network namespace has only a downed loopback: the referee's Unix socket is the only way out.
A step that fails stops the launch with exit status 120 and one line on stderr saying which.
"""
from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

from . import seccomp
from .bot_folder import bot_entries
from .kernel import (CLONE_NEWCGROUP, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWUSER,
                     CLONE_NEWUTS, MNT_DETACH, MS_BIND, MS_NODEV, MS_NOEXEC, MS_NOSUID, MS_PRIVATE, MS_RDONLY,
                     MS_REC, MS_REMOUNT, PR_SET_NO_NEW_PRIVS, PR_SET_PDEATHSIG, SYS_PIVOT_ROOT, LAUNCH_FAILED,
                     LaunchError, bind_read_only, check, libc, mount, prctl, unshare)
from .limits import set_rlimits

NOBODY = 65534
STAGING = Path("/run/parlour-sandbox-root")  # only a mount point: each sandbox mounts on it privately
DEVICES = ("null", "zero", "random", "urandom")
SYSTEM_LIBRARIES = ("lib", "lib64", "lib32", "libx32")


# ---------------------------------------------------------------------------------------------- root side
def join_cgroups(paths: list[str]) -> None:
    for path in paths:
        Path(path, "cgroup.procs").write_text(str(os.getpid()))


def build_root(config: dict[str, Any]) -> Path:
    """Mount the sandbox's filesystem on STAGING (inside our private mount namespace)."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing we mount leaks back to the host
    STAGING.mkdir(mode=0o755, parents=True, exist_ok=True)
    root = STAGING
    mount("sandbox-root", root, "tmpfs", MS_NOSUID | MS_NODEV, f"size={config['root_bytes']},mode=0755")
    for name in ("usr", "bot", "dev", "proc", "tmp", "run/parlour", "etc"):
        (root / name).mkdir(mode=0o755, parents=True, exist_ok=True)
    for name in SYSTEM_LIBRARIES:  # the shared libraries Python links against; no /usr/bin, no /usr/share
        if os.path.isdir(f"/usr/{name}") and not os.path.islink(f"/usr/{name}"):
            (root / "usr" / name).mkdir(mode=0o755)
            bind_read_only(f"/usr/{name}", root / "usr" / name)
        if os.path.islink(f"/{name}"):  # Debian's merged /usr: /lib -> usr/lib
            os.symlink(os.readlink(f"/{name}"), root / name)
    # the scratch folder before the binds: a project that lives under /tmp stays visible
    mount("sandbox-tmp", root / "tmp", "tmpfs", MS_NOSUID | MS_NODEV,
          f"size={config['scratch_bytes']},mode=0700,uid={NOBODY},gid={NOBODY}")
    for host_path in config["read_only"]:  # Python, the venv, the SDK's packages: at the same paths
        target = root / host_path.lstrip("/")
        if Path(host_path).is_dir():
            target.mkdir(mode=0o755, parents=True, exist_ok=True)
        else:
            target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            target.touch()
        bind_read_only(host_path, target)
    for name in ("ld.so.cache", "localtime"):
        if Path("/etc", name).exists():
            shutil.copyfile(Path("/etc", name), root / "etc" / name)
    (root / "etc/passwd").write_text(f"nobody:x:{NOBODY}:{NOBODY}:nobody:/tmp:/usr/sbin/nologin\n")
    (root / "etc/group").write_text(f"nogroup:x:{NOBODY}:\n")
    copy_bot(Path(config["bot_dir"]), root / "bot")
    socket = root / "run/parlour/referee.sock"
    socket.touch()
    mount(config["referee_socket"], socket, None, MS_BIND)
    mount("sandbox-dev", root / "dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755")
    for device in DEVICES:
        (root / "dev" / device).touch()
        mount(f"/dev/{device}", root / "dev" / device, None, MS_BIND)
    return root


def copy_bot(source: Path, target: Path) -> None:
    """The bot's own files, readable by its uid."""
    for path in bot_entries(source):
        relative = path.relative_to(source)
        if path.is_dir():
            (target / relative).mkdir(mode=0o755, parents=True, exist_ok=True)
        elif path.is_file():
            (target / relative).parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            shutil.copyfile(path, target / relative)
            os.chmod(target / relative, 0o644)


def enter_root(root: Path) -> None:
    mount("proc", root / "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    os.chdir(root)
    number = SYS_PIVOT_ROOT.get(platform.machine())
    if number is None:
        raise LaunchError(f"pivot_root: unknown machine {platform.machine()}")
    check(libc.syscall(number, b".", b"."), "pivot_root")
    check(libc.umount2(b".", MNT_DETACH), "detach the old root")
    os.chdir("/")
    mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    check(libc.sethostname(b"sandbox", 7), "sethostname")


# ---------------------------------------------------------------------------------------------- bot side
def write_id_maps(pid: int) -> None:
    Path(f"/proc/{pid}/setgroups").write_text("deny")
    Path(f"/proc/{pid}/uid_map").write_text(f"{NOBODY} {NOBODY} 1\n")
    Path(f"/proc/{pid}/gid_map").write_text(f"{NOBODY} {NOBODY} 1\n")


def become_bot(config: dict[str, Any], ready: int, mapped: int) -> None:
    """In the bot's process: own user namespace, limits, uid nobody, exec. Never returns."""
    unshare(CLONE_NEWUSER, "user namespace")
    os.write(ready, b"1")
    if os.read(mapped, 1) != b"1":
        raise LaunchError("the uid map was not written")
    try:  # no nested user namespaces: they would hand the bot capabilities over new namespaces
        Path("/proc/sys/user/max_user_namespaces").write_text("0")
    except OSError:
        pass
    set_rlimits(config["rlimits"])
    os.setresgid(NOBODY, NOBODY, NOBODY)
    os.setresuid(NOBODY, NOBODY, NOBODY)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    if config["seccomp"]:
        seccomp.deny(config["seccomp"])
    os.chdir("/tmp")
    os.closerange(3, 65536)
    os.execve(config["command"][0], config["command"], config["env"])


def run_init(config: dict[str, Any]) -> int:
    """PID 1 of the sandbox: build the root, start the bot, reap, exit with the bot's status."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the launcher killed: init dies, and with it every process
    root = build_root(config)
    enter_root(root)
    ready_r, ready_w = os.pipe()
    mapped_r, mapped_w = os.pipe()
    bot = os.fork()
    if bot == 0:
        try:
            os.close(ready_r)
            os.close(mapped_w)
            become_bot(config, ready_w, mapped_r)
        except BaseException as exc:  # noqa: BLE001 - report any failure, never run on as root
            print(f"sandbox: {exc}", file=sys.stderr, flush=True)
        os._exit(LAUNCH_FAILED)
    os.close(ready_w)
    os.close(mapped_r)
    if os.read(ready_r, 1) == b"1":
        write_id_maps(bot)
        os.write(mapped_w, b"1")
    os.close(mapped_w)
    os.close(ready_r)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(128 + signal.SIGTERM))
    while True:  # reap everything; the bot's end is the sandbox's end
        try:
            pid, status = os.wait()
        except ChildProcessError:
            return LAUNCH_FAILED
        if pid == bot:
            return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def read_config() -> dict[str, Any]:
    """The config is the first line on stdin, read a byte at a time so that nothing after it is
    taken: with ``keep_stdin`` the rest of stdin is the bot's (a warm bot reads its seat tokens
    there), else the bot's stdin is /dev/null."""
    line = bytearray()
    while (byte := os.read(0, 1)) not in (b"", b"\n"):
        line += byte
    config = json.loads(line)
    if not config.get("keep_stdin"):
        fd = os.open(os.devnull, os.O_RDONLY)
        os.dup2(fd, 0)
        os.close(fd)
    return config


def main() -> int:
    config = read_config()
    if config["seccomp"] and not seccomp.available():  # loaded now: the sandbox has no ldconfig
        print("sandbox: libseccomp is not installed", file=sys.stderr, flush=True)
        return LAUNCH_FAILED
    try:
        join_cgroups(config["cgroups"])
        unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP,
                "mount, pid, net, ipc, uts and cgroup namespaces")
    except (LaunchError, OSError) as exc:
        print(f"sandbox: {exc}", file=sys.stderr, flush=True)
        return LAUNCH_FAILED
    init = os.fork()
    if init == 0:
        try:
            code = run_init(config)
        except BaseException as exc:  # noqa: BLE001 - the forked init reports any failure, never returns
            print(f"sandbox: {exc}", file=sys.stderr, flush=True)
            code = LAUNCH_FAILED
        os._exit(code)
    signal.signal(signal.SIGTERM, lambda *_: os.kill(init, signal.SIGKILL))
    _, status = os.waitpid(init, 0)
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


if __name__ == "__main__":
    sys.exit(main())
