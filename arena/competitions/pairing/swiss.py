"""Swiss pairing: one round at a time, from the tables played so far.

Two players per table (`table_size=2`):
- entrants are ranked by points, then by seeding (the order of `entrants`);
- odd field: the bye goes to the lowest-ranked entrant among those with the fewest byes (so nobody
  gets a second bye before everyone has had one);
- fields of up to `exact_limit` (64) entrants are paired in one maximum-weight matching (networkx)
  whose weights are lexicographic: fewest rematches (none whenever some pairing of the whole round
  avoids them), then the bye to the lowest-ranked eligible entrant, then no seat breach (two
  entrants both already two firsts, or two seconds, ahead), then the smallest score differences
  (floaters), then seat (first-player) compatibility, then Dutch order (top half of a score
  bracket against the bottom half);
- larger fields go bracket by bracket from the top, the unpaired floating down into the next
  bracket: brackets (with their incoming floaters) of up to `exact_limit` by the same matching
  restricted to non-rematches, larger ones by a Dutch greedy (S1[i] against the nearest free S2
  from S2[i] on, skipping rematches, preferring compatible seats); a last pass swaps partners
  between boards to break any rematch (then seat breach) left;
- who goes first: see `common.two_player_seats` (whoever has been first less often).

N players per table (`table_size` >= 3, or a range of `sizes`): tables are filled top-down from the
standings: each table takes the highest-ranked entrant still unseated, then repeatedly the next
entrant in ranking order who has met the fewest of the table (none, usually), preferring one that
lets everyone at the table take one of its least-used seats, never a second bot of one owner; then
a local search swaps entrants between nearby tables while that lowers the repeated pairs; seats go
to whoever has sat there least (`common.seat_order`).
With a range of allowed sizes, tables differ in size rather than give byes (`common.table_sizes`).
"""
from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterable, Sequence

from .common import (History, Owners, PairingError, build_history, check_owner_capacity, owner_clash, owner_of,
                     owner_feasible_tables, seat_order, table_sizes, two_player_seats)
from .points import Bye, PlayedTable

EXACT_LIMIT = 64


@dataclass
class SwissRound:
    tables: list[list[str]]               # in board order, each in seat order
    byes: list[str]
    repeats: int = 0                      # pairs at this round's tables that had already met
    pairs: int = 0                        # pairs at this round's tables
    notes: list[str] = field(default_factory=list)

    @property
    def repeat_rate(self) -> float:
        return self.repeats / self.pairs if self.pairs else 0.0


def score_levels(entrants: Sequence[str], history: History) -> dict[str, int]:
    """Each entrant's score bracket: 0 for the best score present, 1 for the next, ... (ints compare
    much faster than Fractions)."""
    zero = Fraction(0)
    distinct = sorted({history.points.get(e, zero) for e in entrants}, reverse=True)
    index = {p: i for i, p in enumerate(distinct)}
    return {e: index[history.points.get(e, zero)] for e in entrants}


def ranking(entrants: Sequence[str], history: History) -> list[str]:
    """Pairing order: points (descending), then seeding."""
    level = score_levels(entrants, history)
    return sorted(entrants, key=level.__getitem__)  # stable: seeding order inside a bracket


def choose_byes(order: Sequence[str], history: History, count: int) -> list[str]:
    """The `count` lowest-ranked entrants among those with the fewest byes (taken level by level)."""
    chosen: list[str] = []
    remaining = list(order)
    while len(chosen) < count:
        fewest = min(history.byes.get(e, 0) for e in remaining)
        for i in range(len(remaining) - 1, -1, -1):
            if history.byes.get(remaining[i], 0) == fewest:
                chosen.append(remaining.pop(i))
                break
    return chosen


def swiss_round(entrants: Sequence[str], tables: Iterable[PlayedTable] = (), byes: Iterable[str | Bye] = (),
                *, table_size: int = 2, sizes: Sequence[int] | None = None, owners: Owners | None = None,
                exact_limit: int = EXACT_LIMIT) -> SwissRound:
    """Pair the next round. `entrants`: those still playing, in seeding order; `tables`/`byes`:
    everything played so far (in play order); `sizes`: allowed table sizes when the game allows a
    range (`table_size` is then the preferred one, or the largest allowed if it is not among them);
    `owners`: entrant -> owner (None for house bots), a hard constraint at tables of 3+ seats;
    `exact_limit`: the largest field (or bracket) paired by exact matching."""
    entrants = list(entrants)
    if len(set(entrants)) != len(entrants):
        raise ValueError("an entrant is listed twice")
    history = build_history(tables, byes)
    order = ranking(entrants, history)
    allowed = sorted(set(sizes)) if sizes else [table_size]
    if table_size not in allowed:
        table_size = max(allowed)
    if allowed == [2]:
        result = _two_player_round(order, history, exact_limit)
    else:
        result = _n_player_round(order, history, allowed, table_size, owners)
    result.repeats, result.pairs = count_repeats(result.tables, history)
    return result


