"""What a game package gives the SDK besides its engine: its greedy policy and its search hooks.

A game package (docs/engines.md) may hold, beside ``engine.py``:

- ``policy.py`` with ``greedy(turn: Turn) -> Action``: the ``greedy`` house bot's rule of thumb,
  deciding from what the seat is given (``Turn``: plain data, never a state);
- ``search.py`` with ``HOOKS = SearchHooks(...)``: what ``bots_sdk.search`` needs to rebuild a state
  from an observation (``determinize``) and to search it (the ``mcts`` house bot).

Both are pure (standard library, ``referee.games`` and the package's own modules), so they run in
a bot's sandbox. The SDK wraps them; nothing outside the package names the game.
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from .interface import JSON, Action, GameState, MatchConfig

UNKNOWN = "?"  # a card the seat cannot know, in a position being rebuilt


@dataclass
class Turn:
    """One decision as a policy reads it: what the seat was given, and its own notes."""

    config: MatchConfig  # game, variant, players, options (seat attributes are in the observation)
    seat: int
    observation: JSON
    legal: list[Action]
    rng: random.Random  # the bot's own random stream (from its seed: reproducible)
    memory: dict[str, Any] = field(default_factory=dict)  # the policy's notes, kept for one match


Policy = Callable[[Turn], Action]
# A playout policy reads the search's own copy of the state (the bot's, never the referee's):
# (state, seat, legal actions, rng) -> one of the legal actions.
Playout = Callable[[Any, int, list[Action], random.Random], Action]


class UnsupportedPosition(ValueError):
    """An observation no state can be rebuilt from (an unknown game, or cards that do not add up)."""


@dataclass(frozen=True)
class Cutoff:
    """Where a playout is not worth playing, an estimate of the round instead: ``values(state)``,
    each seat's estimated points at the end of the round; a seat's reward is ``0.5 + 0.5 tanh((its
    estimate - the others' mean) / scale)``. ``settled(state)``: the tree stops there too (nothing
    left worth searching)."""

    values: Callable[[Any], list[float]]
    scale: float
    settled: Callable[[Any], bool]

    def rewards(self, state: GameState) -> list[float]:
        values = self.values(state)
        n = len(values)
        if n == 1:
            return [0.5 + 0.5 * math.tanh(values[0] / self.scale)]
        total = sum(values)
        return [0.5 + 0.5 * math.tanh((v - (total - v) / (n - 1)) / self.scale) for v in values]


def _nothing(state: GameState, seat: int, rng: random.Random, context: Any) -> None:
    """No redraw beyond the engine's own ``resample_hidden``."""


@dataclass(frozen=True)
class SearchHooks:
    """A game's part of ``bots_sdk.search`` (docs/search.md).

    - ``rebuild(config, seat, observation) -> (position, context)``: the position JSON of a state
      the seat cannot tell from the real one, every card it cannot know filled arbitrarily
      (``UNKNOWN`` markers and ``fill_unknown`` help); ``context`` is handed to ``redraw``;
    - ``redraw(state, seat, rng, context)``: what the engine's ``resample_hidden`` does not redraw
      itself, done in place on each sample;
    - ``score(state)``: each seat's running score mid-match (the search rewards gains over a
      round, squashed by ``score_scale``: a gain of that much is a clear win);
    - ``playout``: how every seat plays after the tree (None: uniformly at random); with
      ``model_opponents`` the other seats play by it inside the tree too, instead of searching;
    - ``action_key(action)``: actions that do the same thing share one key (None: the action);
    - ``cutoff``: an estimate that replaces playouts (None: playouts);
    - ``prior_weight``: a bias at the root towards the greedy policy's choice; ``greedy_decisions``:
      the kinds of decision (``legal[0]["type"]``) left to the greedy policy without a search;
    - ``playouts``: a fixed number of iterations a decision instead of a time budget, for a game
      small enough to settle in a few milliseconds (a reproducible bot on any machine).
    """

    rebuild: Callable[[MatchConfig, int, JSON], tuple[JSON, Any]]
    score: Callable[[Any], list[float]]
    score_scale: float
    redraw: Callable[[Any, int, random.Random, Any], None] = _nothing
    playout: Playout | None = None
    model_opponents: bool = False
    action_key: Callable[[Action], Hashable] | None = None
    cutoff: Cutoff | None = None
    prior_weight: float = 0.0
    greedy_decisions: frozenset[str] = frozenset()
    playouts: int | None = None


# ---------------------------------------------------------------------- rebuilding a position
def fill_unknown(value: Any, pool: list[str]) -> Any:
    """``value`` (JSON) with every ``UNKNOWN`` replaced by the next card of ``pool``, walking lists
    and dicts in order; ``pool`` must hold exactly as many cards as there are markers."""
    cards = iter(pool)

    def walk(v: Any) -> Any:
        if v == UNKNOWN:
            try:
                return next(cards)
            except StopIteration:
                raise UnsupportedPosition("more unseen places than unseen cards") from None
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        return v

    filled = walk(value)
    left = sum(1 for _ in cards)
    if left:
        raise UnsupportedPosition(f"{left} unseen card(s) found no place in the rebuilt position")
    return filled


def card_id(view: dict[str, Any] | None) -> str:
    """A card's id from its view, or ``UNKNOWN`` for a hidden one."""
    if not view or view.get("hidden"):
        return UNKNOWN
    return view["id"]


def base_position(config: MatchConfig, state: JSON, seats: list[dict] | None = None) -> JSON:
    """The position JSON around a game's ``state`` part (the seed is redrawn by every sample)."""
    return {"game": config.game, "variant": config.variant, "players": config.players,
            "options": dict(config.options), "seats": seats, "seed": 0, "state": state}
