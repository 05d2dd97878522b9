"""The decision object a bot receives: the same in-process and through the referee."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Decision:
    """One decision for one seat. It is a copy: changing it changes nothing in the match.

    ``observation`` and ``labels`` are built on first use (most fast bots never read the labels).
    """

    game: str
    variant: str
    seat: int
    players: int
    options: dict[str, Any]
    legal_actions: list[dict[str, Any]]
    decision_id: int = 0
    time_left: float | None = None  # seconds until this decision's deadline (None: no limit)
    _observe: Callable[[], dict[str, Any]] | None = field(default=None, repr=False)
    _label: Callable[[dict[str, Any]], str] | None = field(default=None, repr=False)
    _observation: dict[str, Any] | None = field(default=None, repr=False)
    _labels: list[str] | None = field(default=None, repr=False)

    @property
    def observation(self) -> dict[str, Any]:
        """The seat's information state (the engine's JSON form)."""
        if self._observation is None:
            self._observation = self._observe() if self._observe else {}
        return self._observation

    @property
    def labels(self) -> list[str]:
        """A short human label per legal action, in the same order."""
        if self._labels is None:
            label = self._label or (lambda action: str(action))
            self._labels = [label(a) for a in self.legal_actions]
        return self._labels
