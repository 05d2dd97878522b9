"""The interface every rules engine implements.

A game is described by a :class:`GameDescription` (id, variants with their player counts and
options, engine version) and played through a :class:`GameState`:

- ``to_move()``: the seats that must decide now (one, or several at once for simultaneous choices;
  a seat that has already submitted its part of a simultaneous choice is no longer listed);
- ``legal_actions(seat)``: the enumerated choices, each a flat JSON object (``{"type": ..., ...}``
  with str/int/bool values), ``action_label(seat, action)`` a short human label for one of them
  as the acting seat reads it, ``public_label(seat, action)`` what the other seats and a spectator
  may read of it (sealed choices and face-down cards left unnamed);
- ``apply(seat, action)``; ``default_action(seat)`` (what the platform plays for a seat that timed
  out or failed);
- ``observation(seat)`` (the seat's information state, JSON), ``public_view()`` (the spectator's);
- ``is_terminal()``, ``result()`` (``{"scores": [...], "ranks": [...], ...}``);
- ``resample_hidden(seat, rng)``: a state consistent with everything ``seat`` knows;
- ``to_position()`` / ``GameDescription.from_position(data)``: the documented position JSON;
  ``clone()`` an independent copy, without the position round trip.

The public methods above that every game plays the same way live here: an engine implements its
rules in ``_legal_actions(seat)`` and ``_apply(seat, action)`` (OpenSpiel's pattern), and this class
caches the legal actions until the next ``apply``, refuses an action that is not among them, and
hands ``_apply`` the engine's own copy of the action (so its values have the engine's types).

Simultaneous choices are sealed: the engine buffers each seat's submission and resolves them when
the last one arrives, in the order they were applied (the arrival order, which some rules use).
No observation shows another seat's pending submission.
"""
from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

Action = dict[str, Any]
JSON = dict[str, Any]

POSITION_FORMAT = 1


def copy_json(value: Any) -> Any:
    """A fresh copy of a JSON value (dicts and lists; leaves shared, being immutable), cheaper than
    ``copy.deepcopy`` or a ``json`` round trip: what views and positions use so they never alias a
    state's own records."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


class GameError(Exception):
    """Base class of the engines' errors."""


class ConfigError(GameError, ValueError):
    """A match set-up the game does not allow (unknown variant, option, value, player count)."""


class IllegalActionError(GameError, ValueError):
    """An action that is not among the seat's legal actions now."""


class PositionError(GameError, ValueError):
    """A position JSON that does not describe a valid state."""


@dataclass(frozen=True)
class OptionSpec:
    """One rule option: ``kind`` is ``choice`` (one of ``values``), ``bool`` or ``int`` (``low..high``)."""

    name: str
    kind: str
    default: Any
    values: tuple[Any, ...] = ()
    low: int | None = None
    high: int | None = None
    doc: str = ""

    def allowed(self) -> str:
        if self.kind == "choice":
            return ", ".join(self.values)
        if self.kind == "bool":
            return "true, false"
        return f"{self.low}..{self.high}"

    def parse(self, raw: Any) -> Any:
        """The typed value of ``raw`` (a string from a command line, or an already typed value)."""
        bad = ConfigError(f"option {self.name}: {raw!r} is not allowed (allowed: {self.allowed()})")
        if self.kind == "choice":
            if raw not in self.values:
                raise bad
            return raw
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            if isinstance(raw, str) and raw.lower() in ("true", "false"):
                return raw.lower() == "true"
            raise bad
        if self.kind == "int":
            if isinstance(raw, bool):
                raise bad
            try:
                value = int(raw)
            except (TypeError, ValueError):
                raise bad from None
            if isinstance(raw, float) or not (self.low <= value <= self.high):
                raise bad
            return value
        raise AssertionError(f"unknown option kind {self.kind}")

    def to_json(self) -> JSON:
        data: JSON = {"name": self.name, "type": self.kind, "default": self.default, "doc": self.doc}
        if self.kind == "choice":
            data["values"] = list(self.values)
        elif self.kind == "bool":
            data["values"] = [True, False]
        else:
            data["min"], data["max"] = self.low, self.high
        return data


@dataclass(frozen=True)
class Variant:
    name: str
    player_counts: tuple[int, ...]
    options: tuple[OptionSpec, ...] = ()
    doc: str = ""

    def option(self, name: str) -> OptionSpec | None:
        return next((o for o in self.options if o.name == name), None)


@dataclass(frozen=True)
class MatchConfig:
    """A fully resolved match set-up: every option present with its typed value."""

    game: str
    variant: str
    players: int
    options: dict[str, Any]
    seats: tuple[dict[str, Any], ...] = ()  # per-seat attributes (e.g. a Bszzzz colour)

    def to_json(self) -> JSON:
        return {
            "game": self.game,
            "variant": self.variant,
            "players": self.players,
            "options": dict(self.options),
            "seats": [dict(s) for s in self.seats],
        }


