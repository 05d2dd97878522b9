"""``ListGames``: the games this referee hosts, their variants and options, as the protocol says them."""
from __future__ import annotations

from parlour.v1 import referee_pb2

from . import wire
from .games import GAMES


def games_message() -> referee_pb2.ListGamesResponse:
    games = []
    for game in GAMES.values():
        variants = []
        for v in game.variants.values():
            options = []
            for o in v.options:
                spec = referee_pb2.OptionSpec(name=o.name, type=o.kind, default=wire.option_value(o.default),
                                              doc=o.doc)
                if o.kind == "choice":
                    spec.values.extend(wire.option_value(x) for x in o.values)
                elif o.kind == "bool":
                    spec.values.extend([wire.option_value(True), wire.option_value(False)])
                else:
                    spec.min, spec.max = o.low, o.high
                options.append(spec)
            variants.append(referee_pb2.VariantSpec(name=v.name, players=list(v.player_counts),
                                                    options=options, doc=v.doc))
        games.append(referee_pb2.GameSpec(
            id=game.id, name=game.name, engine_version=game.engine_version,
            default_variant=game.default_variant, variants=variants,
            seat_attributes=list(game.seat_attributes)))
    return referee_pb2.ListGamesResponse(protocol_version=wire.PROTOCOL_VERSION, games=games)
