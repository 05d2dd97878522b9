"""The platform's processes on one machine: a Celery worker or beat, and — with no ``REDIS_URL`` —
a private Redis, a referee and a worker for as long as a command runs (``tournament run``,
``ladder run``, ``demo``)."""
from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path


def celery_process(kind: str) -> int:
    from .celery import app

    if kind == "worker":
        from bots_sdk.sandbox import support

        print(support().describe(), file=sys.stderr, flush=True)  # how uploaded bots will run here
        app.worker_main(["worker", "--loglevel=INFO", "--concurrency", os.environ.get("PARLOUR_WORKERS", "2")])
    else:
        app.start(["beat", "--loglevel=INFO", "--schedule", str(Path(os.environ.get("PARLOUR_HOME", "/tmp")) /
                                                              "celerybeat-schedule")])
    return 0


@contextmanager
def platform_processes():
    """With no REDIS_URL: a private Redis, a referee and a worker for the duration."""
    if os.environ.get("REDIS_URL"):
        yield
        return
    from django.conf import settings

    from referee.client import LocalReferee

    from .broker import ensure_broker

    broker = ensure_broker(Path(settings.PARLOUR_HOME))
    referee = LocalReferee(["--token-verifier", "arena.tokens:verify"])
    shared = dict(REFEREE_ADDRESS=referee.address, PARLOUR_REFEREE_SOCKET=referee.unix_path,
                  PARLOUR_OPERATOR_TOKEN=referee.token)
    env = dict(os.environ, **shared)
    os.environ.update(shared)
    worker = subprocess.Popen([sys.executable, "-m", "arena", "worker"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield
    finally:
        worker.terminate()
        try:
            worker.wait(10)
        except subprocess.TimeoutExpired:
            worker.kill()
        referee.close()
        if broker:
            broker.close()
        os.environ.pop("REDIS_URL", None)
