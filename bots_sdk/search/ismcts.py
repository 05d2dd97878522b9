"""Information Set Monte Carlo Tree Search over determinizations (single observer).

Each iteration draws a determinization of the decision (``Determinizer.sample``), walks down one
shared tree choosing actions by UCB among those legal in *this* determinization (an action's
exploration term counts the iterations it was available, not the parent's visits), adds one node,
plays the rest of the round out (the game's ``playout`` policy: a cheap rule of thumb, or
uniformly random) and backs every seat's reward up the path.

With ``model_opponents``, only the searching seat's choices are searched: the other seats play by
the playout policy in the tree too (a single-observer tree otherwise lets an opponent's node learn
from determinizations that all share the searcher's hidden cards, and the search fears an
omniscient opponent). Otherwise simultaneous choices (Misty's draft, Tricky Twist's reserve
picks, every Bszzzz window) are decoupled: at such a node each asked seat picks from its own
statistics, blind to the others' picks, and the joint choice leads to the child. So a sealed
choice is never searched as if the others could see it.

Playouts stop at the end of the round (``state.round`` changes) or the match: a round's outcome
carries most of what a decision changes, and a whole match of Bszzzz! is far too long to play
out per iteration. The reward of each seat is its score gain over the horizon against the mean
gain of the others, squashed to 0..1 (``Evaluator``).
"""
from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from referee.games import GameState
from referee.games.hooks import Cutoff, Playout

from . import Determinizer

Action = dict[str, Any]
ActionKey = Hashable
Policy = Playout  # (state, seat, legal actions, rng) -> action


def random_policy(state: Any, seat: int, legal: list[Action], rng: random.Random) -> Action:
    return legal[rng.randrange(len(legal))]


def action_key(action: Action) -> ActionKey:
    """The action itself, hashable: the default where a game's hooks give no ``action_key``
    (actions that do the same thing then share a key, so their statistics are not split)."""
    return tuple(action.items())


class Node:
    """Per asked seat, per action: [visits, reward sum, availability, the action]; children by the
    joint choice that left the node."""

    __slots__ = ("stats", "children")

    def __init__(self) -> None:
        self.stats: dict[int, dict[ActionKey, list]] = {}
        self.children: dict[tuple, Node] = {}


@dataclass(frozen=True)
class Evaluator:
    """A seat's reward in 0..1: ``0.5 + 0.5 tanh((its gain - the others' mean gain) / scale)``,
    gains in ``score(state)`` since the root. Alone (solo), its own gain."""

    score: Callable[[GameState], list[float]]
    scale: float

    def rewards(self, state: GameState, start: list[float]) -> list[float]:
        gains = [b - a for a, b in zip(start, self.score(state))]
        n = len(gains)
        if n == 1:
            return [0.5 + 0.5 * math.tanh(gains[0] / self.scale)]
        total = sum(gains)
        return [0.5 + 0.5 * math.tanh((g - (total - g) / (n - 1)) / self.scale) for g in gains]


def evaluator(game_id: str) -> Evaluator:
    """The game's evaluator: its hooks' running scores mid-match (``result()`` is for terminal
    states) and their scale."""
    from . import search_hooks

    hooks = search_hooks(game_id)
    return Evaluator(hooks.score, hooks.score_scale)


@dataclass
class SearchStats:
    iterations: int
    seconds: float
    visits: dict[str, int]  # per root action (its JSON), for logs
    # per distinct root action: the action, its visits and its mean reward (0..1), for the bot's note
    root: list[tuple[Action, int, float]] = field(default_factory=list)


def search(sampler: Determinizer, seat: int, legal: list[Action], rng: random.Random, *,
           evaluator: Evaluator, policy: Policy = random_policy, iterations: int | None = None,
           seconds: float | None = None, exploration: float = 0.3,
           model_opponents: bool = False, opponent: Policy | None = None,
           cutoff: Cutoff | None = None, prior: Action | None = None,
           prior_weight: float = 0.0,
           key: Callable[[Action], ActionKey] = action_key) -> tuple[Action, SearchStats]:
    """The most visited of ``legal`` after ``iterations`` iterations (exactly: the result is then
    a function of ``rng``'s state) or when ``seconds`` have passed, whichever is set (both: the
    first reached). ``model_opponents``: the other seats play by ``policy`` in the tree as in
    the playouts, instead of searching for themselves. ``cutoff``: no playouts; the node an
    iteration adds (or the first ``cutoff.settled`` state) is scored by its estimate. ``prior``: an
    action of ``seat`` at the root that a rule of thumb recommends, tried first and favoured by a
    bonus ``prior_weight / (1 + its visits)`` (progressive bias): with few iterations the noise
    of a handful of playouts does not overrule a sound rule, with many the statistics do. ``key``:
    actions that do the same thing share a key (the game's ``action_key``)."""
    if len(legal) == 1:
        return legal[0], SearchStats(0, 0.0, {})
    root = Node()
    bias = (seat, key(prior), prior_weight) if prior is not None else None
    start = time.perf_counter()
    done = 0
    while True:
        if iterations is not None and done >= iterations:
            break
        if seconds is not None and time.perf_counter() - start >= seconds:
            break
        iterate(root, sampler.sample(rng), rng, evaluator, policy, exploration,
                seat if model_opponents else None, opponent, cutoff, bias, key)
        done += 1
    table = root.stats.get(seat, {})
    by_key: dict[ActionKey, Action] = {}
    for action in legal:
        by_key.setdefault(key(action), action)
    visits = {k: table[k][0] if k in table else 0 for k in by_key}
    best = max(by_key, key=lambda k: (visits[k], table[k][1] if k in table else 0.0))
    stats = SearchStats(done, time.perf_counter() - start,
                        {str(by_key[k]): v for k, v in visits.items()},
                        [(by_key[k], v, table[k][1] / v if v else 0.0) for k, v in visits.items()])
    return by_key[best], stats


