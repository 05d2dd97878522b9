"""A person's seat relay: on the worker that plays the match, a thread plays the person's seat on
the referee exactly as a bot would (``bots_sdk.remote.play_seat``, the seat's own token), its
decisions answered through Redis (``bridge.py``) by the person in the browser.

The referee knows nothing of people: the seat has the match's time control, which a match with a
person gives a move limit above all the person's clock can allow (``tables.time_control``). The
person's clock is kept here (``SeatBridge``): ``PARLOUR_PERSON_DECISION_SECONDS`` a decision, then
the bank, ``PARLOUR_PERSON_BANK_SECONDS`` for the match. A person who outlasts both makes the relay
fail the decision, and the referee's fault policy plays for them (the default action, a strike; at
three, the autopilot).
"""
from __future__ import annotations

import logging
import threading
from typing import Any

from django.conf import settings

from bots_sdk import Bot
from bots_sdk.remote import play_seat

from ..fleet.broker import connection
from .bridge import SeatBridge

log = logging.getLogger("parlour.arena")


class PersonRelay(Bot):
    """The seat's "bot": each decision goes to the person and their answer comes back."""

    def __init__(self, bridge: SeatBridge) -> None:
        super().__init__()
        self.bridge = bridge

    def decide(self, decision) -> dict[str, Any]:
        # what the referee sent this seat, and nothing else: its observation, actions and labels
        published = {"decision_id": decision.decision_id, "game": decision.game, "variant": decision.variant,
                     "seat": decision.seat, "players": decision.players, "observation": decision.observation,
                     "legal_actions": decision.legal_actions, "labels": decision.labels}
        # a second short of the referee's own deadline: the relay's failure arrives before its timeout
        room = None if decision.time_left is None else max(0.5, decision.time_left - 1.0)
        return self.bridge.ask(published, room)

    def on_match_end(self, result: dict[str, Any]) -> None:
        self.bridge.ended()


def start_relay(referee_address: str, seat_token: str, match_id: int, seat: int) -> threading.Thread:
    """Play the person's seat in a thread of this worker process (joined after the match)."""
    bridge = SeatBridge(connection(), match_id, seat, settings.PARLOUR_PERSON_DECISION_SECONDS,
                        settings.PARLOUR_PERSON_BANK_SECONDS)

    def run() -> None:
        try:
            play_seat(lambda game: PersonRelay(bridge), referee_address, seat_token)
        except Exception as exc:  # noqa: BLE001 - the referee's fault policy covers the seat
            log.warning("match %s: the person's seat %s relay ended: %s", match_id, seat, exc)
        finally:
            try:
                bridge.ended()
            except Exception:  # noqa: BLE001 - Redis away: the keys expire by themselves
                pass

    thread = threading.Thread(target=run, name=f"person-{match_id}-{seat}", daemon=True)
    thread.start()
    return thread
