"""A seccomp filter for the bot's process: system calls no game bot needs, which are the kernel's
most attacked surface (tracing, BPF, keyrings, io_uring, namespaces and mounts, modules), fail with
EPERM. Everything else is allowed: the namespaces, the uid and the limits do the confining; this
only narrows what a kernel bug could be reached through. Built with libseccomp (Debian's
``libseccomp2``), loaded through ctypes."""
from __future__ import annotations

import ctypes
import ctypes.util
import errno
from functools import lru_cache

DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
    "bpf", "perf_event_open", "userfaultfd",
    "keyctl", "add_key", "request_key",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot",
    "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
    "open_by_handle_at", "name_to_handle_at",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
    "swapon", "swapoff", "reboot", "acct", "quotactl", "syslog",
)
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_ACT_ERRNO = 0x00050000


@lru_cache(maxsize=1)
def _library() -> ctypes.CDLL | None:
    for name in ("libseccomp.so.2", ctypes.util.find_library("seccomp")):
        try:
            lib = ctypes.CDLL(name, use_errno=True)
            break
        except (OSError, TypeError):
            continue
    else:
        return None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    return lib


def available() -> bool:
    return _library() is not None


def deny(names: tuple[str, ...] | list[str] = DENIED) -> None:
    """Load the filter into this process (inherited by its children, kept across exec)."""
    lib = _library()
    if lib is None:
        raise OSError("libseccomp is not installed")
    context = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not context:
        raise OSError("seccomp_init failed")
    try:
        for name in names:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number < 0:  # not a system call on this architecture
                continue
            result = lib.seccomp_rule_add(context, SCMP_ACT_ERRNO | errno.EPERM, number, 0)
            if result < 0:
                raise OSError(-result, f"seccomp rule for {name}")
        result = lib.seccomp_load(context)
        if result < 0:
            raise OSError(-result, "seccomp_load")
    finally:
        lib.seccomp_release(context)
