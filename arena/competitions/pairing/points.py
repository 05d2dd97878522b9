"""Points, tie-breaks and standings, from the list of played tables and byes.

A table is an ordered list of entrant ids (position 0 is seat 0, the first player); its result is the
ranks per seat (1-based, ties share: 1, 1, 3). Rank r at a table of k seats earns (k - r)/(k - 1);
tied seats share the average of the places they span; a bye earns 1/2. Arithmetic is exact
(`fractions.Fraction`), so equal tie-breaks compare equal.

Tie-breaks, in order after points:
- Buchholz: the sum of the final points of every opponent met, an opponent counted once per table
  met (once per deal in duplicate standings);
- Sonneborn-Berger, generalised: the sum over tables of the points earned there times the mean final
  points of that table's opponents (for two players, the classical SB);
then the seeding order (the order of `entrants`), then the entrant id.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Hashable, Iterable, Sequence

BYE_POINTS = Fraction(1, 2)


@dataclass(frozen=True)
class PlayedTable:
    """One finished table: `entrants[s]` sat in seat s and finished with rank `ranks[s]`.

    `deal` identifies the deal for duplicate play (any hashable, e.g. `(round, seed)`): tables of the
    same deal and the same group of entrants are one unit in duplicate standings."""

    entrants: tuple[str, ...]
    ranks: tuple[int, ...]
    deal: Hashable = None

    def __init__(self, entrants: Sequence[str], ranks: Sequence[int], deal: Hashable = None):
        object.__setattr__(self, "entrants", tuple(entrants))
        object.__setattr__(self, "ranks", tuple(int(r) for r in ranks))
        object.__setattr__(self, "deal", deal)
        check_table(self.entrants, self.ranks)


@dataclass(frozen=True)
class Bye:
    """A round (or deal) sat out. Worth 1/2 by default (a duplicate round's bye is worth what the
    deals it missed pay on average: 1/2 x rotations x deals, see `duplicate.duplicate_bye_points`)."""

    entrant: str
    points: Fraction = field(default=BYE_POINTS)


@dataclass(frozen=True)
class StandingRow:
    rank: int                 # 1-based; rows equal in points, Buchholz and SB share a rank
    entrant: str
    points: Fraction
    buchholz: Fraction
    sonneborn_berger: Fraction
    tables: int               # tables played (byes not counted)
    byes: int


def check_table(entrants: Sequence[str], ranks: Sequence[int]) -> None:
    """Raise ValueError unless this is a well-formed table result (>= 2 distinct entrants, one
    rank per seat, ranks 1-based with ties sharing the best place they span)."""
    k = len(entrants)
    if k < 2:
        raise ValueError(f"a table needs at least 2 seats, got {list(entrants)}")
    if len(set(entrants)) != k:
        raise ValueError(f"an entrant sits twice at one table: {list(entrants)}")
    if len(ranks) != k:
        raise ValueError(f"{k} seats but {len(ranks)} ranks")
    for r in ranks:
        if r != 1 + sum(1 for other in ranks if other < r):
            raise ValueError(f"ranks {list(ranks)} are not 1-based competition ranks (1, 1, 3)")


def table_points(ranks: Sequence[int]) -> list[Fraction]:
    """Points per seat: rank r of k seats earns (k - r)/(k - 1); m seats tied at rank r share the
    average of places r .. r+m-1, i.e. (k - r - (m - 1)/2)/(k - 1). A table always pays out k/2."""
    k = len(ranks)
    if k < 2:
        raise ValueError("a table needs at least 2 seats")
    ties = defaultdict(int)
    for r in ranks:
        ties[r] += 1
    return [Fraction(2 * (k - r) - (ties[r] - 1), 2 * (k - 1)) for r in ranks]


def _normalise_byes(byes: Iterable[str | Bye]) -> list[Bye]:
    return [b if isinstance(b, Bye) else Bye(b) for b in byes]


def _numerators(ranks: Sequence[int]) -> tuple[list[int], int]:
    """table_points as integer numerators over the common denominator 2(k - 1)."""
    k = len(ranks)
    if k < 2:
        raise ValueError("a table needs at least 2 seats")
    if k == 2:
        return ([2, 0] if ranks[0] < ranks[1] else [0, 2] if ranks[1] < ranks[0] else [1, 1]), 2
    ties = defaultdict(int)
    for r in ranks:
        ties[r] += 1
    return [2 * (k - r) - (ties[r] - 1) for r in ranks], 2 * (k - 1)


def points_by_entrant(tables: Iterable[PlayedTable], byes: Iterable[str | Bye] = ()) -> dict[str, Fraction]:
    """Total points per entrant (tables + byes), summed exactly (integers per denominator)."""
    sums: dict[tuple[str, int], int] = defaultdict(int)
    for t in tables:
        nums, den = _numerators(t.ranks)
        for e, p in zip(t.entrants, nums):
            sums[(e, den)] += p
    points: dict[str, Fraction] = defaultdict(Fraction)
    for (e, den), num in sums.items():
        points[e] += Fraction(num, den)
    for b in _normalise_byes(byes):
        points[b.entrant] += b.points
    return dict(points)


def _units(tables: Sequence[PlayedTable], duplicate: bool) -> list[tuple[tuple[str, ...], dict[str, Fraction]]]:
    """The meetings tie-breaks count: one per table, or in duplicate standings one per (deal, group of
    entrants), its points the sum of the table points over the deal's rotations."""
    units: dict = {}
    order = []
    for i, t in enumerate(tables):
        pts = table_points(t.ranks)
        key = (t.deal, frozenset(t.entrants)) if duplicate and t.deal is not None else ("table", i)
        if key not in units:
            units[key] = (t.entrants, defaultdict(Fraction))
            order.append(key)
        for e, p in zip(t.entrants, pts):
            units[key][1][e] += p
    return [units[k] for k in order]


