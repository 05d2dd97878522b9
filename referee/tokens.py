"""Checking remote bots' API tokens: the interface the referee is given at start-up.

A verifier is a callable ``verify(token) -> bot id or None``. The referee imports no platform
code: the arena passes its own verifier with ``--token-verifier module:callable``. Standalone, a
file of hashed tokens serves (one ``<bot id> <sha256 of the token>`` per line), named by the
environment variable ``PARLOUR_API_TOKENS``.
"""
from __future__ import annotations

import hashlib
import hmac
import importlib
from collections.abc import Callable
from pathlib import Path

Verifier = Callable[[str], "str | None"]

def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class TokenFileVerifier:
    """Reads ``<bot id> <sha256 hex>`` lines; re-reads the file when it changes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._mtime: float | None = None
        self._hashes: dict[str, str] = {}

    def _load(self) -> None:
        if not self.path.is_file():
            self._hashes = {}
            return
        mtime = self.path.stat().st_mtime
        if mtime == self._mtime:
            return
        hashes = {}
        for line in self.path.read_text().splitlines():
            parts = line.split()
            if len(parts) == 2 and not line.startswith("#"):
                hashes[parts[1]] = parts[0]
        self._hashes, self._mtime = hashes, mtime

    def __call__(self, token: str) -> str | None:
        if not token:
            return None
        self._load()
        digest = hash_token(token)
        for known, bot_id in self._hashes.items():
            if hmac.compare_digest(known, digest):
                return bot_id
        return None


def load_verifier(spec: str | None, token_file: str) -> Verifier:
    """``module:callable`` (called with no arguments if it is a class or factory returning a
    verifier), or the verifier of ``token_file`` (``PARLOUR_API_TOKENS``) when ``spec`` is empty."""
    if not spec:
        return TokenFileVerifier(token_file)
    module_name, _, attr = spec.partition(":")
    target = getattr(importlib.import_module(module_name), attr)
    return target() if isinstance(target, type) else target
