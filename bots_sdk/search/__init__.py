"""Search on a bot's own copy of the game: ``determinize(decision, rng)`` builds an engine state
consistent with everything the decision's observation shows, every card the seat cannot know drawn
from what it has not seen.

    state = determinize(decision, rng)          # a full engine state: legal_actions, apply, result...
    sampler = Determinizer(decision)            # the same, rebuilt once for many samples
    for _ in range(100):
        state = sampler.sample(rng)

The state is rebuilt from the observation alone (never the referee's state), so a bot in the
sandbox can use it: standard library and the engines only. How a game's observation maps back to
a position is the game's own (its package's ``search.HOOKS``, ``referee.games.hooks``); what is
drawn at random and how: docs/search.md.
"""
from __future__ import annotations

import random

from referee.games import GameState, MatchConfig, get_game
from referee.games.hooks import SearchHooks, UnsupportedPosition
from referee.games.registry import package

from ..decision import Decision

__all__ = ["Determinizer", "determinize", "search_hooks", "UnsupportedPosition"]


def search_hooks(game_id: str) -> SearchHooks:
    """The game's search hooks; ``UnsupportedPosition`` for a game without them."""
    get_game(game_id)  # an unknown game's error names the games
    hooks = package(game_id).search
    if hooks is None:
        raise UnsupportedPosition(f"no search hooks for {game_id!r} (its package has no search.py)")
    return hooks


class Determinizer:
    """Rebuilds the decision's position once; each :meth:`sample` is a fresh determinization.

    The base state holds the seat's known cards where the observation puts them and the unknown
    ones in an arbitrary order; sampling redraws every unknown card with the engine's own
    ``resample_hidden(seat, rng)`` (which keeps what play revealed: the follow rule, known returns,
    forced passes) plus what the game's ``redraw`` adds (Tussie Mussie solo's Turn deck).
    """

    def __init__(self, decision: Decision) -> None:
        self.seat = decision.seat
        self.game = get_game(decision.game)
        self.hooks = search_hooks(decision.game)
        config = MatchConfig(decision.game, decision.variant, decision.players, dict(decision.options))
        position, self._context = self.hooks.rebuild(config, decision.seat, decision.observation)
        self.base: GameState = self.game.from_position(position)

    def sample(self, rng: random.Random) -> GameState:
        """A new state the seat cannot tell from the real one, with a fresh seed (future deals)."""
        state = self.base.resample_hidden(self.seat, rng)
        self.hooks.redraw(state, self.seat, rng, self._context)
        return state


def determinize(decision: Decision, rng: random.Random) -> GameState:
    """An engine state consistent with ``decision.observation``: the bot's own copy to search on."""
    return Determinizer(decision).sample(rng)