def count_repeats(tables: Sequence[Sequence[str]], history: History) -> tuple[int, int]:
    repeats = pairs = 0
    for t in tables:
        for i in range(len(t)):
            for j in range(i + 1, len(t)):
                pairs += 1
                repeats += history.met(t[i], t[j]) > 0
    return repeats, pairs


# --------------------------------------------------------------------------------------- 2 players

def _two_player_round(order: list[str], history: History, exact_limit: int) -> SwissRound:
    if len(order) < 2:
        raise PairingError("a round needs at least two entrants")
    rank = {e: i for i, e in enumerate(order)}
    byes: list[str] = []
    if len(order) <= exact_limit:
        pairs, bye = _exact_round(order, history)
        if bye is not None:
            byes.append(bye)
    else:
        players = list(order)
        if len(players) % 2:
            byes = choose_byes(players, history, 1)
            players.remove(byes[0])
        pairs = _bracket_pairs(players, history, exact_limit)
        _repair(pairs, history)
    pairs = [tuple(sorted(p, key=rank.__getitem__)) for p in pairs]
    pairs.sort(key=lambda p: rank[p[0]])
    tables = [two_player_seats(a, b, history, board) for board, (a, b) in enumerate(pairs)]
    return SwissRound(tables, byes)


def _balance(history: History, e: str) -> int:
    c = history.seat_counts(e, 2)
    return c[0] - c[1]


def _seat_cost(history: History, a: str, b: str) -> int:
    """0 when one of the two can take the seat it wants; else the square of the imbalance the one who
    must give way ends with."""
    ba, bb = _balance(history, a), _balance(history, b)
    if ba * bb > 0:
        return (min(abs(ba), abs(bb)) + 1) ** 2
    return 0


def _seat_breach(history: History, a: str, b: str) -> int:
    """1 when both have a balance of 2 or more the same way: one would end 3 firsts (or seconds)
    ahead. Avoided before score differences (like the absolute colour rule of chess Swiss)."""
    ba, bb = _balance(history, a), _balance(history, b)
    return int(ba * bb > 0 and min(abs(ba), abs(bb)) >= 2)


def _lexicographic(edges: list[tuple[object, object, tuple[int, ...]]], slots: int) -> list[tuple[object, object, int]]:
    """Integer weights for max-weight matching from cost tuples compared lexicographically: each
    level outweighs every possible sum of the levels below over a matching of `slots` edges."""
    if not edges:
        return []
    levels = len(edges[0][2])
    top = [max(c[2][lv] for c in edges) for lv in range(levels)]
    scale = [1] * levels
    for lv in range(levels - 2, -1, -1):
        scale[lv] = scale[lv + 1] * (top[lv + 1] * slots + 1)
    combined = [(u, v, sum(c * s for c, s in zip(costs, scale))) for u, v, costs in edges]
    ceiling = max(w for _, _, w in combined) + 1
    return [(u, v, ceiling - w) for u, v, w in combined]


