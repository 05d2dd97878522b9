"""Views are fresh objects: what a seat (or a replay) was given never changes as play goes on, and
changing it changes nothing in the game."""
from __future__ import annotations

import json
import random

import pytest

from engine_contract import step
from referee.games import GAMES


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_views_never_alias_the_state(game_id: str) -> None:
    """Also ``views()`` (what a replay records per step, possibly one table shared by every seat's
    view): it equals the spectator's and each seat's view asked one by one."""
    game = GAMES[game_id]
    config = game.configure(max(game.variant(None).player_counts))
    state = game.new_state(config, 3)
    rng = random.Random(3)
    kept = []
    steps = 0
    while not state.is_terminal():
        if steps % 5 == 0:
            views = [state.public_view()] + [state.observation(s) for s in range(config.players)]
            public, seats = state.views()
            assert [public, *seats] == views
            for given in (views, [public, *seats]):
                kept.append((given, json.dumps(given, sort_keys=True)))
        step(state, rng)
        steps += 1
    for views, snapshot in kept:
        assert json.dumps(views, sort_keys=True) == snapshot, "a view given earlier changed later"


def deep_clear(value) -> None:
    """Empty every list and dict inside ``value``, all the way down (what a careless bot might do)."""
    if isinstance(value, dict):
        for inner in value.values():
            deep_clear(inner)
        value.clear()
    elif isinstance(value, list):
        for inner in value:
            deep_clear(inner)
        value.clear()


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_changing_a_view_changes_nothing(game_id: str) -> None:
    """Not the state, and not the views given after: no part of a view (down to a hidden tile's
    marker) is an object the engine keeps and hands out again."""
    game = GAMES[game_id]
    for variant in game.variants:
        config = game.configure(min(game.variant(variant).player_counts), variant)
        state = game.new_state(config, 5)
        rng = random.Random(5)
        for _ in range(40):
            if state.is_terminal():
                break
            position = json.dumps(state.to_position(), sort_keys=True)
            views = json.dumps([state.public_view()] + [state.observation(s) for s in range(config.players)],
                               sort_keys=True)
            public, seats = state.views()  # views sharing parts with each other, never with the state
            for view in [state.public_view()] + [state.observation(s) for s in range(config.players)] + [public, *seats]:
                deep_clear(view)
            assert json.dumps(state.to_position(), sort_keys=True) == position
            assert json.dumps([state.public_view()] + [state.observation(s) for s in range(config.players)],
                              sort_keys=True) == views, "a view changed by its reader changed later views"
            step(state, rng)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_read_only_views_equal_the_fresh_ones_and_never_change(game_id: str) -> None:
    """What the referee and the replay builder read (``read_only_views``, which may share parts
    with other steps' views and with the engine's own renderings) is what a bot would be given,
    and a read-only view kept from earlier is not changed by later play (a replay frame keeps it)."""
    game = GAMES[game_id]
    for variant in game.variants:
        config = game.configure(max(game.variant(variant).player_counts), variant)
        state = game.new_state(config, 7)
        rng = random.Random(7)
        kept = []
        steps = 0
        while not state.is_terminal():
            public, seats = state.read_only_views()
            fresh_public, fresh_seats = state.views()
            assert (public, seats) == (fresh_public, fresh_seats)
            assert state.read_only_public_view() == fresh_public
            assert state.read_only_views(spectator=False) == (None, fresh_seats)
            own = [state.read_only_observation(seat) for seat in range(config.players)]
            assert own == fresh_seats
            if steps % 7 == 0:
                kept.append(([public, *seats, *own], json.dumps([public, *seats, *own], sort_keys=True)))
            step(state, rng)
            steps += 1
        for views, snapshot in kept:
            assert json.dumps(views, sort_keys=True) == snapshot, "a read-only view given earlier changed later"
