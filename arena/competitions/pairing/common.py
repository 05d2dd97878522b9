"""What the pairing functions share: the history of a field, table sizes, seat order, owners."""
from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterable, Mapping, Sequence

from .points import Bye, PlayedTable, _normalise_byes, points_by_entrant

Owners = Mapping[str, "str | None"]


class PairingError(ValueError):
    """The constraints cannot be met (e.g. an owner has more bots than there are tables)."""


def pair_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


@dataclass
class History:
    """What pairing needs to know about the tables played so far."""

    points: dict[str, Fraction] = field(default_factory=lambda: defaultdict(Fraction))
    meetings: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    seats: dict[str, list[int]] = field(default_factory=dict)      # times in each seat position
    last_seat: dict[str, int] = field(default_factory=dict)
    byes: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def met(self, a: str, b: str) -> int:
        return self.meetings.get(pair_key(a, b), 0)

    def seat_counts(self, e: str, k: int) -> list[int]:
        counts = self.seats.get(e, [])
        return (counts + [0] * k)[:k] if len(counts) < k else counts[:k]


def build_history(tables: Iterable[PlayedTable], byes: Iterable[str | Bye] = ()) -> History:
    h = History()
    tables = list(tables)
    byes = _normalise_byes(byes)
    h.points.update(points_by_entrant(tables, byes))
    meetings = h.meetings
    for t in tables:
        members = t.entrants
        for s, e in enumerate(members):
            counts = h.seats.setdefault(e, [])
            if len(counts) <= s:
                counts.extend([0] * (s + 1 - len(counts)))
            counts[s] += 1
            h.last_seat[e] = s
        if len(members) == 2:
            a, b = members
            meetings[(a, b) if a < b else (b, a)] += 1
            continue
        for i in range(len(members)):
            for j in range(i + 1, len(members)):
                meetings[pair_key(members[i], members[j])] += 1
    for b in byes:
        h.byes[b.entrant] += 1
    return h


def table_sizes(n: int, sizes: Sequence[int], preferred: int | None = None) -> tuple[list[int], int]:
    """Split n entrants into tables of the allowed `sizes`: (table sizes, byes).

    Fewest byes first; then fewest tables not of the preferred size (default: the largest allowed);
    then the least total distance from the preferred size; then the fewest tables. Tables of the
    preferred size come first (the top of the standings), the others after, larger before smaller."""
    sizes = sorted(set(int(s) for s in sizes))
    if not sizes or sizes[0] < 2:
        raise ValueError(f"table sizes must be >= 2, got {sizes}")
    p = max(sizes) if preferred is None else int(preferred)
    if p not in sizes:
        raise ValueError(f"preferred size {p} is not among the allowed sizes {sizes}")
    if n < sizes[0]:
        raise PairingError(f"{n} entrants cannot fill a table of {sizes[0]}")
    inf = (n + 1, 0, 0)
    best: list[tuple] = [(0, 0, 0)] + [inf] * n          # cost (off-size tables, deviation, tables)
    choice = [0] * (n + 1)
    for m in range(1, n + 1):
        for s in sizes:
            if s <= m and best[m - s] != inf:
                c = best[m - s]
                cand = (c[0] + (s != p), c[1] + abs(s - p), c[2] + 1)
                if cand < best[m]:
                    best[m], choice[m] = cand, s
    for b in range(n + 1):
        m = n - b
        if best[m] != inf and m > 0:
            out = []
            while m:
                out.append(choice[m])
                m -= choice[m]
            out.sort(key=lambda s: (s != p, -s))
            return out, b
    raise PairingError(f"{n} entrants cannot be seated at tables of {sizes}")


def owner_of(owners: Owners | None, e: str):
    return owners.get(e) if owners else None


def owner_clash(owners: Owners | None, members: Iterable[str], newcomer: str) -> bool:
    """Would `newcomer` share a table with a bot of the same owner (house bots, owner None, never clash)?"""
    o = owner_of(owners, newcomer)
    return o is not None and any(owner_of(owners, m) == o for m in members)


