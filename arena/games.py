"""The games as the platform sees them, derived from the registry (``referee.games.registry``, the
games' entry points: the only list of games): the models' choices, the site's navigation, the check
match's table size, and what the site serves of each game without importing it (its viewer
assets, its rules, its card texts). A new game in the registry appears here with no other change
(and no migration: the choices are a callable)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.games import GAMES
from referee.games.registry import packages

VIEWER_FILES = {"scripts": "renderer.js", "styles": "renderer.css"}  # in a game package's viewer/ folder


@dataclass(frozen=True)
class GameInfo:
    id: str
    name: str
    player_counts: tuple[int, ...]  # of the default variant
    solo: bool = False  # some variant is played by one seat (against an automaton): a high-score table

    @property
    def smallest_table(self) -> int:
        return min(self.player_counts)


def games() -> list[GameInfo]:
    """Every game, in the registry's order."""
    return [GameInfo(g.id, g.name, tuple(g.variant(None).player_counts),
                     any(1 in v.player_counts for v in g.variants.values())) for g in GAMES.values()]


def game_info(game_id: str) -> GameInfo | None:
    return next((g for g in games() if g.id == game_id), None)


def card_texts(game_id: str) -> dict[str, dict[str, str]]:
    """Every card of a game by id, its name and what it does (the replay viewer's tooltips); {} for
    an unknown game."""
    game = GAMES.get(game_id)
    return dict(game.card_texts) if game else {}


def game_variants(game_id: str) -> list[dict]:
    """A game's variants as plain data (the HTTP API's games): name, player counts, what it is and
    its rule options, each with its type, default and allowed values; [] for an unknown game."""
    game = GAMES.get(game_id)
    if game is None:
        return []
    return [{"name": v.name, "player_counts": list(v.player_counts), "doc": v.doc,
             "options": [o.to_json() for o in v.options]} for v in game.variants.values()]


def game_choices() -> list[tuple[str, str]]:
    """For the models' ``game`` fields and the site's forms."""
    return [(g.id, g.name) for g in games()]


def solo_games() -> list[str]:
    """The games with a solo variant (their high-score tables)."""
    return [g.id for g in games() if g.solo]


def solo_variants(game_id: str) -> list[str]:
    """A game's variants played by one seat alone (against the game's own automaton): a challenge of
    those picks no opponent, and its scores make the high-score table."""
    game = GAMES.get(game_id)
    return [v.name for v in game.variants.values() if tuple(v.player_counts) == (1,)] if game else []


# ---------------------------------------------------------------------- what a game's package holds
def asset_folders() -> dict[str, Path]:
    """Each game's viewer assets folder by game id (the site's static files finder serves it as
    ``games/<id>/``: the web never imports a game's code)."""
    return {game_id: p.viewer_folder for game_id, p in packages().items() if p.viewer_folder is not None}


def viewer_assets(game_id: str) -> dict[str, list[str]]:
    """The static paths of a game's renderer and its styles, those its package has:
    ``{"scripts": [...], "styles": [...]}`` (both empty for an unknown game or one without a
    renderer, which the viewer then draws generically)."""
    folder = asset_folders().get(game_id)
    return {kind: [f"games/{game_id}/{name}"] if folder is not None and (folder / name).is_file() else []
            for kind, name in VIEWER_FILES.items()}


def rules(game_id: str) -> str | None:
    """The game's rules document (its package's ``rules.md``), or None."""
    package = packages().get(game_id)
    path = package.rules if package else None
    return path.read_text(encoding="utf-8") if path else None


def package_name(game_id: str) -> str | None:
    """The game package's own name: its typed messages, where the contract has them, are
    ``protos/parlour/v1/<name>.proto`` (``referee.wire``)."""
    package = packages().get(game_id)
    return package.module if package else None


EXAMPLE_SEED = 7  # the example decision on each game's page: the same every time


def example_decision(game_id: str) -> dict | None:
    """The first decision of a match at the game's smallest table and default variant, as a bot
    receives it (``bots_sdk.Decision``'s fields: game, variant, seat, players, options, observation,
    legal actions and their labels): what each game's page shows before the contract. None for an
    unknown game."""
    game = GAMES.get(game_id)
    if game is None:
        return None
    variant = game.variant(None)
    players = min(variant.player_counts)
    config = game.configure(players)
    state = game.new_state(config, EXAMPLE_SEED)
    seat = state.to_move()[0]
    legal = state.legal_actions(seat)
    return {"game": game_id, "variant": config.variant, "seat": seat, "players": players,
            "options": dict(config.options), "observation": state.observation(seat),
            "legal_actions": legal, "labels": [state.action_label(seat, a) for a in legal]}