def _match(nodes: Sequence[object], edges: list[tuple[object, object, tuple[int, ...]]]) -> list[tuple[object, object]]:
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(nodes)
    for u, v, w in _lexicographic(edges, len(nodes) // 2 + 1):
        g.add_edge(u, v, weight=w)
    index = {node: i for i, node in enumerate(nodes)}
    # networkx returns a set, whose order follows string hashing (random per process): sort it
    pairs = [tuple(sorted(p, key=index.__getitem__)) for p in nx.max_weight_matching(g, maxcardinality=True)]
    return sorted(pairs, key=lambda p: index[p[0]])


def _bracket_info(players: Sequence[str], history: History):
    """Score level index, position inside the bracket and bracket size, per player."""
    levels: list = []
    level_of: dict[str, int] = {}
    score = score_levels(players, history)
    for e in players:
        s = score[e]
        if not levels or levels[-1][0] != s:
            levels.append([s, 0])
        level_of[e] = len(levels) - 1
        levels[-1][1] += 1
    pos: dict[str, int] = {}
    seen = [0] * len(levels)
    for e in players:
        pos[e] = seen[level_of[e]]
        seen[level_of[e]] += 1
    return level_of, pos, [size for _, size in levels]


def _pair_costs(a: str, b: str, history: History, level_of, pos, size) -> tuple[int, int, int, int]:
    """(seat breach, score, seat, dutch) costs of pairing a (ranked higher) with b."""
    d = level_of[b] - level_of[a]
    if d == 0:
        dutch = abs(pos[b] - pos[a] - size[level_of[a]] // 2)
    else:
        dutch = pos[b]
    return _seat_breach(history, a, b), d * d, _seat_cost(history, a, b), dutch


BYE = ("bye",)


def _exact_round(order: Sequence[str], history: History) -> tuple[list[tuple[str, str]], str | None]:
    """The whole round in one matching (small fields). Costs, most important first: (rematches, bye,
    seat breach, score, seat, dutch)."""
    level_of, pos, size = _bracket_info(order, history)
    edges = []
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            m = history.met(a, b)
            edges.append((a, b, (m * m, 0) + _pair_costs(a, b, history, level_of, pos, size)))
    nodes: list[object] = list(order)
    if len(order) % 2:
        nodes.append(BYE)
        fewest = min(history.byes.get(e, 0) for e in order)
        eligible = [e for e in order if history.byes.get(e, 0) == fewest]
        for up, e in enumerate(reversed(eligible)):
            edges.append((e, BYE, (0, up, 0, 0, 0, 0)))
    pairs, bye = [], None
    for u, v in _match(nodes, edges):
        if u == BYE or v == BYE:
            bye = v if u == BYE else u
        else:
            pairs.append((u, v))
    return pairs, bye


FLOAT = ("float",)


def _exact_bracket(group: Sequence[str], incoming: set[str], history: History,
                   last: bool) -> tuple[list[tuple[str, str]], list[str]]:
    """One bracket (with the floaters from above, ranked first) by matching. Not the last bracket:
    only non-rematch edges, the unmatched float down (the lowest-ranked resident by preference). The
    last bracket pairs everyone, fewest rematches first."""
    level_of, pos, size = _bracket_info(group, history)
    edges = []
    for i, a in enumerate(group):
        for b in group[i + 1:]:
            m = history.met(a, b)
            if m and not last:
                continue
            edges.append((a, b, (m * m, 0) + _pair_costs(a, b, history, level_of, pos, size)))
    nodes: list[object] = list(group)
    if not last and len(group) % 2:
        nodes.append(FLOAT)
        for up, e in enumerate(reversed(group)):
            edges.append((e, FLOAT, (0, up + (len(group) if e in incoming else 0), 0, 0, 0, 0)))
    pairs, matched = [], set()
    for u, v in _match(nodes, edges):
        if FLOAT in (u, v):
            continue
        pairs.append((u, v))
        matched.update((u, v))
    return pairs, [e for e in group if e not in matched]


def _dutch_greedy(group: Sequence[str], history: History, last: bool,
                  window: int = 24) -> tuple[list[tuple[str, str]], list[str]]:
    """A large bracket: S1 (top half) against S2 (bottom half) in order, each S1 entrant taking the
    first free S2 entrant from its Dutch counterpart on (then just above it) that it has not met,
    preferring one whose seat preference is compatible; leftovers pair among themselves, else float."""
    group = list(group)
    floaters: list[str] = []
    if len(group) % 2 and not last:
        floaters.append(group.pop())
    half = len(group) // 2
    s1, s2 = group[:half], group[half:]
    free = list(range(len(s2)))
    pairs: list[tuple[str, str]] = []
    left: list[str] = []
    for i, a in enumerate(s1):
        at = bisect.bisect_left(free, i)
        candidates = free[at:at + window] + free[max(0, at - window // 4):at][::-1]
        pick = fallback = breach = None
        for j in candidates:
            b = s2[j]
            if history.met(a, b):
                continue
            if _seat_cost(history, a, b) == 0:
                pick = j
                break
            if _seat_breach(history, a, b):
                if breach is None:
                    breach = j
            elif fallback is None:
                fallback = j
        if pick is None:
            pick = fallback if fallback is not None else breach
        if pick is None:
            left.append(a)
        else:
            pairs.append((a, s2[pick]))
            free.pop(bisect.bisect_left(free, pick))
    rest = left + [s2[j] for j in free]
    while rest:
        a = rest.pop(0)
        options = [j for j, b in enumerate(rest) if not history.met(a, b)]
        if options:
            j = min(options, key=lambda j: (_seat_breach(history, a, rest[j]), j))
            pairs.append((a, rest.pop(j)))
        else:
            floaters.append(a)
    if last:  # nothing below: pair what is left in order; the repair pass deals with rematches
        pairs.extend(zip(floaters[0::2], floaters[1::2]))
        floaters = floaters[len(floaters) // 2 * 2:]
    return pairs, floaters


def _bracket_pairs(players: Sequence[str], history: History, exact_limit: int) -> list[tuple[str, str]]:
    groups: list[list[str]] = []
    last_score = -1
    score = score_levels(players, history)
    for e in players:
        s = score[e]
        if s != last_score:
            groups.append([])
            last_score = s
        groups[-1].append(e)
    pairs: list[tuple[str, str]] = []
    floaters: list[str] = []
    for gi, group in enumerate(groups):
        last = gi == len(groups) - 1
        merged = floaters + group
        if len(merged) <= exact_limit:
            new, floaters = _exact_bracket(merged, set(floaters), history, last)
        else:
            new, floaters = _dutch_greedy(merged, history, last)
        pairs.extend(new)
    if floaters:  # an odd count can only come from the caller; keep everyone paired anyway
        raise PairingError(f"could not pair {floaters}")
    return pairs


def _repair(pairs: list[tuple[str, str]], history: History) -> None:
    """Break each remaining rematch, then each pair where one would end three firsts (or seconds)
    ahead, by exchanging partners with the nearest board where the exchange creates neither."""
    n = len(pairs)

    def bad(x: str, y: str) -> tuple[int, int]:
        return (1 if history.met(x, y) else 0), _seat_breach(history, x, y)

    for i in range(n):
        a, b = pairs[i]
        here = bad(a, b)
        if here == (0, 0):
            continue
        done = False
        for dist in range(1, n):
            for j in (i + dist, i - dist):
                if not 0 <= j < n:
                    continue
                c, d = pairs[j]
                there = bad(c, d)
                before = (here[0] + there[0], here[1] + there[1])
                for x, y in (((a, c), (b, d)), ((a, d), (b, c))):
                    bx, by = bad(*x), bad(*y)
                    after = (bx[0] + by[0], bx[1] + by[1])
                    if after[0] == 0 and after < before:
                        pairs[i], pairs[j] = x, y
                        done = True
                        break
                if done:
                    break
            if done or (not here[0] and dist >= 200):  # rematches: search every board
                break


# --------------------------------------------------------------------------------------- N players

def _table_repeats(table: Sequence[str], history: History) -> int:
    """1000 per pair of the table that has met before, plus the squared meeting counts (so that when
    repeats cannot be avoided, pairs that met once are preferred to pairs that met twice)."""
    cost = 0
    for i in range(len(table)):
        for j in range(i + 1, len(table)):
            m = history.met(table[i], table[j])
            if m:
                cost += 1000 + m * m
    return cost


def _least_used(history: History, e: str, k: int) -> list[int]:
    c = history.seat_counts(e, k)
    low = min(c)
    return [s for s in range(k) if c[s] == low]


def _seat_fit(options: list[list[int]]) -> bool:
    """Can each member take one of its least-used seats, all different? (Tiny bipartite matching.)"""
    taken: dict[int, int] = {}

    def place(i: int, seen: set[int]) -> bool:
        for s in options[i]:
            if s in seen:
                continue
            seen.add(s)
            if s not in taken or place(taken[s], seen):
                taken[s] = i
                return True
        return False

    return all(place(i, set()) for i in range(len(options)))


def _fill_tables(order: Sequence[str], plan: Sequence[int], history: History, owners: Owners | None,
                 window: int) -> list[list[str]]:
    """Top-down: each table takes the highest-ranked unseated entrant, then, one at a time, the
    candidate (within `window` places in ranking order, else anywhere) with the fewest opponents
    already met at the table, then one that lets everyone at the table sit in one of its least-used
    seats, then the highest-ranked; never a second bot of one owner, and an owner with more bots
    left than tables left after this one gets a seat here (so the greedy does not corner itself)."""
    unseated = list(order)
    tables: list[list[str]] = []
    left: dict = defaultdict(int)          # owner -> bots not seated yet
    for e in unseated:
        if owner_of(owners, e) is not None:
            left[owner_of(owners, e)] += 1
    for t, size in enumerate(plan):
        after = len(plan) - t - 1          # tables still empty once this one is full
        # an owner with more bots left than tables after this one must sit one here
        tight = {o for o, c in left.items() if c > after}
        first = unseated.pop(0)
        table = [first]
        if owner_of(owners, first) is not None:
            left[owner_of(owners, first)] -= 1
        options = [_least_used(history, first, size)]
        while len(table) < size:
            present = {owner_of(owners, m) for m in table}
            must = {o for o in tight if o not in present}
            if len(must) > size - len(table):
                raise PairingError("greedy seating ran into the owner constraint")
            forced = len(must) == size - len(table)
            best = None
            for reach in (window, len(unseated)):
                for idx in range(min(reach, len(unseated))):
                    c = unseated[idx]
                    if owner_clash(owners, table, c) or (forced and owner_of(owners, c) not in must):
                        continue
                    repeats = sum(history.met(c, m) > 0 for m in table)
                    if best is not None and repeats > best[0][0]:
                        continue
                    mine = _least_used(history, c, size)
                    cost = (repeats, 0 if _seat_fit(options + [mine]) else 1, idx)
                    if best is None or cost < best[0]:
                        best = (cost, mine)
                        if cost[:2] == (0, 0):
                            break
                if best is not None:
                    break
            if best is None:
                raise PairingError("greedy seating ran into the owner constraint")
            chosen = unseated.pop(best[0][2])
            if owner_of(owners, chosen) is not None:
                left[owner_of(owners, chosen)] -= 1
            table.append(chosen)
            options.append(best[1])
        tables.append(table)
    return tables


def _improve(tables: list[list[str]], history: History, owners: Owners | None, reach: int,
             passes: int = 3) -> None:
    """Swap entrants between tables at most `reach` boards apart while it lowers the repeated pairs."""
    cost = [_table_repeats(t, history) for t in tables]
    for _ in range(passes):
        improved = False
        for t in range(len(tables)):
            if not cost[t]:
                continue
            for xi in range(len(tables[t])):
                if not cost[t]:
                    break
                x = tables[t][xi]
                rest_t = tables[t][:xi] + tables[t][xi + 1:]
                if not any(history.met(x, m) for m in rest_t):
                    continue
                done = False
                for u in sorted(range(max(0, t - reach), min(len(tables), t + reach + 1)), key=lambda u: abs(u - t)):
                    if u == t:
                        continue
                    for yi, y in enumerate(tables[u]):
                        rest_u = tables[u][:yi] + tables[u][yi + 1:]
                        if owner_clash(owners, rest_t, y) or owner_clash(owners, rest_u, x):
                            continue
                        new_t = _table_repeats(rest_t + [y], history)
                        new_u = _table_repeats(rest_u + [x], history)
                        if new_t + new_u < cost[t] + cost[u]:
                            tables[t][xi], tables[u][yi] = y, x
                            cost[t], cost[u] = new_t, new_u
                            done = improved = True
                            break
                    if done:
                        break
        if not improved:
            break


def _n_player_round(order: list[str], history: History, allowed: list[int], preferred: int,
                    owners: Owners | None) -> SwissRound:
    plan, bye_count = table_sizes(len(order), allowed, preferred)
    byes = choose_byes(order, history, bye_count)
    bye_set = set(byes)
    players = [e for e in order if e not in bye_set]
    check_owner_capacity(owners, players, len(plan))
    rank = {e: i for i, e in enumerate(order)}
    notes = []
    try:
        tables = _fill_tables(players, plan, history, owners, window=4 * max(plan))
    except PairingError:
        tables = owner_feasible_tables(players, plan, owners)
        notes.append("seated by max flow (owner constraint)")
    reach = len(tables) if len(players) <= 256 else 4
    _improve(tables, history, owners, reach)
    for t in tables:
        t.sort(key=rank.__getitem__)
    tables.sort(key=lambda t: (rank[t[0]]))
    seated = [seat_order(t, history, shift=i) for i, t in enumerate(tables)]
    return SwissRound(seated, byes, notes=notes)