def check_owner_capacity(owners: Owners | None, players: Sequence[str], n_tables: int) -> None:
    if not owners:
        return
    count = defaultdict(int)
    for e in players:
        o = owners.get(e)
        if o is not None:
            count[o] += 1
    for o, c in count.items():
        if c > n_tables:
            raise PairingError(f"owner {o!r} has {c} bots for {n_tables} tables: two would share a table")


def owner_feasible_tables(players: Sequence[str], sizes: Sequence[int], owners: Owners | None) -> list[list[str]]:
    """Tables of the given sizes with no two bots of one owner together, found by max flow (owner ->
    table capacity 1); players keep their order of `players` inside each owner group."""
    import networkx as nx

    check_owner_capacity(owners, players, len(sizes))
    groups: dict = defaultdict(list)
    for e in players:
        o = owner_of(owners, e)
        groups[("owner", o) if o is not None else ("house", e)].append(e)
    g = nx.DiGraph()
    for gi, members in enumerate(groups.values()):
        g.add_edge("s", ("g", gi), capacity=len(members))
        for t in range(len(sizes)):
            g.add_edge(("g", gi), ("t", t), capacity=1)
    for t, s in enumerate(sizes):
        g.add_edge(("t", t), "z", capacity=s)
    # Edmonds-Karp walks the (insertion-ordered) adjacency: the same input gives the same flow
    value, flow = nx.maximum_flow(g, "s", "z", flow_func=nx.algorithms.flow.edmonds_karp)
    if value != len(players):
        raise PairingError("no seating keeps every owner's bots at different tables")
    tables: list[list[str]] = [[] for _ in sizes]
    for gi, members in enumerate(groups.values()):
        it = iter(members)
        for t in range(len(sizes)):
            if flow[("g", gi)].get(("t", t), 0):
                tables[t].append(next(it))
    return tables


def seat_order(members: Sequence[str], history: History, shift: int = 0) -> list[str]:
    """Order a table's members into seats so that each sits where it has sat least often: the
    assignment minimising the sum over members of (e + 1)^2 - 1, e being how many more times the
    member already sat in that seat than in its least-used one (exact for up to 6 seats, greedy
    beyond). Ties go to the members' order rotated by `shift` (the table
    index), so that in round 1 the top seed of each table does not always start."""
    k = len(members)
    counts = {}
    for e in members:
        c = history.seat_counts(e, k)
        low = min(c)
        counts[e] = [(x - low + 1) ** 2 - 1 for x in c]   # 0 in a least-used seat, growing fast
    s = shift % k
    base = list(members[s:]) + list(members[:s])
    if k <= 6:
        best, best_cost = base, None
        for perm in itertools.permutations(base):
            cost = 0
            for pos, e in enumerate(perm):
                cost += counts[e][pos]
            if best_cost is None or cost < best_cost:
                best, best_cost = list(perm), cost
                if cost == 0:
                    break
        return best
    seats: list[str | None] = [None] * k
    # most unbalanced first, each to its least used free seat
    for e in sorted(base, key=lambda e: -(max(counts[e]) - min(counts[e]))):
        free = [p for p in range(k) if seats[p] is None]
        p = min(free, key=lambda p: (counts[e][p], p))
        seats[p] = e
    return seats  # type: ignore[return-value]


def two_player_seats(a: str, b: str, history: History, board: int) -> list[str]:
    """Who goes first: whoever has been first less often, counted as the balance firsts - seconds
    (the same thing when both played as many games; with byes or late entries, raw counts could push
    one entrant three firsts ahead); then fewer firsts; then whoever was second in their last game;
    then the higher-ranked `a` on even boards and `b` on odd boards (the round-1 alternation)."""
    ca, cb = history.seat_counts(a, 2), history.seat_counts(b, 2)
    ka = (ca[0] - ca[1], ca[0], history.last_seat.get(a, -1) == 0)
    kb = (cb[0] - cb[1], cb[0], history.last_seat.get(b, -1) == 0)
    if ka < kb:
        return [a, b]
    if kb < ka:
        return [b, a]
    return [a, b] if board % 2 == 0 else [b, a]
