"""Duplicate play, bridge-style: the same deals are played by every group of a round, and each group
plays each deal once per rotation of its seats, so every entrant holds every seat's cards once and
card luck cancels.

A group is a table as the pairing produced it (seat order). Rotation r of a group g seats
`rotate(g, r)`: seat s holds g[(s + r) % k], so for two players rotation 1 swaps the seats. The deal
(seed) is the same in every rotation: the cards dealt to seat s are the same, whoever sits there.
Seat attributes that belong to the entrant rather than to the dealt seat (a colour, say) rotate with
the entrants: apply `rotate(attributes_by_group_position, r)` to get them by seat.

Standings: record each table with `PlayedTable(..., deal=table.deal)` and call
`standings(..., duplicate=True)`: an entrant's score for a deal is the sum of its table points over
the rotations (k tables paying k/2 each: k/2 per entrant and deal on average), totals
add up the deals, and for Buchholz and Sonneborn-Berger one deal with one group is one meeting. A bye
in a duplicate round is worth the average of what it missed: 1/2 x rotations x deals
(`duplicate_bye_points`).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence


@dataclass(frozen=True)
class DuplicateTable:
    deal: int                 # the deal seed, the same at every table playing this deal
    group: int                # index of the group (table of the pairing) in the round
    rotation: int             # 0 .. k-1: seat s holds group[(s + rotation) % k]
    table: tuple[str, ...]    # entrants in seat order


def rotate(seq: Sequence, rotation: int) -> list:
    """`seq` (by group position) rotated into seat order for the given rotation."""
    k = len(seq)
    return [seq[(s + rotation) % k] for s in range(k)]


def deal_seeds(seed: int | str, round_number: int, count: int) -> list[int]:
    """`count` deal seeds for a round, derived from the tournament seed with a hash (independent
    streams, never one RNG consumed as the tournament goes: round r's deals do not depend on
    anything played before)."""
    out = []
    for i in range(count):
        digest = hashlib.sha256(f"{seed}|deal|{round_number}|{i}".encode()).digest()
        out.append(int.from_bytes(digest[:8], "big"))
    return out


def duplicate_round(groups: Sequence[Sequence[str]], deals: Sequence[int]) -> list[DuplicateTable]:
    """Every (deal, group, rotation): each deal is played by each group once in each rotation of its
    seats. Ordered by deal, then group, then rotation."""
    if len(set(deals)) != len(deals):
        raise ValueError("a deal seed is listed twice")
    out = []
    for deal in deals:
        for g, group in enumerate(groups):
            if len(group) < 2 or len(set(group)) != len(group):
                raise ValueError(f"not a table: {list(group)}")
            for r in range(len(group)):
                out.append(DuplicateTable(deal, g, r, tuple(rotate(group, r))))
    return out


def duplicate_bye_points(table_size: int, deals: int) -> Fraction:
    """What a bye in a duplicate round is worth: half a point for each table it missed."""
    return Fraction(table_size * deals, 2)
