"""The decision object a bot receives: the same in-process and through the referee."""
from __future__ import annotations

import json
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
    _note: dict[str, Any] | None = field(default=None, repr=False)

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

    def note(self, value: float | None = None, policy: dict[str, float] | None = None,
             visits: dict[str, int] | None = None, text: str | None = None, **extra: Any) -> None:
        """Attach a note to this decision's answer: what the bot weighed (its value estimate, its
        policy or visit counts per action label, a line of text, any other small JSON). It lands in
        the replay beside the step, for the bot's owner (or everyone, when the owner makes the
        bot's notes public); the rules never read it and no other seat ever sees it. A later call
        adds to the note; at most 1024 bytes of JSON are kept (docs/protocol.md, "Decision notes")."""
        fields = {"value": value, "policy": policy, "visits": visits, "text": text, **extra}
        self._note = {**(self._note or {}), **{k: v for k, v in fields.items() if v is not None}}

    def note_text(self) -> str:
        """The note as it travels: compact JSON ("" for none); what JSON cannot hold is given as text."""
        if not self._note:
            return ""
        return json.dumps(self._note, separators=(",", ":"), ensure_ascii=False, default=str)