def standings(tables: Sequence[PlayedTable], byes: Iterable[str | Bye] = (), entrants: Sequence[str] = (),
              *, duplicate: bool = False) -> list[StandingRow]:
    """Ordered standings from every table played so far (and the byes).

    `entrants` (optional) gives the seeding order, the last tie-break, and lists entrants who have not
    played yet; entrants seen only in `tables`/`byes` follow, by id. With `duplicate=True`, the tables
    of one deal played by one group (its rotations, `PlayedTable.deal`) are one meeting for Buchholz
    and SB, worth the sum of its table points."""
    tables = list(tables)
    byes = _normalise_byes(byes)
    seed = {e: i for i, e in enumerate(entrants)}
    if len(seed) != len(entrants):
        raise ValueError("an entrant is listed twice")
    points = points_by_entrant(tables, byes)
    for e in entrants:
        points.setdefault(e, Fraction(0))
    played = defaultdict(int)
    for t in tables:
        for e in t.entrants:
            played[e] += 1
    bye_count = defaultdict(int)
    for b in byes:
        bye_count[b.entrant] += 1
    buchholz: dict[str, Fraction] = defaultdict(Fraction)
    sb: dict[str, Fraction] = defaultdict(Fraction)
    for members, earned in _units(tables, duplicate):
        total = sum(points[e] for e in members)
        for e in members:
            opponents = total - points[e]
            buchholz[e] += opponents
            sb[e] += earned[e] * opponents / (len(members) - 1)
    late = len(seed)
    order = sorted(points, key=lambda e: (-points[e], -buchholz[e], -sb[e], seed.get(e, late), e))
    rows = []
    for i, e in enumerate(order):
        key = (points[e], buchholz[e], sb[e])
        if rows and (rows[-1].points, rows[-1].buchholz, rows[-1].sonneborn_berger) == key:
            rank = rows[-1].rank
        else:
            rank = i + 1
        rows.append(StandingRow(rank, e, points[e], buchholz[e], sb[e], played[e], bye_count[e]))
    return rows
