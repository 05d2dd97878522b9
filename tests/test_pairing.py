"""arena/pairing: points, tie-breaks, standings (against the worked example of docs/tournaments.md),
duplicate deals, purity. Swiss and round robin have their own files (test_pairing_swiss.py,
test_pairing_round_robin.py)."""
from __future__ import annotations

import ast
import sys
from fractions import Fraction as F
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.competitions.pairing import (Bye, PlayedTable, deal_seeds, duplicate_bye_points, duplicate_round, rotate, standings,
                           table_points, table_sizes)

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_is_pure() -> None:
    """Standard library and networkx only: no Django, no Celery, no I/O modules."""
    for path in (ROOT / "arena" / "pairing").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                assert top == "networkx" or top == "__future__" or top in sys.stdlib_module_names, f"{path}: {name}"
                assert top not in ("os", "io", "socket", "subprocess", "pathlib", "django", "celery"), f"{path}: {name}"


# ------------------------------------------------------------------------------------------ points

def test_table_points() -> None:
    assert table_points([1, 2]) == [1, 0]
    assert table_points([1, 1]) == [F(1, 2), F(1, 2)]
    assert table_points([2, 1, 3]) == [F(1, 2), 1, 0]
    assert table_points([1, 1, 3]) == [F(3, 4), F(3, 4), 0]          # places 1-2 shared: (1 + 1/2)/2
    assert table_points([1, 2, 2]) == [1, F(1, 4), F(1, 4)]
    assert table_points([1, 2, 3, 4]) == [1, F(2, 3), F(1, 3), 0]
    assert table_points([1, 1, 1, 1]) == [F(1, 2)] * 4


@given(st.integers(2, 8).flatmap(lambda k: st.lists(st.integers(0, 3), min_size=k, max_size=k)))
def test_a_table_pays_out_half_a_point_per_seat(scores: list[int]) -> None:
    """Ranks from any scores (ties share); the points always sum to k/2, and a better rank never
    earns less."""
    ranks = [1 + sum(1 for o in scores if o > s) for s in scores]
    pts = table_points(ranks)
    assert sum(pts) == F(len(ranks), 2)
    for a in range(len(ranks)):
        for b in range(len(ranks)):
            if ranks[a] < ranks[b]:
                assert pts[a] > pts[b]
            if ranks[a] == ranks[b]:
                assert pts[a] == pts[b]


@pytest.mark.parametrize("entrants, ranks", [
    (["a"], [1]), (["a", "a"], [1, 2]), (["a", "b"], [1]), (["a", "b", "c"], [1, 1, 2]),
    (["a", "b"], [0, 1]), (["a", "b", "c"], [1, 3, 3]),
])
def test_malformed_tables_are_refused(entrants, ranks) -> None:
    with pytest.raises(ValueError):
        PlayedTable(entrants, ranks)


# ------------------------------------------------------------------------- the worked example

def worked_example() -> tuple[list[PlayedTable], list[Bye]]:
    """docs/tournaments.md, "A worked example": a game for 2 or 3 seats, four entrants."""
    tables = [
        PlayedTable(["Ann", "Bob", "Cid"], [1, 2, 3]),   # round 1 (Dee: bye)
        PlayedTable(["Dee", "Ann", "Bob"], [1, 1, 3]),   # round 2 (Cid: bye)
        PlayedTable(["Cid", "Dee"], [1, 1]),             # round 3
        PlayedTable(["Bob", "Ann"], [1, 1]),             # round 3
    ]
    return tables, [Bye("Dee"), Bye("Cid")]


