"""Every game, found by its package's Python entry point: nothing lists games by hand.

A game is one package (docs/engines.md) that declares itself in its distribution's metadata, in
the entry-point group ``parlour.games``: the name is the game's id, the value the package::

    [project.entry-points."parlour.games"]
    kuhn-poker = "parlour_kuhn_poker"

The package exports ``GAME`` (its ``GameDescription``) and may hold ``policy.py`` (the greedy
policy), ``search.py`` (the search hooks), ``viewer/`` (``renderer.js`` and ``renderer.css``, the
replay viewer's drawing of the game) and ``rules.md`` (its rules as the platform plays them).
Parlour's own four games are registered by Parlour's ``pyproject.toml``; a game in another pip
package is found the same way once installed. The entry points are read once, on first use.
"""
from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from types import ModuleType

from .hooks import Policy, SearchHooks
from .interface import ConfigError, GameDescription

GROUP = "parlour.games"


class RegistryError(RuntimeError):
    """A game package that does not load, or two that claim one id."""


@dataclass(frozen=True)
class GamePackage:
    """One game as the platform finds it: its description and what its package holds."""

    description: GameDescription
    package: ModuleType
    distribution: str  # the pip distribution that declared it

    @property
    def id(self) -> str:
        return self.description.id

    @property
    def module(self) -> str:
        """The package's own name (its last dotted part): the game's field in the typed wire
        messages where the contract has one (``referee.wire``)."""
        return self.package.__name__.rpartition(".")[2]

    @property
    def folder(self) -> Path:
        return Path(self.package.__file__).resolve().parent

    def _submodule(self, name: str) -> ModuleType | None:
        full = f"{self.package.__name__}.{name}"
        try:
            return importlib.import_module(full)
        except ModuleNotFoundError as exc:
            if exc.name == full:
                return None
            raise

    @property
    def policy(self) -> Policy | None:
        """``policy.greedy``: the greedy house bot's rule (None: the game has none)."""
        module = self._submodule("policy")
        return module.greedy if module is not None else None

    @property
    def search(self) -> SearchHooks | None:
        """``search.HOOKS``: what ``bots_sdk.search`` needs (None: no search bot for the game)."""
        module = self._submodule("search")
        return module.HOOKS if module is not None else None

    @property
    def viewer_folder(self) -> Path | None:
        """The replay viewer's assets of the game (``renderer.js``, ``renderer.css``), if any."""
        folder = self.folder / "viewer"
        return folder if folder.is_dir() else None

    @property
    def rules(self) -> Path | None:
        path = self.folder / "rules.md"
        return path if path.is_file() else None

    @property
    def house_bots(self) -> tuple[str, ...]:
        """The house bots that play this game: ``random`` always, ``greedy`` with a policy,
        ``mcts`` with search hooks."""
        return ("random",) + (("greedy",) if self.policy else ()) + (("mcts",) if self.search else ())


def _entry_points() -> list[EntryPoint]:
    return sorted(entry_points(group=GROUP), key=lambda ep: ep.name)


def _load(entry: EntryPoint) -> GamePackage:
    where = f"{entry.name} = {entry.value!r} (entry point {GROUP}"
    where += f" of {entry.dist.name})" if entry.dist else ")"
    try:
        package = entry.load()
    except Exception as exc:
        raise RegistryError(f"game {where} does not load: {type(exc).__name__}: {exc}") from exc
    game = getattr(package, "GAME", None)
    if not isinstance(package, ModuleType) or not isinstance(game, GameDescription):
        raise RegistryError(f"game {where} is no package exporting GAME, a GameDescription")
    if game.id != entry.name:
        raise RegistryError(f"game {where} describes {game.id!r}: the entry point's name must be the game id")
    return GamePackage(game, package, entry.dist.name if entry.dist else "")


@cache
def packages() -> dict[str, GamePackage]:
    """Every game package by game id, in the order of the ids."""
    found: dict[str, GamePackage] = {}
    for entry in _entry_points():
        if entry.name in found:
            raise RegistryError(f"game {entry.name!r} is declared twice ({found[entry.name].distribution} "
                                f"and {entry.dist.name if entry.dist else '?'})")
        found[entry.name] = _load(entry)
    return found


def package(game_id: str) -> GamePackage:
    get_game(game_id)  # the unknown game's error
    return packages()[game_id]


def source_folders() -> list[Path]:
    """The folders the game packages' code is imported from, found without importing it: what a
    sandboxed bot must be able to read to use them (``bots_sdk.search`` in an uploaded bot)."""
    folders = []
    for entry in _entry_points():
        spec = importlib.util.find_spec(entry.value.partition(":")[0].split(".")[0])
        if spec is not None:
            folders.extend(spec.submodule_search_locations or [spec.origin])
    return [Path(f).resolve() for f in dict.fromkeys(folders) if f]


class _Games(Mapping[str, GameDescription]):
    """Every game's description by id (read-only; the entry points are read on first use)."""

    def __getitem__(self, game_id: str) -> GameDescription:
        return packages()[game_id].description

    def __iter__(self) -> Iterator[str]:
        return iter(packages())

    def __len__(self) -> int:
        return len(packages())

    def __repr__(self) -> str:
        return f"GAMES({', '.join(self)})"


GAMES: Mapping[str, GameDescription] = _Games()


def get_game(game_id: str) -> GameDescription:
    try:
        return GAMES[game_id]
    except KeyError:
        raise ConfigError(
            f"unknown game {game_id!r} (allowed: {', '.join(sorted(GAMES))})"
        ) from None