@dataclass(frozen=True)
class GameDescription:
    """What the registry knows of a game, and how to start or load one of its states."""

    id: str
    name: str
    engine_version: str
    variants: dict[str, Variant]
    state_class: type[GameState]
    default_variant: str = "standard"
    seat_attributes: tuple[str, ...] = field(default=())  # attribute names the set-up may give
    # Every card by id: {"name", "text"}, its English name and what it does in the rules' words (the
    # replay viewer's tooltips and names for ids; a card with no ability has an empty text).
    card_texts: dict[str, dict[str, str]] = field(default_factory=dict)

    def variant(self, name: str | None) -> Variant:
        name = name or self.default_variant
        if name not in self.variants:
            raise ConfigError(
                f"{self.id} has no variant {name!r} (allowed: {', '.join(self.variants)})"
            )
        return self.variants[name]

    def configure(
        self,
        players: int,
        variant: str | None = None,
        options: dict[str, Any] | None = None,
        seats: list[dict[str, Any]] | None = None,
    ) -> MatchConfig:
        """Check a set-up and resolve every option to its typed value (defaults filled in)."""
        spec = self.variant(variant)
        if players not in spec.player_counts:
            counts = ", ".join(map(str, spec.player_counts))
            raise ConfigError(
                f"{self.id} ({spec.name}) is played by {counts} player(s), not {players}"
            )
        options = dict(options or {})
        resolved: dict[str, Any] = {}
        for name in options:
            if spec.option(name) is None:
                allowed = ", ".join(o.name for o in spec.options) or "none"
                raise ConfigError(
                    f"{self.id} ({spec.name}) has no option {name!r} (allowed: {allowed})"
                )
        for opt in spec.options:
            resolved[opt.name] = opt.parse(options[opt.name]) if opt.name in options else opt.default
        seat_attrs = tuple(dict(s) for s in (seats or [{} for _ in range(players)]))
        if len(seat_attrs) != players:
            raise ConfigError(f"{len(seat_attrs)} seat descriptions for {players} players")
        config = MatchConfig(self.id, spec.name, players, resolved, seat_attrs)
        return self.state_class.complete_config(config)

    def new_state(self, config: MatchConfig, seed: int) -> GameState:
        if config.game != self.id:
            raise ConfigError(f"config for {config.game!r} given to {self.id!r}")
        return self.state_class.new(config, seed)

    def from_position(self, data: JSON) -> GameState:
        """Load a state from its position JSON (see ``GameState.to_position``)."""
        try:
            if data.get("game") != self.id:
                raise PositionError(f"position is for {data.get('game')!r}, not {self.id!r}")
            config = self.configure(
                data["players"], data.get("variant"), data.get("options"), data.get("seats")
            )
            return self.state_class.from_position_state(config, int(data["seed"]), data["state"])
        except (KeyError, TypeError, IndexError) as exc:
            raise PositionError(f"bad {self.id} position: {exc!r}") from exc

    def __post_init__(self) -> None:
        # A state knows its game (engine version, positions): the first description naming the
        # class; a copy (dataclasses.replace, e.g. a test's renamed game) leaves it alone.
        if "description" not in vars(self.state_class):
            self.state_class.description = self

    def to_json(self) -> JSON:
        return {
            "id": self.id,
            "name": self.name,
            "engine_version": self.engine_version,
            "default_variant": self.default_variant,
            "variants": [
                {
                    "name": v.name,
                    "players": list(v.player_counts),
                    "options": [o.to_json() for o in v.options],
                    "doc": v.doc,
                }
                for v in self.variants.values()
            ],
        }


