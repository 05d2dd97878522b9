"""Independent random streams derived from a match seed.

Never one RNG consumed as play goes: each purpose (the deal of round r, an automaton, a seat's bot)
gets its own stream, hashed from the seed and a label, so the deal of round 3 does not depend on
what happened in rounds 1-2, and a bot's seed reveals nothing about the cards.

Two kinds of stream: ``stream`` a ``random.Random`` (any draw a rule needs), ``Draws`` only random
orders (shuffles, samples) but several times cheaper to start, for what a round starts with
(``draw_keys``: one draw of its keys, cheaper still).
"""
from __future__ import annotations

import hashlib
import hmac
import random
import struct
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

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


def stream(seed: int, *labels: object) -> random.Random:
    """A fresh ``random.Random`` for one purpose of one match."""
    return random.Random(derive_seed(seed, *labels))


class Draws:
    """Random orders for one purpose of one match, hashed from the seed and labels as ``stream``
    is, without a Mersenne Twister: the k-th draw is SHAKE-128 of (seed, labels, k) read as 64-bit
    keys, and a shuffle sorts by them. Seeding a ``random.Random`` (2.5 KB of state filled) costs
    more than the shuffle a round starts with; a game played in random playouts starts many."""

    def __init__(self, seed: int, *labels: object) -> None:
        self.prefix = "\x1f".join([str(int(seed)), *map(str, labels)])
        self.drawn = 0

    def keys(self, count: int) -> tuple[int, ...]:
        """The next draw: ``count`` independent random 64-bit integers."""
        text = f"{self.prefix}\x1f{self.drawn}"
        self.drawn += 1
        return _keys(text, count)

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A shuffled copy of ``items``: sorted by random keys (two equal keys, which would keep
        the items' order, have a chance of about 1 in 10^16 in a 54-card deck)."""
        keys = self.keys(len(items))
        return [items[i] for i in sorted(range(len(items)), key=keys.__getitem__)]

    def sample(self, items: Sequence[T], count: int) -> list[T]:
        """``count`` of ``items`` in a random order (the start of a shuffle)."""
        if count == 1 and items:  # the shuffle's first: the smallest key (min keeps the first of equals)
            keys = self.keys(len(items))
            return [items[min(range(len(items)), key=keys.__getitem__)]]
        return self.shuffled(items)[:count]


def draw_keys(seed: int, *labels: object, count: int) -> tuple[int, ...]:
    """``Draws(seed, *labels).keys(count)``, the first draw, without the object: for a purpose that
    reads all its random orders from one draw (a Tussie Mussie match), where making a ``Draws``
    costs about as much as the hash."""
    return _keys("\x1f".join([str(int(seed)), *map(str, labels), "0"]), count)


_shake_128 = hashlib.shake_128
_UNPACKERS: dict[int, struct.Struct] = {}


def _keys(text: str, count: int) -> tuple[int, ...]:
    """A draw (``Draws.keys``, ``draw_keys``): SHAKE-128 of ``text`` read as 64-bit keys."""
    unpacker = _UNPACKERS.get(count) or _unpacker(count)
    return unpacker.unpack(_shake_128(text.encode()).digest(8 * count))


def _unpacker(count: int) -> struct.Struct:
    unpacker = _UNPACKERS[count] = struct.Struct(f">{count}Q")  # big-endian: the same keys on every machine
    return unpacker


def draw_seed(rng: random.Random | None = None) -> int:
    """A new match seed (from ``rng`` when given, else from the OS)."""
    if rng is None:
        return random.SystemRandom().getrandbits(SEED_BITS)
    return rng.getrandbits(SEED_BITS)
