"""Swiss pairing properties: no avoidable rematch (against brute force), byes spread, seat balance,
owners, repeat rate, determinism."""
from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.competitions.pairing import Bye, PairingError, PlayedTable, build_history, swiss_round

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def two_player_result(rng: random.Random) -> list[int]:
    x = rng.random()
    return [1, 1] if x < 0.1 else ([1, 2] if x < 0.55 else [2, 1])


def random_history(n: int, rounds: int, rng: random.Random) -> tuple[list[str], list[PlayedTable], list[Bye]]:
    """`rounds` rounds of random pairings (rematches allowed, byes to anyone) with random results:
    harsher than any real Swiss history."""
    entrants = [f"e{i:02d}" for i in range(n)]
    tables, byes = [], []
    for _ in range(rounds):
        order = entrants[:]
        rng.shuffle(order)
        if n % 2:
            byes.append(Bye(order.pop()))
        for a, b in zip(order[0::2], order[1::2]):
            tables.append(PlayedTable([a, b], two_player_result(rng)))
    return entrants, tables, byes


def perfect_pairings(players: list[str]):
    if not players:
        yield []
        return
    a = players[0]
    for i in range(1, len(players)):
        rest = players[1:i] + players[i + 1:]
        for p in perfect_pairings(rest):
            yield [(a, players[i])] + p


def rematch_free_exists(entrants: list[str], history) -> bool:
    """Brute force: some bye choice allowed by the bye rule (an entrant with the fewest byes) and
    some perfect pairing of the rest with no rematch."""
    if len(entrants) % 2:
        fewest = min(history.byes.get(e, 0) for e in entrants)
        choices = [[e for e in entrants if e != bye] for bye in entrants if history.byes.get(bye, 0) == fewest]
    else:
        choices = [entrants]
    for players in choices:
        for pairing in perfect_pairings(players):
            if not any(history.met(a, b) for a, b in pairing):
                return True
    return False


def check_round(entrants, rd) -> None:
    seated = [e for t in rd.tables for e in t] + rd.byes
    assert sorted(seated) == sorted(entrants), "everyone plays or has a bye, once"