class GameState(ABC):
    """One game in progress. Subclasses keep all of a game's rules in one readable module."""

    description: ClassVar[GameDescription]  # set by the GameDescription naming the class
    config: MatchConfig
    seed: int
    # per seat, the legal actions until the next apply (None: nothing cached yet)
    _legal: dict[int, list[Action]] | None = None

    # --- set-up and positions -------------------------------------------------------------
    @classmethod
    def complete_config(cls, config: MatchConfig) -> MatchConfig:
        """Fill in game-specific defaults of seat attributes (e.g. colours); default: unchanged."""
        return config

    @classmethod
    @abstractmethod
    def new(cls, config: MatchConfig, seed: int) -> GameState:
        """The state at the start of a match."""

    @classmethod
    @abstractmethod
    def from_position_state(cls, config: MatchConfig, seed: int, state: JSON) -> GameState:
        """Load the game-specific part of a position JSON."""

    @abstractmethod
    def position_state(self) -> JSON:
        """The game-specific part of the position JSON (everything, hidden cards included)."""

    def to_position(self) -> JSON:
        data = self.config.to_json()
        data.update(
            format=POSITION_FORMAT,
            engine_version=self.description.engine_version,
            seed=self.seed,
            state=self.position_state(),
        )
        return data

    def clone(self) -> GameState:
        """An independent copy: the attributes shared, then every container play mutates copied
        by the engine (``_copy_mutables``), without a position round trip."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._legal = None
        self._copy_mutables(other)
        return other

    @abstractmethod
    def _copy_mutables(self, other: GameState) -> None:
        """Give ``other`` (a shallow copy of this state) its own copy of every container that play
        or resampling changes; records never changed once written may stay shared."""

    # --- play -------------------------------------------------------------------------------
    @abstractmethod
    def to_move(self) -> list[int]:
        """Seats that must decide now (empty when terminal)."""

    def legal_actions(self, seat: int) -> list[Action]:
        """The seat's legal actions now (empty if it is not asked). Treat the list and its actions
        as read-only: they are cached, and engines share action objects between states."""
        cache = self._legal
        if cache is None:
            cache = self._legal = {}
        else:
            actions = cache.get(seat)
            if actions is not None:
                return actions
        actions = cache[seat] = self._legal_actions(seat)
        return actions

    @abstractmethod
    def _legal_actions(self, seat: int) -> list[Action]:
        """The seat's legal actions, computed (empty if it is not asked)."""

    @abstractmethod
    def action_label(self, seat: int, action: Action) -> str:
        """A short human label naming hidden cards only by their public handle."""

    @abstractmethod
    def public_label(self, seat: int, action: Action) -> str:
        """What any other seat or a spectator may read of ``seat`` playing ``action`` (a replay
        shows it outside that seat's own perspective): a function of public information only, so
        it names a card only once the action shows it to everyone ("offer the Rose face up and a
        tile face down", "put a card in the reserve"); a sealed choice names nothing it hides."""

    def apply(self, seat: int, action: Action) -> None:
        """Play ``action`` for ``seat``; raises IllegalActionError if it is not legal now."""
        cache = self._legal
        legal = cache.get(seat) if cache is not None else None
        if legal is None:
            legal = self.legal_actions(seat)
        try:
            index = legal.index(action)  # an identity match first, then JSON equality
        except ValueError:
            raise IllegalActionError(f"seat {seat}: {action!r} is not a legal action now") from None
        self._legal = None  # before _apply, which may cache what it computes for the next step
        self._apply(seat, legal[index])

    @abstractmethod
    def _apply(self, seat: int, action: Action) -> None:
        """Play a legal ``action`` (one of ``legal_actions(seat)``, the very object) for ``seat``."""

    def default_action(self, seat: int) -> Action:
        """What the platform plays for a seat that faulted (a fresh dict: the platform keeps it)."""
        return dict(self._default_action(seat))

    def _default_action(self, seat: int) -> Action:
        """The first legal action, unless a game knows a more neutral choice (a pass, a decline)."""
        return self.legal_actions(seat)[0]

    @abstractmethod
    def observation(self, seat: int) -> JSON:
        """The seat's information state: everything it has seen, nothing else."""

    @abstractmethod
    def public_view(self) -> JSON:
        """What a spectator sees."""

    def views(self, spectator: bool = True) -> tuple[JSON | None, list[JSON]]:
        """The public view (None with ``spectator=False``: a host that kept it as play went) and
        every seat's observation at once (what a replay records per step). They equal
        ``public_view()`` and ``observation(seat)`` and never share anything with the state, but
        may share parts with each other: an engine whose views are one table plus each seat's own
        parts overrides this to build the table once (a replay builds these at every step, so it
        is the referee's heaviest work per match)."""
        public = self.public_view() if spectator else None
        return public, [self.observation(seat) for seat in range(self.config.players)]

    # A host that only reads what it is given (converts it to messages, diffs it into frames, keeps
    # and serializes it: the referee, the replay builder) may ask for read-only views instead. They
    # equal the ones above but may share parts with the views of other steps and with what the
    # engine keeps to build them (the rendered history of play, shared instead of re-rendered at
    # every step): a change made to one would show in later views. Never hand them to a bot.
    def read_only_public_view(self) -> JSON:
        """``public_view()``, read-only (see above); by default the same fresh view."""
        return self.public_view()

    def read_only_views(self, spectator: bool = True) -> tuple[JSON | None, list[JSON]]:
        """``views()``, read-only (see above); by default the same fresh views."""
        return self.views(spectator)

    def read_only_observation(self, seat: int) -> JSON:
        """``observation(seat)``, read-only (see above); by default the same fresh observation."""
        return self.observation(seat)

    @abstractmethod
    def is_terminal(self) -> bool: ...

    @abstractmethod
    def result(self) -> JSON:
        """``{"scores": [...], "ranks": [...], ...}`` indexed by seat, once terminal."""

    @abstractmethod
    def resample_hidden(self, seat: int, rng: random.Random) -> GameState:
        """A new state that ``seat`` cannot tell from this one (hidden cards redrawn)."""

    def arrival_order_matters(self) -> bool:
        """Whether the order in which a simultaneous batch arrives changes the outcome (Bszzzz's
        ``priority=arrival``); otherwise hosts apply a batch in seat order, so logs are canonical."""
        return False