def test_standings_match_the_hand_computed_example() -> None:
    tables, byes = worked_example()
    rows = standings(tables, byes, entrants=["Ann", "Bob", "Cid", "Dee"])
    got = [(r.rank, r.entrant, r.points, r.buchholz, r.sonneborn_berger, r.tables, r.byes) for r in rows]
    assert got == [
        (1, "Ann", F(9, 4), F(23, 4), F(81, 32), 3, 0),
        (2, "Dee", F(7, 4), F(17, 4), F(55, 32), 2, 1),
        (3, "Bob", F(1), F(19, 2), F(31, 16), 3, 0),
        (4, "Cid", F(1), F(5), F(7, 8), 2, 1),
    ]


def test_the_example_in_the_docs_is_the_one_tested() -> None:
    text = (ROOT / "docs" / "tournaments.md").read_text()
    for needle in ("| 1 | Ann | 2.25 | 5.75 | 2.53125 |", "| 2 | Dee | 1.75 | 4.25 | 1.71875 |",
                   "| 3 | Bob | 1 | 9.5 | 1.9375 |", "| 4 | Cid | 1 | 5 | 0.875 |"):
        assert needle in text


def test_standings_ties_share_a_rank_and_fall_back_to_seeding() -> None:
    tables = [PlayedTable(["x", "y"], [1, 1])]
    rows = standings(tables, entrants=["y", "x", "z"])
    assert [(r.rank, r.entrant) for r in rows] == [(1, "y"), (1, "x"), (3, "z")]
    # an entrant never seen still gets a row; one not listed follows the listed ones
    rows = standings([PlayedTable(["x", "w"], [2, 1])], entrants=["x"])
    assert [r.entrant for r in rows] == ["w", "x"]


def test_two_player_sonneborn_berger_is_the_classical_one() -> None:
    # a beats b, draws c; b beats c. a: 1.5, b: 1, c: 0.5. SB(a) = 1*1 + 1/2*1/2 = 5/4.
    tables = [PlayedTable(["a", "b"], [1, 2]), PlayedTable(["c", "a"], [1, 1]), PlayedTable(["b", "c"], [1, 2])]
    rows = {r.entrant: r for r in standings(tables)}
    assert rows["a"].sonneborn_berger == F(5, 4)
    assert rows["a"].buchholz == F(3, 2)
    assert rows["c"].sonneborn_berger == F(1, 2) * F(3, 2)


# ------------------------------------------------------------------------------------ duplicate

def test_duplicate_two_players_play_each_deal_twice_seats_swapped() -> None:
    groups = [["a", "b"], ["c", "d"]]
    deals = deal_seeds("t1", 3, 2)
    assert deals == deal_seeds("t1", 3, 2) and len(set(deals)) == 2
    out = duplicate_round(groups, deals)
    assert len(out) == 2 * 2 * 2
    for deal in deals:
        for g, group in enumerate(groups):
            plays = sorted((t.rotation, t.table) for t in out if t.deal == deal and t.group == g)
            assert plays == [(0, tuple(group)), (1, tuple(reversed(group)))]


def test_duplicate_k_seats_every_entrant_holds_every_seat_once_per_deal() -> None:
    group = ["a", "b", "c", "d"]
    out = duplicate_round([group], [7])
    assert [t.rotation for t in out] == [0, 1, 2, 3]
    for e in group:
        assert sorted(t.table.index(e) for t in out) == [0, 1, 2, 3]
    colours = ["red", "blue", "green", "gold"]          # by group position
    t = out[2]
    by_seat = rotate(colours, t.rotation)
    assert [colours[group.index(e)] for e in t.table] == by_seat   # attributes follow their entrant


def test_duplicate_standings_sum_the_rotations_of_a_deal() -> None:
    """a beats b with both hands of deal 1 (2 points); deal 2 splits 1-1. Duplicate standings count
    one meeting per deal for the tie-breaks."""
    out = duplicate_round([["a", "b"]], [1, 2])
    results = {(1, 0): [1, 2], (1, 1): [2, 1], (2, 0): [1, 2], (2, 1): [1, 2]}
    tables = [PlayedTable(t.table, results[(t.deal, t.rotation)], deal=t.deal) for t in out]
    rows = {r.entrant: r for r in standings(tables, duplicate=True)}
    assert rows["a"].points == 3 and rows["b"].points == 1
    assert rows["a"].buchholz == 2 * rows["b"].points         # two deals, not four tables
    assert rows["a"].tables == 4
    plain = {r.entrant: r for r in standings(tables)}
    assert plain["a"].buchholz == 4 * plain["b"].points
    assert duplicate_bye_points(2, 2) == 2


