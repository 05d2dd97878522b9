"""Random streams derived from a match seed (referee/games/seeding.py)."""
from __future__ import annotations

import hashlib
import struct
from collections import Counter

from referee.games.seeding import Draws, draw_keys

CARDS = [f"card-{i}" for i in range(54)]


def test_draws_are_shake_128_of_the_seed_labels_and_draw_number_read_big_endian() -> None:
    # the definition, so a seed deals the same cards on every machine and Python version
    expected = struct.unpack(">3Q", hashlib.shake_128("7\x1fdeal\x1f2\x1f0".encode()).digest(24))
    draws = Draws(7, "deal", 2)
    assert draws.keys(3) == expected
    second = struct.unpack(">2Q", hashlib.shake_128("7\x1fdeal\x1f2\x1f1".encode()).digest(16))
    assert draws.keys(2) == second  # the next draw hashes the next number


def test_a_shuffle_is_a_permutation_that_only_the_seed_and_labels_decide() -> None:
    deal = Draws(7, "deal", 2).shuffled(CARDS)
    assert sorted(deal) == sorted(CARDS)
    assert Draws(7, "deal", 2).shuffled(CARDS) == deal
    others = {tuple(Draws(*args).shuffled(CARDS)) for args in [(8, "deal", 2), (7, "deal", 3), (7, "apprentice", 2)]}
    assert len(others | {tuple(deal)}) == 4
    assert Draws(7, "deal", 2).sample(CARDS, 12) == deal[:12]
    # a one-item sample is read as the smallest key, not by a sort: still the shuffle's first
    for seed in range(300):
        for items in (CARDS, CARDS[:4], "ab"):
            assert Draws(seed, "apprentice", 1).sample(items, 1) == Draws(seed, "apprentice", 1).shuffled(items)[:1]
    assert Draws(7, "deal", 2).sample([], 1) == []


def test_shuffles_are_uniform_enough() -> None:
    # every card in every position about as often: 3 cards, 6000 seeds, each order ~1000 times
    orders = Counter(tuple(Draws(seed, "deal", 1).shuffled("abc")) for seed in range(6000))
    assert len(orders) == 6
    assert all(850 < count < 1150 for count in orders.values()), orders


def test_draw_keys_are_the_first_draw_without_the_object() -> None:
    assert draw_keys(7, "deal", 2, count=5) == Draws(7, "deal", 2).keys(5)
