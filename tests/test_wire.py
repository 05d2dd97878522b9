"""The typed protobuf messages carry every game's observations, views and actions losslessly."""
from __future__ import annotations

import json
import random

import pytest

from engine_contract import step
from parlour.v1 import referee_pb2
from referee import wire
from referee.games import GAMES


def configs(game_id: str):
    game = GAMES[game_id]
    for variant in game.variants.values():
        for players in sorted({min(variant.player_counts), max(variant.player_counts)}):
            yield game.configure(players, variant.name)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_round_trip_of_every_view_and_action(game_id: str) -> None:
    """Whole random games: every seat's observation, the public view and every legal action go to
    their typed message and back (through bytes) unchanged."""
    game = GAMES[game_id]
    checked = 0
    for config in configs(game_id):
        for seed in range(3):
            state = game.new_state(config, seed)
            rng = random.Random(seed)
            steps = 0
            while True:
                steps += 1
                # every 7th step of the first 400, then every 50th, and the end: long games stay quick
                if (steps % 7 == 0 and steps <= 400) or steps % 50 == 0 or state.is_terminal():
                    views = [state.public_view()] + [state.observation(s) for s in range(config.players)]
                    for view in views:
                        view = json.loads(json.dumps(view))  # as it arrives: plain JSON
                        message = wire.observation_message(game_id, view)
                        again = referee_pb2.Observation.FromString(message.SerializeToString())
                        assert wire.observation_json(again) == view
                    for seat in state.to_move():
                        for action in state.legal_actions(seat):
                            message = wire.action_message(game_id, action)
                            again = referee_pb2.Action.FromString(message.SerializeToString())
                            assert wire.action_json(again) == action
                checked += 1
                if state.is_terminal():
                    break
                step(state, rng)
    assert checked > 10


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_views_sharing_a_table_give_the_same_messages(game_id: str) -> None:
    """What the referee sends the seats of a simultaneous window (``views()``, parts shared and
    converted once) is what each seat's own observation gives (as messages: a map's bytes may come
    in another order)."""
    game = GAMES[game_id]
    config = game.configure(max(game.variant(None).player_counts))
    state = game.new_state(config, 4)
    rng = random.Random(4)
    compared = 0
    while not state.is_terminal() and compared < 60:
        _, views = state.views(spectator=False)
        shared = wire.observation_messages(game_id, views)
        alone = [wire.observation_message(game_id, state.observation(s)) for s in range(config.players)]
        assert shared == alone
        assert [wire.observation_json(m) for m in shared] == [state.observation(s) for s in range(config.players)]
        compared += 1
        step(state, rng)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_read_only_views_converted_step_after_step_give_the_same_messages(game_id: str) -> None:
    """The referee converts the read-only views of every window with what it kept from the window
    before (``wire.Elements``), each seat's own keys as constructor arguments and the keys every
    view shares joined to them as bytes (``wire.observation_parts``): the same messages as each
    seat's fresh view."""
    game = GAMES[game_id]
    config = game.configure(max(game.variant(None).player_counts))
    state = game.new_state(config, 6)
    rng = random.Random(6)
    kept, kept_parts = wire.Elements(), wire.Elements()
    steps = 0
    while not state.is_terminal() and steps < 400:
        _, views = state.read_only_views(spectator=False)
        fresh = [wire.observation_message(game_id, state.observation(s)) for s in range(config.players)]
        assert wire.observation_messages(game_id, views, kept) == fresh
        merged = [referee_pb2.Observation.FromString(part.serialized())
                  for part in wire.observation_parts(game_id, views, kept_parts)]
        assert merged == fresh
        assert [m.SerializeToString(deterministic=True) for m in merged] == [
            m.SerializeToString(deterministic=True) for m in fresh]
        steps += 1
        step(state, rng)


def test_drift_between_engine_and_proto_fails_loudly() -> None:
    view = GAMES["tussie-mussie"].new_state(GAMES["tussie-mussie"].configure(2), 1).observation(0)
    view["new_field"] = 1
    with pytest.raises(wire.WireError, match="new_field: no such field"):
        wire.observation_message("tussie-mussie", view)
    del view["new_field"]
    view["stack_size"] = "ten"
    with pytest.raises(wire.WireError, match="stack_size: 'ten' does not fit"):
        wire.observation_message("tussie-mussie", view)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_an_offer_is_built_once_and_reads_back_as_the_action_and_label_offered(game_id: str) -> None:
    """``wire.legal_action``: the referee's offers, each built once per process and reused in every
    decision that offers it again, read back as exactly the action and label offered (never
    another seat's or another game's with the same fields)."""
    game = GAMES[game_id]
    for config in configs(game_id):
        state = game.new_state(config, 3)
        rng = random.Random(3)
        for _ in range(60):
            if state.is_terminal():
                break
            for seat in state.to_move():
                for action in state.legal_actions(seat):
                    label = state.action_label(seat, action)
                    offer = wire.legal_action(game_id, action, label)
                    again = referee_pb2.LegalAction.FromString(offer.SerializeToString())
                    assert (wire.action_json(again.action), again.label) == (action, label)
                    assert wire.legal_action(game_id, dict(action), label) is offer
                    assert wire.legal_action(game_id, action, label + " (again)") is not offer
            step(state, rng)
