"""What every game's rebuilding shares: the unknown-card marker and how markers are filled."""
from __future__ import annotations

from typing import Any

UNKNOWN = "?"  # a card the seat cannot know, in a position being rebuilt


class UnsupportedPosition(ValueError):
    """An observation no state can be rebuilt from (an unknown game, or cards that do not add up)."""


def fill_unknown(value: Any, pool: list[str]) -> Any:
    """``value`` (JSON) with every ``UNKNOWN`` replaced by the next card of ``pool``, walking lists
    and dicts in order; ``pool`` must hold exactly as many cards as there are markers."""
    cards = iter(pool)

    def walk(v: Any) -> Any:
        if v == UNKNOWN:
            try:
                return next(cards)
            except StopIteration:
                raise UnsupportedPosition("more unseen places than unseen cards") from None
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        return v

    filled = walk(value)
    left = sum(1 for _ in cards)
    if left:
        raise UnsupportedPosition(f"{left} unseen card(s) found no place in the rebuilt position")
    return filled


def card_id(view: dict[str, Any] | None) -> str:
    """A card's id from its view, or ``UNKNOWN`` for a hidden one."""
    if not view or view.get("hidden"):
        return UNKNOWN
    return view["id"]


def base_position(decision: Any, state: dict[str, Any], seats: list[dict] | None = None) -> dict[str, Any]:
    """The position JSON around a game's ``state`` part (the seed is redrawn by every sample)."""
    return {"game": decision.game, "variant": decision.variant, "players": decision.players,
            "options": dict(decision.options), "seats": seats, "seed": 0, "state": state}
