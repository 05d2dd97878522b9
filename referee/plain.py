"""An answer is compared with the legal actions only when it is plain JSON data: exactly a dict,
list, str, int, float, bool or None (no subclass), all the way down, dict keys strings. A dict
subclass whose ``__eq__`` says yes to everything, or raises, never reaches the comparison: it is an
illegal answer like any other, with a strike, and its description runs none of its code."""
from __future__ import annotations

from typing import Any

PLAIN = frozenset({dict, list, str, int, float, bool, type(None)})
LIMIT = 10_000  # values looked at: an action is a handful; a deeper answer is no legal action anyway


def is_plain(value: Any) -> bool:
    """Whether ``value`` is plain JSON data (exact built-in types only, at most ``LIMIT`` values)."""
    todo, seen = [value], 0
    while todo:
        item = todo.pop()
        seen += 1
        kind = type(item)  # never isinstance: a subclass brings its own __eq__ and __hash__
        if seen > LIMIT or kind not in PLAIN:
            return False
        if kind is dict:
            if any(type(key) is not str for key in item):
                return False
            todo.extend(item.values())
        elif kind is list:
            todo.extend(item)
    return True


def describe(value: Any, limit: int = 300) -> str:
    """What a bot returned, for its fault's reason: the ``repr`` of plain data (or of a
    tuple of it); of anything else only its type, so none of the bot's code runs here."""
    if is_plain(value) or (type(value) is tuple and all(is_plain(v) for v in value)):
        return repr(value)[:limit]
    kind = type(value)
    return f"<{kind.__module__}.{kind.__qualname__} object, not plain JSON data>"[:limit]
