"""Misty's search hooks: a position rebuilt from a seat's observation, and the cutoff.

What the observation gives: the seat's hand and sealed choice, every hand it has held this draft
phase (the others: their sizes), every window, this round's log and the round summaries. Unknown:
the cards still to be dealt this round, the hands it has not held, the cards out of the round, and
the other seats' sealed choices of this step. The rebuilt state has no sealed choice for the others
(being asked or having answered looks the same to the seat), so a search asks them again.
"""
from __future__ import annotations

from typing import Any

from functools import lru_cache

from ..hooks import UNKNOWN, Cutoff, SearchHooks, base_position, fill_unknown
from ..interface import MatchConfig
from .data import CARD_IDS, CARDS
from .engine import BOXES, PHASES, legal_cells
from .policy import DONE, best_order, window_value


def rebuild(config: MatchConfig, seat: int, obs: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    n = config.players
    phases = PHASES[config.variant]
    drafting = obs["phase"] == "draft"
    draft_phase = obs["draft"]["phase"] - 1 if drafting else len(phases)  # past the last: built
    pick = obs["draft"]["pick"] - 1 if drafting else 0
    hands = []
    for view in obs["hands"]:
        if view["seat"] == seat:
            hands.append([c["id"] for c in obs["hand"]])
        elif view["cards"] is not None:
            hands.append([c["id"] for c in view["cards"]])
        else:
            hands.append([UNKNOWN] * view["count"])
    deck_size = n * sum(size for _, size in phases[draft_phase + 1:]) if drafting else 0
    windows = [[[cell["row"], cell["col"], [c["id"] for c in cell["cards"]]] for cell in w["cells"]]
               for w in obs["windows"]]
    pending: list[Any] = [None] * n
    pending[seat] = obs["pending"]
    state: dict[str, Any] = {
        "round": obs["round"], "first": obs["first_player"], "stage": obs["phase"],
        "draft_phase": draft_phase, "pick": pick,
        "deck": [UNKNOWN] * deck_size, "hands": hands, "pending": pending, "windows": windows,
        "sizes": [None if w["rows"] is None else [w["rows"], w["cols"]] for w in obs["windows"]],
        "active": obs["active"],
        "moved": [list(w["moved"]) for w in obs["windows"]],
        "fed": [list(w["fed"]) for w in obs["windows"]],
    }
    known = {c for h in hands for c in h}
    known.update(c for w in windows for _, _, stack in w for c in stack)
    for event in obs["log"]:  # cards that left a window this round
        if event["event"] == "move" and "to_row" not in event:
            known.add(event["card"])
        elif event["event"] == "eat":
            known.add(event["flower"])
    pool = [c for c in CARD_IDS if c not in known]
    unseen = deck_size + sum(h.count(UNKNOWN) for h in hands)
    # the cards out of the round stay out of the position (the engine redraws them with the rest)
    state = fill_unknown(state, pool[:unseen])
    state["log"] = obs["log"]
    state["rounds"] = [
        {"round": r["round"], "points": list(r["points"]), "winners": list(r["winners"]),
         "windows": [[[cell["row"], cell["col"], [c["id"] for c in cell["cards"]]] for cell in w]
                     for w in r["windows"]]}
        for r in obs["rounds"]
    ]
    return base_position(config, state), None


# ---------------------------------------------------------------------- the cutoff
# Where a playout is not worth playing, a heuristic estimate of the round instead. In Misty a
# uniformly random playout builds windows no player would (cards dropped anywhere, arrows fired in
# any order), so its outcome says little about the position; and a playout by the
# greedy policy's rules costs ~3 ms a pick, twenty times a whole iteration. The greedy policy's own
# estimate of a window (its best activated points over the boxes it may still become, empty cells
# imagined as still cards) costs ~0.1 ms and is memoised here, so the search stops at the node it
# adds and scores every window with it: each iteration is then a lookahead of the draft (which
# cards come back in the passed hands, what the others take) scored by greedy's judgement.
CACHE_SIZE = 50_000  # windows per memo (~0.5 kB each; a match at 150 playouts a decision adds ~6000)
Grid = tuple[tuple[tuple[int, int], tuple[str, ...]], ...]  # hashable: sorted (cell, kinds) pairs


@lru_cache(maxsize=CACHE_SIZE)
def _draft_value(grid: Grid, shapes: frozenset, overlapping: bool) -> float:
    return window_value({cell: list(kinds) for cell, kinds in grid}, set(shapes), overlapping)


@lru_cache(maxsize=CACHE_SIZE)
def _pending_value(grid: Grid, kind: str, boxes: tuple, overlapping: bool) -> float:
    """The window's value with the card taken (not yet placed) on its best cell."""
    shapes = frozenset(boxes) | {(b[1], b[0]) for b in boxes}
    if not grid:
        return _draft_value((((0, 0), (kind,)),), shapes, overlapping)
    cells = legal_cells(dict(grid), boxes)
    return max(_draft_value(tuple(sorted(grid + ((cell, (kind,)),))), shapes, overlapping) for cell in cells)


@lru_cache(maxsize=CACHE_SIZE)
def _built_value(grid: Grid, rows: int, cols: int, overlapping: bool) -> float:
    """A built window's points after its best activation (greedy's exhaustive order search)."""
    return best_order({cell: list(kinds) for cell, kinds in grid}, rows, cols, overlapping)[0]


def window_values(state: Any) -> list[float]:
    overlapping = state.smile_pairs == "overlapping"
    boxes = tuple(tuple(b) for b in BOXES[state.config.variant])
    shapes = frozenset(boxes) | {(b[1], b[0]) for b in boxes}
    values = []
    for seat, window in enumerate(state.windows):
        inert = state.moved[seat] | state.fed[seat]
        grid = tuple(sorted((cell, tuple(DONE if c in inert else CARDS[c].kind for c in stack))
                            for cell, stack in window.items()))
        if state.stage != "draft":
            rows, cols = state.sizes[seat]
            values.append(_built_value(grid, rows, cols, overlapping))
        elif state.taken[seat] is not None:
            values.append(_pending_value(grid, state.taken[seat][0], boxes, overlapping))
        elif grid:
            values.append(_draft_value(grid, shapes, overlapping))
        else:
            values.append(0.0)
    return values


def score(state: Any) -> list[float]:
    """Round wins decide a Misty match; points break ties and tell a near miss from a rout."""
    return [w + 0.05 * p for w, p in zip(state.round_wins(), state.total_points())]


# no opponent model helped in Misty: the other seats search for themselves
HOOKS = SearchHooks(rebuild=rebuild, score=score, score_scale=0.5,
                    cutoff=Cutoff(window_values, 2.0, lambda state: state.stage != "draft"))
