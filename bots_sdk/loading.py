"""Turning a bot spec from the command line (``random``, ``greedy``, ``mcts?budget=0.05``,
``file.py:Class``) into bots.

A house bot takes parameters as ``name?key=value&key=value`` (the same syntax for every house bot;
each lists the ones it takes in its class's ``parameters``): ``mcts?budget=0.1``,
``mcts?playouts=200&seed=7``.
"""
from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.games.registry import package

from .bot import Bot, RandomBot
from .failure import failure_report
from .greedy import greedy_bot_class
from .search.mcts import MctsBot

HOUSE_BOTS = ("random", "greedy", "mcts")
ALLOWED = f"{', '.join(HOUSE_BOTS)}, path/to/file.py:ClassName"


class BotSpecError(Exception):
    """A bot spec that names no bot: one line for the user (and, for a file that does not import,
    the traceback). ``reason`` is the fault reason a seat reports when its bot cannot be built."""

    def __init__(self, message: str, reason: str = "", details: list[str] | None = None) -> None:
        super().__init__("\n".join([message, *(details or [])]))
        self.reason = reason or f"failed to start: {message}"
        self.details = details or []


@dataclass(frozen=True)
class BotSpec:
    name: str
    cls: type[Bot]
    params: dict[str, Any] = field(default_factory=dict)

    def make(self) -> Bot:
        return self.cls(**self.params)


def parse_bot_spec(text: str, game_id: str) -> BotSpec:
    name, _, query = text.partition("?")
    if name == "random":
        cls: type[Bot] = RandomBot
    elif name in ("greedy", "mcts"):
        played = package(game_id).house_bots  # a game's package may give no policy or no search hooks
        if name not in played:
            raise BotSpecError(f"there is no {name} bot for {game_id} (allowed: {', '.join(played)}, "
                               "path/to/file.py:ClassName)")
        cls = greedy_bot_class(game_id) if name == "greedy" else MctsBot
    else:
        path, class_name = split_file_spec(text)
        return BotSpec(text, load_bot_class(path, class_name))
    spec = BotSpec(text, cls, parse_parameters(name, query, getattr(cls, "parameters", {})))
    try:
        spec.make()  # the bot checks its parameters' values
    except ValueError as exc:
        raise BotSpecError(f"{text}: {exc}") from None
    return spec


def parse_parameters(name: str, query: str, allowed: dict[str, type]) -> dict[str, Any]:
    """``key=value&key=value`` → typed keyword arguments, each one the house bot declares."""
    params: dict[str, Any] = {}
    names = ", ".join(allowed) or "none"
    for pair in filter(None, query.split("&")):
        key, sep, raw = pair.partition("=")
        if key not in allowed or not sep:
            raise BotSpecError(f"{name} has no parameter {key!r} (allowed: {names}; as {name}?key=value)")
        try:
            value = allowed[key](raw)
        except ValueError:
            raise BotSpecError(f"{name}: {key}={raw!r} is not a {allowed[key].__name__}") from None
        params[key] = value
    return params


def is_file_bot(text: str) -> bool:
    """``path/to/file.py:Class`` (someone's code) rather than a house bot's name."""
    return text.rpartition(":")[0].endswith(".py")


def split_file_spec(text: str) -> tuple[Path, str]:
    """``path/to/file.py:ClassName`` → the file (which must exist) and the class name, without
    importing anything (a sandboxed bot's code is imported only inside its sandbox)."""
    path, sep, class_name = text.rpartition(":")
    if not sep or not path.endswith(".py") or not class_name:
        raise BotSpecError(f"unknown bot {text!r} (allowed: {ALLOWED})")
    if not Path(path).is_file():
        raise BotSpecError(f"bot file {path} does not exist")
    return Path(path), class_name


def load_bot_class(path: Path, class_name: str) -> type[Bot]:
    """Import ``path`` as a module and return its ``class_name``, a ``Bot`` subclass."""
    if not path.is_file():
        raise BotSpecError(f"bot file {path} does not exist")
    module_name = f"parlour_bot_{abs(hash(str(path.resolve())))}"
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # noqa: BLE001 - a bot's module may raise anything: said as its failure
            reason, details = failure_report(exc, "failed to import")
            raise BotSpecError(f"bot file {path} {reason}", reason, details) from None
        sys.modules[module_name] = module
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        found = sorted(n for n, v in vars(module).items()
                       if isinstance(v, type) and issubclass(v, Bot) and v.__module__ == module_name)
        raise BotSpecError(f"{path} has no Bot subclass {class_name!r} "
                           f"(allowed: {', '.join(found) or 'none found'})")
    return cls
