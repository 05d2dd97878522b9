"""Search on a bot's own copy of the game: ``determinize(decision, rng)`` builds an engine state
consistent with everything the decision's observation shows, every card the seat cannot know drawn
from what it has not seen.

    state = determinize(decision, rng)          # a full engine state: legal_actions, apply, result...
    sampler = Determinizer(decision)            # the same, rebuilt once for many samples
    for _ in range(100):
        state = sampler.sample(rng)

The state is rebuilt from the observation alone (never the referee's state), so a bot in the
sandbox can use it: standard library and the engines only. How each game's observation maps back
to a position: one module per game in this package; what is drawn at random and how: docs/search.md.
"""
from __future__ import annotations

import random

from referee.games import GameState, get_game

from ..decision import Decision
from . import bszzzz, misty, tricky_twist, tussie_mussie
from .common import UnsupportedPosition

__all__ = ["Determinizer", "determinize", "UnsupportedPosition"]

# Per game: rebuild(decision) -> (position JSON with unknown cards filled arbitrarily, context), and
# redraw(state, seat, rng, context): what the engine's resample_hidden does not redraw itself.
GAME_MODULES = {
    "tussie-mussie": tussie_mussie,
    "misty": misty,
    "tricky-twist": tricky_twist,
    "bszzzz": bszzzz,
}


class Determinizer:
    """Rebuilds the decision's position once; each :meth:`sample` is a fresh determinization.

    The base state holds the seat's known cards where the observation puts them and the unknown
    ones in an arbitrary order; sampling redraws every unknown card with the engine's own
    ``resample_hidden(seat, rng)`` (which keeps what play revealed: the follow rule, known returns,
    forced passes) plus what a game's module adds (Tussie Mussie solo's Turn deck).
    """

    def __init__(self, decision: Decision) -> None:
        module = GAME_MODULES.get(decision.game)
        if module is None:
            raise UnsupportedPosition(f"no determinization for {decision.game!r} "
                                      f"(allowed: {', '.join(sorted(GAME_MODULES))})")
        self.seat = decision.seat
        self.game = get_game(decision.game)
        self._module = module
        position, self._context = module.rebuild(decision)
        self.base: GameState = self.game.from_position(position)

    def sample(self, rng: random.Random) -> GameState:
        """A new state the seat cannot tell from the real one, with a fresh seed (future deals)."""
        state = self.base.resample_hidden(self.seat, rng)
        self._module.redraw(state, self.seat, rng, self._context)
        return state


def determinize(decision: Decision, rng: random.Random) -> GameState:
    """An engine state consistent with ``decision.observation``: the bot's own copy to search on."""
    return Determinizer(decision).sample(rng)
