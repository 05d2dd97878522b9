"""Round robin schedules.

Two players: a double round robin by the circle method (Berger tables): every pair meets twice, seats
swapped (round r + N - 1 mirrors round r); an odd field adds a bye each round.

N players per table: R rounds (given, or by default the fewest for which the search below covers
every pair); each round seats every entrant not on a bye, the byes rotating so that nobody sits out
twice before everyone has sat out once. The tables are found by simulated annealing over all rounds
at once, seeded by `rng` (moves: swap two entrants of different tables within a round; phase 1:
cover every pair; phase 2: keep them covered and spread the meetings evenly, cost (m - 1)^2 per pair
meeting m times). Seats are then assigned across all rounds at once by an equitable edge colouring
of the bipartite graph entrants x tables (de Werra), size by size: every entrant sits in every seat
position floor(t/k) or ceil(t/k) times over its t tables of k seats, so equally often (+-1). Bots of
one owner never share a table (hard), and such pairs are left out of the meeting counts.
"""
from __future__ import annotations

import math
import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

from .common import Owners, PairingError, check_owner_capacity, owner_feasible_tables, owner_of, table_sizes

ATTEMPTS = 2   # annealing runs per round count (from a random start, then a greedy one) before one more round


@dataclass
class Round:
    tables: list[list[str]]   # each in seat order
    byes: list[str]


@dataclass
class RoundRobin:
    rounds: list[Round]
    meetings_min: int         # fewest times any pair (of different owners) met
    meetings_max: int         # most times any pair met

    @property
    def spread(self) -> tuple[int, int]:
        return self.meetings_min, self.meetings_max


def round_robin(entrants: Sequence[str], *, table_size: int = 2, sizes: Sequence[int] | None = None,
                rounds: int | None = None, owners: Owners | None = None, rng: random.Random | None = None,
                effort: int = 40_000) -> RoundRobin:
    """A round robin schedule. `sizes`: allowed table sizes when the game allows a range
    (`table_size` is the preferred one); `rounds` (N-player only): how many rounds, default the fewest
    the search finds covering every pair; `rng`: the search's randomness (default Random(0): the same
    input always gives the same schedule); `effort`: annealing steps per attempt (two attempts per
    round count tried)."""
    entrants = list(entrants)
    if len(set(entrants)) != len(entrants):
        raise ValueError("an entrant is listed twice")
    allowed = sorted(set(sizes)) if sizes else [table_size]
    if table_size not in allowed:
        table_size = max(allowed)
    if allowed == [2]:
        if rounds is not None:
            raise ValueError("a two-player round robin has a fixed length: every pair twice")
        return _double_round_robin(entrants)
    return _n_player(entrants, allowed, table_size, rounds, owners, rng or random.Random(0), effort)


