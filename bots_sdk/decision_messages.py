"""The SDK's ``Decision`` for a referee's messages: one conversion for a seat played through a
referee (``remote.py``) and for a decision rebuilt from a replay (``rebuild.py``), so both give a
bot the same decision."""
from __future__ import annotations

from typing import Any

from parlour.v1 import referee_pb2
from referee import wire

from .decision import Decision


def decision_from_messages(start: referee_pb2.MatchStart, decision: referee_pb2.Decision,
                           options: dict[str, Any] | None = None,
                           legal: list[dict[str, Any]] | None = None) -> Decision:
    """The SDK's ``Decision`` for a referee's decision message. ``options``: the match's, read once
    per seat from ``start``; ``legal``: the legal actions' JSON, when the caller already read them."""
    if options is None:
        options = {k: wire.option_python(v) for k, v in start.options.items()}
    if legal is None:
        legal = [wire.action_json(a.action) for a in decision.legal_actions]
    labels = [a.label for a in decision.legal_actions]
    return Decision(
        game=start.game, variant=start.variant, seat=start.seat, players=start.players, options=dict(options),
        legal_actions=[dict(a) for a in legal], decision_id=decision.decision_id,
        time_left=decision.deadline_seconds,
        _observe=lambda: wire.observation_json(decision.observation), _labels=labels)
