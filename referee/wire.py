"""The engines' JSON forms <-> the protobuf messages of ``protos/``, losslessly.

A game whose package's name is a field of the ``Observation`` and ``Action`` oneofs travels as its
typed messages; any other game in the generic encoding, the ``json`` field: its JSON forms as text
(docs/protocol.md, "Games without typed messages"), so a game installed from another package
plays through the referee with nothing compiled into the contract.

The typed mapping rules are those of ``protos/parlour/v1/options.proto``: a field's name is the JSON key;
an unset optional field is an absent key, or null when the field is marked ``nullable``; repeated
and map fields and plain scalars are always present; a ``list_wrapper`` message is a bare list.
A JSON key with no field, or a value of the wrong type, is an error naming the key: a drift
between an engine and its .proto fails loudly (the round-trip tests run every game through it).
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from operator import is_
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from parlour.v1 import options_pb2, referee_pb2

from .games.registry import package

PROTOCOL_VERSION = 1
JSON_FIELD = "json"  # the generic encoding's field in the Observation and Action oneofs
# the games with typed messages: the fields of the Observation oneof
_ONEOF_FIELDS = frozenset(f.name for f in referee_pb2.Observation.DESCRIPTOR.oneofs_by_name["game"].fields) - {JSON_FIELD}

class WireError(ValueError):
    """A JSON value that does not fit its typed message, or a message that fits no game."""


def _is_nullable(field: FieldDescriptor) -> bool:
    return field.GetOptions().Extensions[options_pb2.nullable]


def _is_wrapper(descriptor: Descriptor) -> bool:
    return descriptor.GetOptions().Extensions[options_pb2.list_wrapper]


def _is_repeated(field: FieldDescriptor) -> bool:
    return field.is_repeated


def _is_map(field: FieldDescriptor) -> bool:
    return (field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type.GetOptions().map_entry)


_INT_TYPES = {
    FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
}


def _check_scalar(field: FieldDescriptor, value: Any, where: str) -> Any:
    t = field.type
    if t in _INT_TYPES:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif t == FieldDescriptor.TYPE_BOOL:
        ok = isinstance(value, bool)
    elif t == FieldDescriptor.TYPE_STRING:
        ok = isinstance(value, str)
    else:
        ok = False
    if not ok:
        raise WireError(f"{where}: {value!r} does not fit a {field.type} field")
    return value


# ---------------------------------------------------------------------- JSON -> message
def fill(message: Message, data: Any, where: str = "") -> Message:
    """Fill ``message`` from its JSON form."""
    descriptor = message.DESCRIPTOR
    if _is_wrapper(descriptor):
        if not isinstance(data, list):
            raise WireError(f"{where or descriptor.name}: expected a list, got {type(data).__name__}")
        (field,) = descriptor.fields
        _fill_repeated(message, field, data, where)
        return message
    if not isinstance(data, dict):
        raise WireError(f"{where or descriptor.name}: expected an object, got {type(data).__name__}")
    fields = descriptor.fields_by_name
    for key, value in data.items():
        path = f"{where}.{key}" if where else key
        field = fields.get(key)
        if field is None:
            raise WireError(f"{path}: no such field in {descriptor.full_name}")
        if _is_map(field):
            value_field = field.message_type.fields_by_name["value"]
            target = getattr(message, key)
            for k, v in value.items():
                if value_field.type == FieldDescriptor.TYPE_MESSAGE:
                    fill(target[k], v, f"{path}.{k}")
                else:
                    target[k] = _check_scalar(value_field, v, f"{path}.{k}")
        elif _is_repeated(field):
            _fill_repeated(message, field, value, path)
        elif value is None:
            if not _is_nullable(field):
                raise WireError(f"{path}: null for a field that is not nullable")
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            fill(getattr(message, key), value, path)
            if not message.HasField(key):  # an empty object still counts as present
                getattr(message, key).SetInParent()
        else:
            setattr(message, key, _check_scalar(field, value, path))
    return message


def _fill_repeated(message: Message, field: FieldDescriptor, values: Any, where: str) -> None:
    if not isinstance(values, list):
        raise WireError(f"{where}: expected a list, got {type(values).__name__}")
    target = getattr(message, field.name)
    for i, value in enumerate(values):
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            fill(target.add(), value, f"{where}[{i}]")
        else:
            target.append(_check_scalar(field, value, f"{where}[{i}]"))


class Elements:
    """The messages (or encodings) of the items of views' lists, kept from one step's views to the
    next by the items' identity: read-only views (``GameState.read_only_views``) share the items
    that did not change (a round's resolved windows, the cards' JSON), so a host converting them
    at every step converts each item once instead of the whole history each time. Only the items
    of the latest step are kept (bounded by one view's size). Safe with fresh views too (no item
    is found again: a kept item stays alive, so its id is not another object's)."""

    def __init__(self) -> None:
        self.previous: dict[tuple[Any, int], tuple[Any, Any]] = {}
        self.current: dict[tuple[Any, int], tuple[Any, Any]] = {}
        self.lists: dict[str, tuple[list, list[bytes], bytes]] = {}  # per list field: its items last seen, encoded

    def found(self, kind: Any, item: Any, convert: Callable[[Any], Any]) -> Any:
        """``convert(item)``, computed once while the item is in every step's views."""
        key = (kind, id(item))
        hit = self.current.get(key) or self.previous.get(key)
        if hit is None:
            hit = (item, convert(item))
        self.current[key] = hit
        return hit[1]

    def joined(self, key: str, items: list, encode: Callable[[Any], bytes]) -> bytes:
        """The encodings of ``items`` joined, for the list field ``key``. Items that are the very
        items at the same places last time under ``key`` keep their encodings (a list that only
        grew keeps its joined bytes too): a round's resolved windows grow by one a window and a
        seat's pile changes at one place, so a 4-player Bszzzz! match's observations encode in
        0.78 of the time it took to look every item up at every decision."""
        seen, encodings, joined = self.lists.get(key) or ((), [], b"")
        if len(items) >= len(seen) and all(map(is_, seen, items)):
            if len(items) == len(seen):
                return joined
            added = [encode(item) for item in items[len(seen):]]
            encodings = encodings + added
            joined += b"".join(added)
        else:
            encodings = [encodings[i] if i < len(seen) and seen[i] is item else self.found(key, item, encode)
                         for i, item in enumerate(items)]
            joined = b"".join(encodings)
        self.lists[key] = (list(items), encodings, joined)  # the items are kept: their ids stay theirs
        return joined

    def next_step(self) -> None:
        self.previous, self.current = self.current, {}


# ---------------------------------------------------------------------- JSON -> message, fast
# The hot path (every decision the referee sends): turn the JSON into constructor arguments
# (unwrapping bare lists, dropping nulls) and let the C implementation build the message. Any
# error falls back to ``fill``, which names the offending key.
_PLANS: dict[str, tuple[bool, dict[str, tuple]]] = {}


def _plan(descriptor: Descriptor) -> tuple[bool, dict[str, tuple]]:
    plan = _PLANS.get(descriptor.full_name)
    if plan is None:
        fields = {}
        for field in descriptor.fields:
            message = field.message_type if field.type == FieldDescriptor.TYPE_MESSAGE else None
            if message is not None and _is_map(field):
                value = message.fields_by_name["value"]
                kind, sub = "map", value.message_type if value.type == FieldDescriptor.TYPE_MESSAGE else None
            elif message is not None:
                kind, sub = ("list" if _is_repeated(field) else "one"), message
            else:
                kind, sub = "scalar", None
            fields[field.name] = (kind, sub, _is_nullable(field), sub is not None and _is_plain(sub))
        plan = _PLANS[descriptor.full_name] = (_is_wrapper(descriptor), fields)
    return plan


def _is_plain(descriptor: Descriptor, seen: frozenset[str] = frozenset()) -> bool:
    """Whether the JSON form of this message (and of every message inside it) is exactly what the
    C constructor takes: no bare list standing for a wrapper message. Such a part is handed over
    as it is, dicts and lists and all, and built in C (a null leaves its field unset, as the walk
    would; a null where no null belongs is caught by the round-trip tests, not here)."""
    if _is_wrapper(descriptor) or descriptor.full_name in seen:
        return False
    seen = seen | {descriptor.full_name}
    for field in descriptor.fields:
        if field.type != FieldDescriptor.TYPE_MESSAGE:
            continue
        sub = field.message_type
        if _is_map(field):
            value = sub.fields_by_name["value"]
            if value.type == FieldDescriptor.TYPE_MESSAGE and not _is_plain(value.message_type, seen):
                return False
        elif not _is_plain(sub, seen):
            return False
    return True


Parts = dict[int, tuple[Any, Any]]  # id(part) -> (the part, kept so its id is not reused; its message or messages)


def _arguments(descriptor: Descriptor, data: Any, shared: Parts | None = None,
               kept: Elements | None = None) -> dict[str, Any]:
    """``shared``: for views of one moment that share top-level parts (``GameState.views``), each
    message-typed part built once, as messages, and found again by identity (see ``_shared_part``);
    ``kept``: the messages of list items kept from the views of earlier steps (``Elements``)."""
    wrapper, fields = _plan(descriptor)
    if wrapper:
        (name, (kind, sub, _, plain)), = fields.items()
        return {name: [_arguments(sub, v) for v in data] if sub is not None and not plain else data}
    out = {}
    for key, value in data.items():
        kind, sub, nullable, plain = fields[key]
        if value is None:
            if not nullable:
                raise WireError(f"{key}: null for a field that is not nullable")
            continue
        if sub is None:
            out[key] = value
        elif shared is not None:
            out[key] = _shared_part(kind, sub, value, shared, plain, kept)
        elif plain:
            out[key] = value
        elif kind == "list":
            out[key] = [_arguments(sub, v) for v in value]
        elif kind == "one":
            out[key] = _arguments(sub, value)
        else:
            out[key] = {k: _arguments(sub, v) for k, v in value.items()}
    return out


def _shared_part(kind: str, sub: Descriptor, value: Any, shared: Parts, plain: bool,
                 kept: Elements | None = None) -> Any:
    """A part other views may share, as its message (or list or map of them): built once, then
    found by identity (the constructor copies a built message)."""
    hit = shared.get(id(value))
    if hit is None:
        make = GetMessageClass(sub)
        arguments = (lambda v: v) if plain else (lambda v: _arguments(sub, v))
        if kind == "list" and kept is not None:
            part = [kept.found(make, v, lambda v: make(**arguments(v))) for v in value]
        elif kind == "list":
            part = [make(**arguments(v)) for v in value]
        elif kind == "one":
            part = make(**arguments(value))
        else:
            part = {k: make(**arguments(v)) for k, v in value.items()}
        hit = shared[id(value)] = (value, part)  # the value is kept: its id is not reused meanwhile
    return hit[1]


def build(container: type[Message], game_id: str, data: Any, where: str,
          shared: Parts | None = None, kept: Elements | None = None) -> Message:
    """The ``container`` message (Observation or Action) holding the game's message for ``data``
    (its JSON form), built in one constructor call: the game's message is not built first and
    then copied in. ``shared``: see ``_arguments``. A game without typed messages: its JSON as text."""
    if typed_field(game_id) is None:
        return container(json=json_text(data, where))
    name, cls = _game_class(container, game_id)
    try:
        return container(**{name: _arguments(cls.DESCRIPTOR, data, shared, kept)})
    except Exception:  # noqa: BLE001 - whatever failed, the slow way does it again or says why
        return container(**{name: fill(cls(), data, where)})  # slow, but names the key that does not fit


# ---------------------------------------------------------------------- message -> JSON
# Every bot that reads its observation pays this once a decision: each message type's fields are
# sorted into kinds once (asking a field's options is slow), then read by kind.
_MAP_MESSAGE, _MAP_SCALAR, _LIST_MESSAGE, _LIST_SCALAR, _OPTIONAL, _NULLABLE, _SCALAR = range(7)
_READERS: dict[str, tuple[bool, list[tuple[str, int]]]] = {}


def _reader(descriptor: Descriptor) -> tuple[bool, list[tuple[str, int]]]:
    reader = _READERS.get(descriptor.full_name)
    if reader is None:
        fields = []
        for field in descriptor.fields:
            if _is_map(field):
                value = field.message_type.fields_by_name["value"]
                kind = _MAP_MESSAGE if value.type == FieldDescriptor.TYPE_MESSAGE else _MAP_SCALAR
            elif _is_repeated(field):
                kind = _LIST_MESSAGE if field.type == FieldDescriptor.TYPE_MESSAGE else _LIST_SCALAR
            elif field.has_presence:  # read when set (a message or not); when unset, null or absent
                kind = _NULLABLE if _is_nullable(field) else _OPTIONAL
            else:
                kind = _SCALAR
            fields.append((field.name, kind))
        reader = _READERS[descriptor.full_name] = (_is_wrapper(descriptor), fields)
    return reader


def to_json(message: Message) -> Any:
    """The JSON form of a typed message."""
    wrapper, fields = _reader(message.DESCRIPTOR)
    if wrapper:
        (name, kind), = fields
        values = getattr(message, name)
        return [to_json(v) for v in values] if kind == _LIST_MESSAGE else list(values)
    data: dict[str, Any] = {}
    for name, kind in fields:
        if kind == _SCALAR:
            data[name] = getattr(message, name)
        elif kind == _LIST_MESSAGE:
            data[name] = [to_json(v) for v in getattr(message, name)]
        elif kind == _LIST_SCALAR:
            data[name] = list(getattr(message, name))
        elif kind == _MAP_MESSAGE:
            data[name] = {k: to_json(v) for k, v in getattr(message, name).items()}
        elif kind == _MAP_SCALAR:
            data[name] = dict(getattr(message, name))
        elif message.HasField(name):  # a field with presence, set
            value = getattr(message, name)
            data[name] = to_json(value) if isinstance(value, Message) else value
        elif kind == _NULLABLE:
            data[name] = None
    return data


# ---------------------------------------------------------------------- the games' oneofs
@cache
def typed_field(game_id: str) -> str | None:
    """A game's typed field in the Observation and Action oneofs: its package's name (the registry's
    ``GamePackage.module``) where the contract has such a field; None: the generic encoding."""
    try:
        name = package(game_id).module
    except ValueError:
        raise WireError(f"no wire messages for game {game_id!r}") from None
    return name if name in _ONEOF_FIELDS else None


def json_text(data: Any, where: str) -> str:
    """The generic encoding of a view or an action: its JSON object as compact text."""
    if not isinstance(data, dict):
        raise WireError(f"{where}: expected an object, got {type(data).__name__}")
    try:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise WireError(f"{where}: not JSON: {exc}") from None


def json_object(text: str, where: str) -> dict[str, Any]:
    """A view or an action from its generic encoding."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise WireError(f"{where}: the json field is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise WireError(f"{where}: the json field holds no JSON object")
    return data


_GAME_CLASSES: dict[tuple[str, str], tuple[str, type[Message]]] = {}


def _game_class(container: type[Message], game_id: str) -> tuple[str, type[Message]]:
    found = _GAME_CLASSES.get((container.DESCRIPTOR.full_name, game_id))
    if found is None:
        name = typed_field(game_id)
        if name is None:
            raise WireError(f"no typed messages for game {game_id!r}")
        found = name, GetMessageClass(container.DESCRIPTOR.fields_by_name[name].message_type)
        _GAME_CLASSES[(container.DESCRIPTOR.full_name, game_id)] = found
    return found


def observation_message(game_id: str, view: dict[str, Any]) -> referee_pb2.Observation:
    return build(referee_pb2.Observation, game_id, view, "observation")


def observation_messages(game_id: str, views: list[dict[str, Any]],
                         kept: Elements | None = None) -> list[referee_pb2.Observation]:
    """The messages of several seats' views of one moment (``GameState.views``), which may share
    parts: a part shared by identity (the table of a simultaneous window) is converted once.
    ``kept``: see ``Elements`` (a host's, for the read-only views of one match)."""
    shared: Parts = {}
    messages = [build(referee_pb2.Observation, game_id, view, "observation", shared, kept) for view in views]
    if kept is not None:
        kept.next_step()
    return messages


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def length_delimited(number: int, payload: bytes) -> bytes:
    """Field ``number`` of a message, holding the serialized message (or bytes) ``payload``, as
    it is on the wire: a host may assemble a message from parts already serialized."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


@dataclass(frozen=True)
class SeatObservation:
    """One seat's Observation in two parts, for a host that puts it in a message of its own (a
    decision): the constructor arguments of what is the seat's own, and what every seat's view of
    that moment shares, serialized once. ``serialized`` joins them as bytes (the keys do not
    overlap, so the two encodings joined are one game message): a window's table is encoded once
    and spliced into each seat's message, never parsed back or copied between messages."""

    game_class: type[Message]  # the game's observation message
    number: int  # its field in the Observation oneof
    own: dict[str, Any]  # the constructor arguments of the seat's own keys
    shared: bytes  # the game's message holding the keys every view shares, serialized ("" for one view)

    def serialized(self) -> bytes:
        """The seat's Observation message, serialized."""
        return length_delimited(self.number, self.game_class(**self.own).SerializeToString() + self.shared)


class DecisionMessage:
    """A ``RefereeMessage`` holding a decision, kept in two parts and serialized by joining them:
    the decision's own fields as a message (a resumed seat's deadline is rewritten there) and its
    observation, serialized once (``SeatObservation.serialized``). It answers what a host asks of
    a RefereeMessage it sends (``SerializeToString``, ``HasField``, ``decision``);
    ``referee_pb2.RefereeMessage.FromString`` of its bytes is the whole message."""

    __slots__ = ("decision", "observation")
    _DECISION = referee_pb2.RefereeMessage.DESCRIPTOR.fields_by_name["decision"].number
    _OBSERVATION = referee_pb2.Decision.DESCRIPTOR.fields_by_name["observation"].number

    def __init__(self, decision: referee_pb2.Decision, observation: bytes) -> None:
        self.decision = decision  # without its observation
        self.observation = observation  # the serialized Observation

    def HasField(self, name: str) -> bool:  # named as a RefereeMessage's
        return name == "decision"

    def SerializeToString(self) -> bytes:  # named as a RefereeMessage's
        return length_delimited(self._DECISION, self.decision.SerializeToString()
                                + length_delimited(self._OBSERVATION, self.observation))


@dataclass(frozen=True)
class EncodedObservation:
    """A seat's Observation already serialized (the generic encoding): what a host asks of a
    ``SeatObservation``."""

    data: bytes

    def serialized(self) -> bytes:
        return self.data


def observation_parts(game_id: str, views: list[dict[str, Any]],
                      kept: Elements | None = None) -> list[SeatObservation | EncodedObservation]:
    """Several seats' views of one moment (``GameState.views``) as ``SeatObservation``s: the keys
    whose values are one object in every view are the shared part. ``kept``: see ``Elements``
    (a list's items are kept encoded: the shared part is their encodings joined). A value that
    does not fit shows when a message is built; ``observation_message`` then names it. A game in
    the generic encoding: each view serialized whole."""
    if typed_field(game_id) is None:
        return [EncodedObservation(observation_message(game_id, view).SerializeToString()) for view in views]
    name, cls = _game_class(referee_pb2.Observation, game_id)
    first = views[0]
    common = {k for k in first if all(k in v and v[k] is first[k] for v in views[1:])} if len(views) > 1 else set()
    shared: Parts = {}
    try:
        table = _encoded(cls, {k: v for k, v in first.items() if k in common}, shared, kept)
        own = [_arguments(cls.DESCRIPTOR, {k: v for k, v in view.items() if k not in common}, shared, kept)
               for view in views]
    except Exception:
        observation_messages(game_id, views)  # the slow path names the key that does not fit
        raise
    finally:
        if kept is not None:
            kept.next_step()
    number = referee_pb2.Observation.DESCRIPTOR.fields_by_name[name].number
    return [SeatObservation(cls, number, arguments, table) for arguments in own]


def _encoded(cls: type[Message], data: dict[str, Any], shared: Parts, kept: Elements | None) -> bytes:
    """``cls``'s message for ``data``, serialized; with ``kept``, each item of a list of messages
    is serialized once (as that field's one item: encodings joined are their messages merged)."""
    _, fields = _plan(cls.DESCRIPTOR)
    items: list[bytes] = []
    rest = {}
    for key, value in data.items():
        kind, sub, _, plain = fields.get(key, (None, None, None, None))
        if kept is None or kind != "list" or value is None:
            rest[key] = value
            continue
        def encode(item: Any, key: str = key, sub: Descriptor = sub, plain: bool = plain) -> bytes:
            return cls(**{key: [item if plain else _arguments(sub, item)]}).SerializeToString()
        items.append(kept.joined(key, value, encode))
    return cls(**_arguments(cls.DESCRIPTOR, rest, shared, kept)).SerializeToString() + b"".join(items)


def observation_json(message: referee_pb2.Observation) -> dict[str, Any]:
    which = message.WhichOneof("game")
    if which is None:
        raise WireError("an Observation with no game set")
    if which == JSON_FIELD:
        return json_object(message.json, "observation")
    return to_json(getattr(message, which))


def action_message(game_id: str, action: dict[str, Any]) -> referee_pb2.Action:
    return build(referee_pb2.Action, game_id, action, "action")


# the same actions are offered decision after decision (a Bszzzz! hand's cards in every window): each
# offer's message is built once per process; actions with a list inside are not hashable, so built
# each time
_LEGAL_ACTIONS: dict[tuple, referee_pb2.LegalAction] = {}
LEGAL_ACTIONS_KEPT = 50_000


def legal_action(game_id: str, action: dict[str, Any], label: str) -> referee_pb2.LegalAction:
    """A decision's offer of ``action`` with its ``label``, as a message; the same message object
    for the same offer (a constructor given it copies it: never change it in place)."""
    try:
        key: tuple | None = (game_id, label, *action.items())
        hit = _LEGAL_ACTIONS.get(key)
    except TypeError:  # a list inside
        key, hit = None, None
    if hit is None:
        hit = referee_pb2.LegalAction(action=action_message(game_id, action), label=label)
        if key is not None:
            if len(_LEGAL_ACTIONS) >= LEGAL_ACTIONS_KEPT:
                _LEGAL_ACTIONS.clear()
            _LEGAL_ACTIONS[key] = hit
    return hit


def action_json(message: referee_pb2.Action) -> dict[str, Any]:
    which = message.WhichOneof("game")
    if which is None:
        raise WireError("an Action with no game set")
    if which == JSON_FIELD:
        return json_object(message.json, "action")
    inner = getattr(message, which)
    if inner.DESCRIPTOR.full_name in _FLAT:  # the usual case, on every decision: a flat action
        return {field.name: value for field, value in inner.ListFields()}
    return to_json(inner)


# actions whose fields are all optional scalars but "type": their JSON is exactly the fields set
_FLAT = {
    field.message_type.full_name
    for field in referee_pb2.Action.DESCRIPTOR.fields
    if field.message_type is not None and all(f.type != FieldDescriptor.TYPE_MESSAGE and not f.is_repeated
           and (f.has_presence or f.name == "type") and not _is_nullable(f)
           for f in field.message_type.fields)
}


def option_value(value: Any) -> referee_pb2.OptionValue:
    if isinstance(value, bool):
        return referee_pb2.OptionValue(flag=value)
    if isinstance(value, int):
        return referee_pb2.OptionValue(number=value)
    return referee_pb2.OptionValue(text=str(value))


def option_python(value: referee_pb2.OptionValue) -> Any:
    which = value.WhichOneof("value")
    return {"text": value.text, "flag": value.flag, "number": value.number}.get(which)