@FAST
@given(n=st.integers(2, 12), rounds=st.integers(0, 9), seed=st.integers(0, 2**32))
def test_no_avoidable_rematch_against_brute_force(n: int, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    entrants, tables, byes = random_history(n, rounds, rng)
    rd = swiss_round(entrants, tables, byes)
    check_round(entrants, rd)
    history = build_history(tables, byes)
    if rematch_free_exists(entrants, history):
        assert rd.repeats == 0, rd.tables
    if rd.byes:
        fewest = min(history.byes.get(e, 0) for e in entrants)
        assert history.byes.get(rd.byes[0], 0) == fewest


@pytest.mark.parametrize("exact_limit", [64, 6])
@pytest.mark.parametrize("n", [7, 12, 31, 90])
def test_a_real_swiss_never_rematches_while_avoidable_spreads_byes_and_balances_seats(n: int, exact_limit: int) -> None:
    """Rounds paired by swiss_round itself (exact_limit=6 pushes even small fields through the
    large-field path: brackets, Dutch greedy, repair)."""
    rng = random.Random(n * 100 + exact_limit)
    entrants = [f"p{i:03d}" for i in range(n)]
    tables, byes = [], []
    for _ in range(min(n - 1, 9)):
        rd = swiss_round(entrants, tables, byes, exact_limit=exact_limit)
        check_round(entrants, rd)
        history = build_history(tables, byes)
        if n <= exact_limit and rd.repeats:   # the exact path guarantees it; brute force checks
            assert not rematch_free_exists(entrants, history)
        elif n > 12:
            assert rd.repeats == 0        # big fields: rematch-free pairings abound
        for t in rd.tables:
            tables.append(PlayedTable(t, two_player_result(rng)))
        byes.extend(rd.byes)
        history = build_history(tables, byes)
        counts = [history.byes.get(e, 0) for e in entrants]
        assert max(counts) - min(counts) <= 1, "a second bye before everyone had one"
        for e in entrants:
            first, second = history.seat_counts(e, 2)
            assert abs(first - second) <= 2, (e, first, second)


def test_bye_goes_to_the_lowest_ranked_without_one() -> None:
    entrants = ["a", "b", "c", "d", "e"]
    tables = [PlayedTable(["a", "b"], [1, 2]), PlayedTable(["c", "d"], [1, 2])]
    rd = swiss_round(entrants, tables, [Bye("e")])
    # standings: a, c (1) then b, d, e; e had the bye: the lowest-ranked without one is d
    assert rd.byes == ["d"]


def test_first_player_goes_to_whoever_was_first_less_often() -> None:
    tables = [PlayedTable(["a", "x"], [1, 2]), PlayedTable(["a", "y"], [2, 1]),
              PlayedTable(["z", "b"], [1, 2]), PlayedTable(["w", "b"], [2, 1])]
    assert swiss_round(["a", "b"], tables).tables == [["b", "a"]]
    assert swiss_round(["b", "a"], tables).tables == [["b", "a"]]


@FAST
@given(n=st.integers(2, 30), rounds=st.integers(0, 6), seed=st.integers(0, 2**32))
def test_the_first_seat_goes_to_the_lower_balance(n: int, rounds: int, seed: int) -> None:
    entrants, tables, byes = random_history(n, rounds, random.Random(seed))
    history = build_history(tables, byes)

    def balance(e: str) -> int:
        first, second = history.seat_counts(e, 2)
        return first - second

    for first, second in swiss_round(entrants, tables, byes).tables:
        assert balance(first) <= balance(second)


def test_deterministic() -> None:
    rng = random.Random(5)
    entrants, tables, byes = random_history(40, 4, rng)
    a = swiss_round(entrants, tables, byes)
    b = swiss_round(list(entrants), list(tables), list(byes))
    assert a.tables == b.tables and a.byes == b.byes
    c = swiss_round(entrants, tables, byes, table_size=4)
    d = swiss_round(entrants, tables, byes, table_size=4)
    assert c.tables == d.tables and c.byes == d.byes


def test_a_large_field_uses_the_fast_path_without_rematches() -> None:
    rng = random.Random(1)
    entrants = [f"p{i:04d}" for i in range(600)]
    tables, byes = [], []
    for _ in range(6):
        rd = swiss_round(entrants, tables, byes)
        assert rd.repeats == 0
        tables.extend(PlayedTable(t, two_player_result(rng)) for t in rd.tables)


# ------------------------------------------------------------------------------------- N players

def simulate_n(entrants, rounds, rng, **kw):
    tables, byes, rates = [], [], []
    for _ in range(rounds):
        rd = swiss_round(entrants, tables, byes, **kw)
        check_round(entrants, rd)
        rates.append(rd.repeat_rate)
        for t in rd.tables:
            ranks = list(range(1, len(t) + 1))
            rng.shuffle(ranks)
            tables.append(PlayedTable(t, ranks))
        byes.extend(rd.byes)
    return tables, byes, rates


@pytest.mark.parametrize("n, k", [(16, 4), (21, 3), (40, 4), (30, 5)])
def test_n_player_swiss_spreads_opponents_byes_and_seats(n: int, k: int) -> None:
    rng = random.Random(n)
    entrants = [f"p{i:02d}" for i in range(n)]
    rounds = k                               # one round per seat position
    tables, byes, rates = simulate_n(entrants, rounds, rng, table_size=k)
    assert rates[0] == 0 and rates[1] == 0     # round 2 can always avoid the round-1 tables here
    assert max(rates) < 0.2
    history = build_history(tables, byes)
    counts = [history.byes.get(e, 0) for e in entrants]
    assert max(counts) - min(counts) <= 1
    # seats are balanced round by round (greedy): within 2 for everyone, within 1 for most
    spreads = [max(history.seat_counts(e, k)) - min(history.seat_counts(e, k)) for e in entrants]
    assert max(spreads) <= 2, spreads
    assert sum(s <= 1 for s in spreads) >= 0.6 * n, spreads


def test_a_range_of_table_sizes_gives_no_byes() -> None:
    entrants = [f"p{i:02d}" for i in range(14)]
    rd = swiss_round(entrants, table_size=4, sizes=[3, 4])
    assert rd.byes == [] and sorted(len(t) for t in rd.tables) == [3, 3, 4, 4]
    rd = swiss_round(entrants, table_size=4)
    assert len(rd.byes) == 2


@FAST
@given(n=st.integers(6, 30), k=st.integers(3, 5), owners_count=st.integers(1, 4), seed=st.integers(0, 2**32))
def test_bots_of_one_owner_never_share_a_table(n: int, k: int, owners_count: int, seed: int) -> None:
    rng = random.Random(seed)
    entrants = [f"p{i:02d}" for i in range(n)]
    owners = {e: (None if rng.random() < 0.3 else f"o{rng.randrange(owners_count)}") for e in entrants}
    tables_per_round = n // k
    per_owner = Counter(o for o in owners.values() if o is not None)
    if not tables_per_round:
        return
    if per_owner and max(per_owner.values()) > tables_per_round:
        try:   # possible only if the byes happen to take the extra bots
            rd = swiss_round(entrants, table_size=k, owners=owners)
        except PairingError:
            return
        assert max(per_owner.values()) <= tables_per_round + len(rd.byes)
    tables, byes = [], []
    for _ in range(3):
        try:
            rd = swiss_round(entrants, tables, byes, table_size=k, owners=owners)
        except PairingError:
            assert max(per_owner.values()) > tables_per_round
            return
        for t in rd.tables:
            own = [owners[e] for e in t if owners[e] is not None]
            assert len(own) == len(set(own)), (t, owners)
            ranks = list(range(1, len(t) + 1))
            rng.shuffle(ranks)
            tables.append(PlayedTable(t, ranks))
        byes.extend(rd.byes)


def test_owners_do_not_bind_two_player_games() -> None:
    entrants = ["a", "b"]
    rd = swiss_round(entrants, owners={"a": "alice", "b": "alice"})
    assert len(rd.tables) == 1


def test_repeat_rate_counts_pairs_that_met() -> None:
    entrants = ["a", "b", "c"]
    tables = [PlayedTable(["a", "b", "c"], [1, 2, 3])]
    rd = swiss_round(entrants, tables, table_size=3)
    assert (rd.repeats, rd.pairs, rd.repeat_rate) == (3, 3, 1.0)