# ----------------------------------------------------------------------------------- table sizes

def test_table_sizes() -> None:
    assert table_sizes(10, [4]) == ([4, 4], 2)
    assert table_sizes(10, [3, 4]) == ([4, 3, 3], 0)
    assert table_sizes(9, [3, 4], preferred=3) == ([3, 3, 3], 0)
    assert table_sizes(5, [3, 4]) == ([4], 1)
    assert table_sizes(7, [2]) == ([2, 2, 2], 1)


@given(st.integers(2, 200), st.sets(st.integers(2, 6), min_size=1, max_size=3))
def test_table_sizes_seat_everyone_they_can(n: int, sizes: set[int]) -> None:
    if n < min(sizes):
        return
    plan, byes = table_sizes(n, sorted(sizes))
    assert sum(plan) + byes == n and all(s in sizes for s in plan)
    assert byes < max(sizes)


DETERMINISM_SCRIPT = """
import json, random
from arena.competitions.pairing import PlayedTable, round_robin, swiss_round
out = []
for n, k, limit in [(11, 2, 64), (150, 2, 16), (40, 4, 64)]:
    rng = random.Random(n)
    entrants = [f"x{i}" for i in range(n)]
    owners = {e: f"o{i % 5}" for i, e in enumerate(entrants)} if k > 2 else None
    tables, byes = [], []
    for _ in range(4):
        rd = swiss_round(entrants, tables, byes, table_size=k, owners=owners, exact_limit=limit)
        out.append([rd.tables, rd.byes])
        for t in rd.tables:
            ranks = list(range(1, len(t) + 1))
            rng.shuffle(ranks)
            tables.append(PlayedTable(t, ranks))
        byes += rd.byes
rr = round_robin([f"y{i}" for i in range(13)], table_size=4, owners={"y1": "a", "y2": "a"}, effort=5000)
out.append([r.tables for r in rr.rounds])
print(json.dumps(out))
"""


def test_the_same_input_gives_the_same_output_in_any_process() -> None:
    """No unseeded randomness, and nothing that follows string hashing (set order), which Python
    randomises per process."""
    import os
    import subprocess

    outputs = set()
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        done = subprocess.run([sys.executable, "-c", DETERMINISM_SCRIPT], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1


def test_a_duplicate_swiss_end_to_end() -> None:
    """Swiss groups, every group playing every deal in all rotations; standings per deal; a bye
    worth what it missed on average."""
    from arena.competitions.pairing import swiss_round

    entrants = ["a", "b", "c", "d", "e"]
    tables: list[PlayedTable] = []
    byes: list[Bye] = []
    for rnd in range(1, 4):
        pairing = swiss_round(entrants, tables, byes)
        deals = deal_seeds("cup", rnd, 2)
        for t in duplicate_round(pairing.tables, deals):
            better = min(t.table)                       # a stand-in result: the smaller id wins
            tables.append(PlayedTable(t.table, [1 if e == better else 2 for e in t.table], deal=(rnd, t.deal)))
        byes += [Bye(e, duplicate_bye_points(2, len(deals))) for e in pairing.byes]
    rows = standings(tables, byes, entrants, duplicate=True)
    assert sum(r.points for r in rows) == len(tables) + 2 * len(byes)   # 1 per table, 2 per bye
    assert sorted(r.byes for r in rows) == [0, 0, 1, 1, 1]
    for r in rows:
        assert r.tables == 4 * (3 - r.byes)                 # 2 deals x 2 rotations a round
