"""Round robin: every pair twice with seats swapped (2 players); pair-meeting spread, seat positions
+-1, byes, owners, table-size ranges (N players); determinism; equitable seat colouring."""
from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.competitions.pairing import PairingError, equitable_seats, round_robin


def names(n: int) -> list[str]:
    return [f"e{i:02d}" for i in range(n)]


def check_partition(entrants, rr) -> None:
    for rnd in rr.rounds:
        seated = [e for t in rnd.tables for e in t] + rnd.byes
        assert sorted(seated) == sorted(entrants)


@pytest.mark.parametrize("n", range(2, 12))
def test_two_players_every_pair_twice_with_seats_swapped(n: int) -> None:
    entrants = names(n)
    rr = round_robin(entrants)
    check_partition(entrants, rr)
    assert len(rr.rounds) == 2 * (n - 1 + n % 2)
    games = Counter(tuple(t) for rnd in rr.rounds for t in rnd.tables)
    for a, b in itertools.permutations(entrants, 2):
        assert games[(a, b)] == 1, (a, b)          # once with a first, once with b first
    firsts = Counter(t[0] for rnd in rr.rounds for t in rnd.tables)
    assert all(firsts[e] == n - 1 for e in entrants)
    byes = Counter(e for rnd in rr.rounds for e in rnd.byes)
    assert all(byes[e] == (2 if n % 2 else 0) for e in entrants)
    # the first half alone is a single round robin whose seats are nearly balanced
    half = rr.rounds[: len(rr.rounds) // 2]
    for e in entrants:
        f = sum(1 for rnd in half for t in rnd.tables if t[0] == e)
        s = sum(1 for rnd in half for t in rnd.tables if t[1] == e)
        assert abs(f - s) <= 1
    assert rr.spread == (2, 2)


def seat_spread_ok(rr, k: int) -> bool:
    counts = Counter()
    entrants = set()
    for rnd in rr.rounds:
        for t in rnd.tables:
            for s, e in enumerate(t):
                counts[(e, s)] += 1
                entrants.add(e)
    return all(max(counts[(e, s)] for s in range(k)) - min(counts[(e, s)] for s in range(k)) <= 1
               for e in entrants)


def meeting_counts(rr) -> Counter:
    met = Counter()
    for rnd in rr.rounds:
        for t in rnd.tables:
            for a, b in itertools.combinations(sorted(t), 2):
                met[(a, b)] += 1
    return met


@pytest.mark.parametrize("n, k, best", [(9, 3, 4), (16, 4, 5), (25, 5, 6), (15, 3, None), (12, 3, None),
                                        (13, 4, None), (10, 5, None), (7, 3, None)])
def test_n_players_every_pair_meets_and_seats_balance(n: int, k: int, best: int | None) -> None:
    entrants = names(n)
    rr = round_robin(entrants, table_size=k)
    check_partition(entrants, rr)
    met = meeting_counts(rr)
    pairs = list(itertools.combinations(sorted(entrants), 2))
    assert rr.meetings_min == min(met[p] for p in pairs) >= 1
    assert rr.meetings_max == max(met[p] for p in pairs)
    if best is not None:     # resolvable designs exist (affine planes): the search finds them
        assert len(rr.rounds) == best and rr.spread == (1, 1)
    assert seat_spread_ok(rr, k)
    byes = Counter(e for rnd in rr.rounds for e in rnd.byes)
    assert max(byes[e] for e in entrants) - min(byes[e] for e in entrants) <= 1


@pytest.mark.parametrize("rounds", [1, 2, 3, 4, 7])
def test_a_given_number_of_rounds_balances_seats_from_the_table_size_on(rounds: int) -> None:
    entrants = names(12)
    rr = round_robin(entrants, table_size=4, rounds=rounds)
    assert len(rr.rounds) == rounds
    check_partition(entrants, rr)
    assert seat_spread_ok(rr, 4)
    if rounds >= 4:
        for e in entrants:
            seats = Counter(t.index(e) for rnd in rr.rounds for t in rnd.tables if e in t)
            assert set(seats) == {0, 1, 2, 3}


def test_a_range_of_table_sizes_instead_of_byes() -> None:
    entrants = names(10)
    rr = round_robin(entrants, table_size=4, sizes=[3, 4])
    check_partition(entrants, rr)
    for rnd in rr.rounds:
        assert rnd.byes == [] and sorted(len(t) for t in rnd.tables) == [3, 3, 4]
    assert rr.meetings_min >= 1
    for size in (3, 4):    # seats balance within each table size
        counts = Counter((e, t.index(e)) for rnd in rr.rounds for t in rnd.tables if len(t) == size for e in t)
        for e in entrants:
            assert max(counts[(e, s)] for s in range(size)) - min(counts[(e, s)] for s in range(size)) <= 1


def test_owners_never_share_a_table_and_their_pairs_are_not_counted() -> None:
    entrants = names(12)
    owners = {e: (f"o{i % 3}" if i < 9 else None) for i, e in enumerate(entrants)}
    rr = round_robin(entrants, table_size=3, owners=owners)
    for rnd in rr.rounds:
        for t in rnd.tables:
            own = [owners[e] for e in t if owners[e] is not None]
            assert len(own) == len(set(own))
    met = meeting_counts(rr)
    for a, b in itertools.combinations(sorted(entrants), 2):
        if owners[a] is not None and owners[a] == owners[b]:
            assert met[(a, b)] == 0
        else:
            assert met[(a, b)] >= 1
    assert seat_spread_ok(rr, 3)


def test_an_owner_with_more_bots_than_tables_is_refused() -> None:
    entrants = names(6)
    with pytest.raises(PairingError):
        round_robin(entrants, table_size=3, owners={e: "same" for e in entrants[:3]})


def test_deterministic_and_seeded() -> None:
    entrants = names(13)
    a = round_robin(entrants, table_size=4)
    b = round_robin(entrants, table_size=4)
    assert [r.tables for r in a.rounds] == [r.tables for r in b.rounds]
    c = round_robin(entrants, table_size=4, rng=random.Random(0))
    assert [r.tables for r in a.rounds] == [r.tables for r in c.rounds]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(3, 14), k=st.integers(2, 5), rounds=st.integers(1, 9))
def test_equitable_seats_on_any_schedule(seed: int, n: int, k: int, rounds: int) -> None:
    """de Werra: whatever the tables, every entrant gets each seat floor(t/k) or ceil(t/k) times."""
    rng = random.Random(seed)
    entrants = names(n)
    schedule = []
    for _ in range(rounds):
        order = entrants[:]
        rng.shuffle(order)
        schedule.append([order[i:i + k] for i in range(0, n - n % k, k)])
    if not schedule[0]:
        return
    if seed % 3 == 0:     # mixed sizes: a smaller last table in every round
        for tables in schedule:
            if len(tables[-1]) > 2:
                tables[-1] = tables[-1][:-1]
    seated = equitable_seats(schedule)
    for before, after in zip(schedule, seated):
        assert [sorted(t) for t in before] == [sorted(t) for t in after]
    for size in {len(t) for tables in seated for t in tables}:
        counts = Counter((e, t.index(e)) for tables in seated for t in tables if len(t) == size for e in t)
        for e in entrants:
            assert max(counts[(e, s)] for s in range(size)) - min(counts[(e, s)] for s in range(size)) <= 1
