"""The referee's settings, read once at start-up (``python -m referee serve``): its command line
and the environment (docs/protocol.md, "Running a referee")."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .games.seeding import platform_seed_key
from .presence import Presence, load_presence
from .tokens import Verifier, load_verifier

DEFAULT_JOIN_TIMEOUT = 30.0  # seconds for every seat to join before play starts anyway
DEFAULT_GRACE = 5.0  # seconds a disconnected seat has to resume before it is forfeited
DEFAULT_DECISION_CAP = 100_000  # decisions per match before a runaway match is aborted


@dataclass
class Settings:
    operator_token: str = ""
    verifier: Verifier | None = None
    join_timeout: float = DEFAULT_JOIN_TIMEOUT
    grace: float = DEFAULT_GRACE
    decision_cap: int = DEFAULT_DECISION_CAP
    replay_dir: Path | None = None
    referee_id: str = ""  # the fleet's names for this referee (referee/identity.py)
    advertise: str = ""
    presence: Presence | None = None
    seed_key: bytes | None = None  # the platform's secret for bot seeds (PARLOUR_SEED_KEY)


def settings_from_env(verifier_spec: str | None, replay_dir: str | None, referee_id: str | None = None,
                      advertise: str | None = None, presence_spec: str | None = None) -> Settings:
    return Settings(
        referee_id=referee_id or "", advertise=advertise or "", presence=load_presence(presence_spec),
        operator_token=os.environ.get("PARLOUR_OPERATOR_TOKEN", ""),
        verifier=load_verifier(verifier_spec),
        join_timeout=float(os.environ.get("PARLOUR_JOIN_TIMEOUT", DEFAULT_JOIN_TIMEOUT)),
        grace=float(os.environ.get("PARLOUR_RECONNECT_GRACE", DEFAULT_GRACE)),
        decision_cap=int(os.environ.get("PARLOUR_DECISION_CAP", DEFAULT_DECISION_CAP)),
        replay_dir=Path(replay_dir) if replay_dir else None,
        seed_key=platform_seed_key(),
    )
