"""Independent random streams derived from a match seed.

Never one RNG consumed as play goes: each purpose (the deal of round r, an automaton, a seat's bot)
gets its own stream, hashed from the seed and a label, so the deal of round 3 does not depend on
what happened in rounds 1-2, and a bot's seed reveals nothing about the cards.
"""
from __future__ import annotations

import hashlib
import hmac
import operator
import os
import random
from itertools import repeat

SEED_BITS = 63


def derive_seed(seed: int, *labels: object) -> int:
    """A 63-bit seed derived from ``seed`` and the labels, e.g. ``derive_seed(s, "deal", 2)``."""
    text = str(int(seed))
    for label in labels:
        text += "\x1f" + str(label)
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def keyed_seed(key: bytes, seed: int, *labels: object) -> int:
    """Like ``derive_seed``, but an HMAC under the platform's secret ``key``: whoever sees the
    result cannot search small seeds for the one that gives it."""
    text = "\x1f".join([str(int(seed)), *(str(label) for label in labels)])
    digest = hmac.new(key, text.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def platform_seed_key() -> bytes | None:
    """The platform's secret seed key, ``PARLOUR_SEED_KEY`` (None where unset: local play)."""
    key = os.environ.get("PARLOUR_SEED_KEY", "")
    return key.encode() if key else None


def stream(seed: int, *labels: object) -> random.Random:
    """A fresh ``random.Random`` for one purpose of one match."""
    return random.Random(derive_seed(seed, *labels))


def shuffled(items: list, rng: random.Random) -> list:
    """A shuffled copy of ``items``: sorted by random keys, which the C sort does several times
    faster than ``Random.shuffle``'s Python loop."""
    keys = list(map(operator.call, repeat(rng.random, len(items))))  # rng.random() per item, in C
    return [items[i] for i in sorted(range(len(items)), key=keys.__getitem__)]


def draw_seed(rng: random.Random | None = None) -> int:
    """A new match seed (from ``rng`` when given, else from the OS)."""
    if rng is None:
        return random.SystemRandom().getrandbits(SEED_BITS)
    return rng.getrandbits(SEED_BITS)