def iterate(root: Node, state: GameState, rng: random.Random, evaluator: Evaluator, policy: Policy,
            exploration: float, searcher: int | None = None, opponent: Policy | None = None,
            cutoff: Cutoff | None = None, bias: tuple[int, ActionKey, float] | None = None,
            key: Callable[[Action], ActionKey] = action_key) -> None:
    """One iteration on one determinization: select, expand one node, play out (or, with a
    ``cutoff``, estimate), back up. With a ``searcher``, the other seats play by ``policy`` in the
    tree too (their choices branch the tree like chance, with no statistics of their own)."""
    start = evaluator.score(state)
    horizon = state.round
    arrival = state.arrival_order_matters()
    node = root
    path: list[tuple[Node, list[tuple[int, ActionKey, bool]]]] = []
    while not state.is_terminal() and state.round == horizon:
        if cutoff is not None and cutoff.settled(state):
            break
        asked = list(state.to_move())
        if arrival and len(asked) > 1:
            rng.shuffle(asked)
        choices = []
        for seat in asked:
            if seat not in state.to_move():
                continue
            legal = state.legal_actions(seat)
            if searcher is not None and seat != searcher:
                action = (opponent or policy)(state, seat, legal, rng)
                choices.append((seat, key(action), False))
                state.apply(seat, action)
                continue
            table = node.stats.get(seat)
            if table is None:
                table = node.stats[seat] = {}
            if bias is not None and node is root and seat == bias[0]:
                action = select(table, legal, rng, exploration, bias[1], bias[2], key)
            else:
                action = select(table, legal, rng, exploration, key=key)
            choices.append((seat, key(action), True))
            state.apply(seat, action)
        path.append((node, choices))
        joint = tuple(choices)
        child = node.children.get(joint)
        if child is None:
            node.children[joint] = Node()
            break
        node = child
    if cutoff is not None and not state.is_terminal() and state.round == horizon:
        rewards = cutoff.rewards(state)
    else:
        playout(state, horizon, rng, policy)
        rewards = evaluator.rewards(state, start)
    for node, choices in path:
        for seat, key, searched in choices:
            if not searched:
                continue
            entry = node.stats[seat][key]
            entry[0] += 1
            entry[1] += rewards[seat]


def select(table: dict[ActionKey, list], legal: list[Action], rng: random.Random,
           exploration: float, favoured: ActionKey | None = None, bias: float = 0.0,
           key: Callable[[Action], ActionKey] = action_key) -> Action:
    """UCB over the actions legal here; an action never tried is tried first (``favoured`` first,
    then one at random, so equal choices are spread without a bias to the first). ``favoured``
    gets ``bias / (1 + visits)`` more."""
    untried = []
    first = None
    entries = {}
    for action in legal:
        k = key(action)
        if k in entries:
            continue
        entry = table.get(k)
        if entry is None:
            entry = table[k] = [0, 0.0, 0, action]
        entries[k] = (entry, action)
        entry[2] += 1
        if entry[0] == 0:
            untried.append(action)
            if k == favoured:
                first = action
    if first is not None:
        return first
    if untried:
        return untried[rng.randrange(len(untried))]
    best, best_value = legal[0], -1.0
    for k, ((visits, total, available, _), action) in entries.items():
        value = total / visits + exploration * math.sqrt(math.log(available) / visits)
        if k == favoured:
            value += bias / (1 + visits)
        if value > best_value:
            best, best_value = action, value
    return best


def playout(state: GameState, horizon: int, rng: random.Random, policy: Policy = random_policy) -> None:
    """Play to the end of the round (or of the match) by ``policy`` for every seat."""
    while not state.is_terminal() and state.round == horizon:
        asked = state.to_move()
        for seat in asked:
            if len(asked) > 1 and seat not in state.to_move():
                continue
            state.apply(seat, policy(state, seat, state.legal_actions(seat), rng))