def _double_round_robin(entrants: list[str]) -> RoundRobin:
    n = len(entrants)
    if n < 2:
        raise PairingError("a round robin needs at least two entrants")
    ring: list[str | None] = list(entrants) + ([None] if n % 2 else [])
    m = len(ring)
    first_half: list[Round] = []
    balance = {e: 0 for e in entrants}   # firsts - seconds so far
    for r in range(m - 1):
        tables, byes = [], []
        for i in range(m // 2):
            a, b = ring[i], ring[m - 1 - i]
            if a is None or b is None:
                byes.append(a if b is None else b)
                continue
            # the lower balance starts; on a tie, alternate by board and round
            if balance[b] < balance[a] or (balance[a] == balance[b] and (r + i) % 2):
                a, b = b, a
            balance[a] += 1
            balance[b] -= 1
            tables.append([a, b])
        first_half.append(Round(tables, byes))
        ring = [ring[0], ring[-1]] + ring[1:-1]
    second_half = [Round([[b, a] for a, b in rnd.tables], list(rnd.byes)) for rnd in first_half]
    return RoundRobin(first_half + second_half, 2, 2)


# ----------------------------------------------------------------------------------------- N players

def _bye_schedule(n: int, per_round: int, rounds: int) -> list[list[int]]:
    """Round r's byes: the next `per_round` entrants in a fixed cycle (the last seeds first)."""
    out, at = [], 0
    for _ in range(rounds):
        out.append([n - 1 - ((at + i) % n) for i in range(per_round)])
        at += per_round
    return out


class _Search:

    def __init__(self, entrants: list[str], plan: list[int], byes: list[list[int]], owners: Owners | None,
                 rng: random.Random, greedy: bool = True):
        self.n = n = len(entrants)
        self.entrants = entrants
        self.plan = plan
        self.rng = rng
        owner = [owner_of(owners, e) for e in entrants]
        self.eligible = [[i != j and (owner[i] is None or owner[i] != owner[j]) for j in range(n)] for i in range(n)]
        self.owner = owner
        self.rounds: list[list[list[int]]] = []
        self.meet = [[0] * n for _ in range(n)]
        self.greedy = greedy
        for bye in byes:       # a start round by round: random, or greedy (tables gather unmet pairs)
            bye_set = set(bye)
            players = [i for i in range(n) if i not in bye_set]
            rng.shuffle(players)
            tables = self._initial_tables(players)
            for t in tables:
                self._add(t, 1)
            self.rounds.append(tables)

    def _initial_tables(self, players: list[int]) -> list[list[int]]:
        tables: list[list[int]] = []
        # owned bots first (largest owners first), so the owner constraint rarely corners the greedy
        size = defaultdict(int)
        for i in players:
            size[self.owner[i]] += 1
        remaining = sorted(players, key=lambda i: -size[self.owner[i]] if self.owner[i] is not None else 1)
        for cap in self.plan:
            table = [remaining.pop(0)]
            while len(table) < cap:
                best, best_key = None, None
                for idx, c in enumerate(remaining):
                    if any(self._same_owner(c, m) for m in table):
                        continue
                    if not self.greedy:
                        best = idx
                        break
                    key = (sum(1 for m in table if self.eligible[c][m] and not self.meet[c][m]),
                           -sum(self.meet[c][m] for m in table))
                    if best_key is None or key > best_key:
                        best, best_key = idx, key
                if best is None:
                    names = owner_feasible_tables([self.entrants[i] for i in players], self.plan,
                                                  {self.entrants[i]: self.owner[i] for i in players})
                    index = {e: i for i, e in enumerate(self.entrants)}
                    return [[index[e] for e in t] for t in names]
                table.append(remaining.pop(best))
            tables.append(table)
        return tables

    def _same_owner(self, i: int, j: int) -> bool:
        return self.owner[i] is not None and self.owner[i] == self.owner[j]

    def _add(self, t: list[int], d: int) -> None:
        for a in range(len(t)):
            for b in range(a + 1, len(t)):
                self.meet[t[a]][t[b]] += d
                self.meet[t[b]][t[a]] += d

    def squares(self) -> int:
        n, meet = self.n, self.meet
        return sum((meet[i][j] - 1) ** 2 for i in range(n) for j in range(i + 1, n)
                   if self.eligible[i][j] and meet[i][j])

    def unmet(self) -> int:
        n = self.n
        return sum(1 for i in range(n) for j in range(i + 1, n) if self.eligible[i][j] and not self.meet[i][j])

    def spread(self) -> tuple[int, int]:
        vals = [self.meet[i][j] for i in range(self.n) for j in range(i + 1, self.n) if self.eligible[i][j]]
        return (min(vals), max(vals)) if vals else (0, 0)

    def anneal(self, steps: int) -> None:
        """Simulated annealing in two phases: first coverage alone (energy 10 per pair never met,
        temperature 5 -> 0.2, until every pair meets or the steps run out), then the spread with
        coverage kept (energy 10 per unmet pair + (m - 1)^2 per pair meeting m >= 1 times,
        temperature 3 -> 0.05, the steps left, at least a quarter). The best state by (unmet pairs,
        squares) is kept. Half the moves are random swaps of two entrants of different tables in a
        round; the other half aim: an entrant x and an opponent y it has not met, and in a round
        where they sit apart, y swapped with one of x's table mates."""
        movable = [r for r, tables in enumerate(self.rounds) if len(tables) > 1]
        if not movable:
            return
        self.where = []  # per round: entrant -> (table index, seat index)
        for tables in self.rounds:
            w = {}
            for ti, t in enumerate(tables):
                for si, e in enumerate(t):
                    w[e] = (ti, si)
            self.where.append(w)
        self.best = (self.unmet(), self.squares())
        self.best_rounds = [[list(t) for t in tables] for tables in self.rounds]
        used = self._phase(movable, steps, 1, 0, 5.0, 0.2, stop_when_covered=True)
        self._phase(movable, max(steps - used, steps // 4), 10, 1, 3.0, 0.05, stop_when_covered=False)
        self.rounds = self.best_rounds
        self.meet = [[0] * self.n for _ in range(self.n)]
        for tables in self.rounds:
            for t in tables:
                self._add(t, 1)

    def _phase(self, movable: list[int], steps: int, wu: int, ws: int, t0: float, t1: float,
               stop_when_covered: bool) -> int:
        rng, meet, n, eligible = self.rng, self.meet, self.n, self.eligible
        unmet, sq = self.unmet(), self.squares()
        scale = 10 // wu    # phase 1 counts unmet pairs at 10 each, like phase 2
        step = 0
        for step in range(steps):
            if self.best == (0, 0) or (stop_when_covered and unmet == 0):
                break
            temp = t0 * (t1 / t0) ** (step / steps)
            r = rng.choice(movable)
            tables, w = self.rounds[r], self.where[r]
            if step % 2:
                x = rng.randrange(n)
                row = meet[x]
                targets = [y for y in range(n) if eligible[x][y] and not row[y]]
                if not targets or x not in w:
                    continue
                y = rng.choice(targets)
                if y not in w or w[x][0] == w[y][0]:
                    continue
                a, b = w[x][0], w[y][0]
                ta, tb = tables[a], tables[b]
                if len(ta) < 2:
                    continue
                xi = rng.randrange(len(ta) - 1)
                if xi >= w[x][1]:
                    xi += 1
                yi = w[y][1]
            else:
                a, b = rng.sample(range(len(tables)), 2)
                ta, tb = tables[a], tables[b]
                xi, yi = rng.randrange(len(ta)), rng.randrange(len(tb))
            u, v = ta[xi], tb[yi]   # swap u (table a) with v (table b)
            if (any(self._same_owner(v, z) for z in ta if z != u)
                    or any(self._same_owner(u, z) for z in tb if z != v)):
                continue
            du = ds = 0
            for leaving, joining, others in ((u, v, ta), (v, u, tb)):
                for z in others:
                    if z == leaving:
                        continue
                    if eligible[leaving][z]:       # leaving's meeting with z drops by one
                        m = meet[leaving][z]
                        du += m == 1
                        ds += (m - 2) ** 2 - (m - 1) ** 2 if m >= 2 else 0
                    if eligible[joining][z]:       # joining's meeting with z rises by one
                        m = meet[joining][z]
                        du -= m == 0
                        ds += m * m - (m - 1) ** 2 if m >= 1 else 0
            delta = (wu * du * scale) + ws * ds
            if delta <= 0 or rng.random() < math.exp(-delta / temp):
                for z in ta:
                    if z != u:
                        meet[u][z] -= 1; meet[z][u] -= 1; meet[v][z] += 1; meet[z][v] += 1  # noqa: E702 - one swap's four symmetric counts
                for z in tb:
                    if z != v:
                        meet[v][z] -= 1; meet[z][v] -= 1; meet[u][z] += 1; meet[z][u] += 1  # noqa: E702 - one swap's four symmetric counts
                ta[xi], tb[yi] = v, u
                w[u], w[v] = (b, yi), (a, xi)
                unmet += du
                sq += ds
                if (unmet, sq) < self.best:
                    self.best = (unmet, sq)
                    self.best_rounds = [[list(t) for t in tbls] for tbls in self.rounds]
        return step


def _n_player(entrants: list[str], allowed: list[int], preferred: int, rounds: int | None,
              owners: Owners | None, rng: random.Random, effort: int) -> RoundRobin:
    n = len(entrants)
    plan, bye_count = table_sizes(n, allowed, preferred)
    # byes rotate, so any round may seat all of an owner's bots: they must fit the tables
    check_owner_capacity(owners, entrants, len(plan))
    k = max(plan)
    if rounds is not None:
        if rounds < 1:
            raise ValueError("rounds must be >= 1")
        search = _Search(entrants, plan, _bye_schedule(n, bye_count, rounds), owners, rng, greedy=True)
        search.anneal(effort)
    else:
        need = [sum(1 for j in range(n) if j != i and (owner_of(owners, entrants[i]) is None
                                                        or owner_of(owners, entrants[i]) != owner_of(owners, entrants[j])))
                for i in range(n)]
        r = max(1, math.ceil(max(need) / (k - 1)))
        while True:
            sat_out = defaultdict(int)
            for bye in _bye_schedule(n, bye_count, r):
                for i in bye:
                    sat_out[i] += 1
            if any((r - sat_out[i]) * (k - 1) < need[i] for i in range(n)) and r <= 4 * n:
                r += 1        # someone cannot meet everyone in r rounds: no search needed
                continue
            for attempt in range(ATTEMPTS):
                search = _Search(entrants, plan, _bye_schedule(n, bye_count, r), owners, rng, greedy=attempt % 2 == 1)
                search.anneal(effort)
                if not search.unmet():
                    break
            if not search.unmet() or r > 4 * n:
                break
            r += 1
    low, high = search.spread()
    tables_by_round = [[[entrants[i] for i in t] for t in tables] for tables in search.rounds]
    seated = equitable_seats(tables_by_round)
    byes = _bye_schedule(n, bye_count, len(tables_by_round))
    return RoundRobin([Round(tables, [entrants[i] for i in bye]) for tables, bye in zip(seated, byes)], low, high)


def equitable_seats(rounds: list[list[list[str]]]) -> list[list[list[str]]]:
    """Seat order for every table of every round so each entrant sits in each seat position
    floor(t/k) or ceil(t/k) times over its t tables of k seats: an equitable edge colouring of the
    bipartite multigraph entrants x tables (colours = seats), by balancing pairs of colours along
    Euler trails until no entrant has two colours more than one apart (de Werra). Tables of different
    sizes are coloured separately, size by size, so the guarantee holds within each size."""
    seated: list[list[list[str]]] = [[list(t) for t in tables] for tables in rounds]
    for k in sorted({len(t) for tables in rounds for t in tables}):
        where = [(r, ti) for r, tables in enumerate(rounds) for ti, t in enumerate(tables) if len(t) == k]
        for (r, ti), t in zip(where, _equitable([rounds[r][ti] for r, ti in where], k)):
            seated[r][ti] = t
    return seated


def _equitable(tables_in: list[list[str]], k: int) -> list[list[str]]:
    """equitable_seats for tables all of k seats (each an entry of `tables_in`)."""
    edges: list[tuple[str, int]] = []      # (entrant, table index)
    colour: list[int] = []
    for ti, t in enumerate(tables_in):
        for s, e in enumerate(t):
            edges.append((e, ti))
            colour.append(s)
    count: dict = defaultdict(lambda: [0] * k)
    for (e, _), c in zip(edges, colour):
        count[e][c] += 1

    def balance(a: int, b: int) -> None:
        chosen = [i for i, c in enumerate(colour) if c in (a, b)]
        adj: dict = defaultdict(list)
        for i in chosen:
            e, t = edges[i]
            adj[("e", e)].append(i)
            adj[("t", t)].append(i)
            count[e][colour[i]] -= 1
        used = set()
        remaining = {v: len(lst) for v, lst in adj.items()}

        def walk(start) -> None:
            cur, c = start, a
            while True:
                lst = adj[cur]
                while lst and lst[-1] in used:
                    lst.pop()
                if not lst:
                    return
                i = lst.pop()
                used.add(i)
                colour[i] = c
                e, t = edges[i]
                remaining[("e", e)] -= 1
                remaining[("t", t)] -= 1
                cur = ("t", t) if cur == ("e", e) else ("e", e)
                c = b if c == a else a

        for v in list(adj):
            if remaining[v] % 2:
                walk(v)
        for v in list(adj):
            while remaining[v]:
                walk(v)
        for i in chosen:
            count[edges[i][0]][colour[i]] += 1

    while True:   # ends: each balancing strictly lowers the sum of squared colour counts
        worst = None
        for c in count.values():
            lo, hi = min(range(k), key=c.__getitem__), max(range(k), key=c.__getitem__)
            if c[hi] - c[lo] >= 2:
                worst = (lo, hi)
                break
        if worst is None:
            break
        balance(*worst)
    placed: list[list[tuple[int, str]]] = [[] for _ in tables_in]
    for (e, ti), c in zip(edges, colour):
        placed[ti].append((c, e))
    return [[e for _, e in sorted(members)] for members in placed]
