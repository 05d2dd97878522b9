"""Kuhn poker: the rules, top to bottom (rules.md beside this file says them for a player).

Three cards, the Jack, the Queen and the King; two seats. A match is a series of hands (the
``hands`` option). Each hand both seats ante 1 chip and are dealt one card each (``Draws(seed,
"deal", hand)``, the third card stays out, unseen); the seat acting first alternates, seat 0 in
hand 1. The first seat checks or bets 1 chip. After a check the second seat checks (showdown) or
bets; after a bet the other seat folds (the bettor wins the antes) or calls (showdown). At a
showdown the higher card wins the pot: 1 chip from the loser after two checks, 2 after a bet and a
call; a fold loses the folder's ante. A seat's score is its chips won less its chips lost.

Choices the rules leave to the platform:
- The default action (a faulted seat) is the check where it may check, else the fold.
- A folded hand's cards are never shown; a showdown shows both, in the hand's summary.
- The seat that did not act first in a hand acts first in the next (the "dealer" alternates).

Views (JSON). A card is ``{"id" (jack|queen|king), "name", "rank" (1..3), "value" (J|Q|K)}``, a
hidden one ``{"hidden": true}``. ``public_view()``: ``game``, ``round`` (the hand, 1-based),
``hands``, ``phase`` (betting|over), ``to_move``, ``first`` (the seat acting first this hand),
``cards`` (per seat: hidden), ``history`` (this hand's ``[{"seat", "action"}]``), ``stakes`` (per
seat, chips in this hand's pot), ``pot``, ``scores`` (the running totals), ``rounds`` (the
finished hands: ``{"round", "first", "cards" (per seat: shown at a showdown, else hidden),
"history", "end" (showdown|fold), "winner", "points"}``). ``observation(seat)`` adds ``seat``
and shows the seat's own cards, this hand's and those of its finished hands.

Position JSON (``to_position()["state"]``): ``round``, ``cards`` (per seat, this hand's card
ids), ``history`` (``[[seat, action], ...]``), ``totals``, ``rounds`` (summaries with every card
named: ``{"round", "first", "cards", "history", "end", "winner", "points"}``), ``over``.
"""
from __future__ import annotations

import random
from typing import Any

from referee.games.interface import (
    Action,
    GameDescription,
    GameState,
    MatchConfig,
    OptionSpec,
    PositionError,
    Variant,
)
from referee.games.ranking import competition_ranks
from referee.games.seeding import SEED_BITS, Draws

from .data import CARD_TEXTS, CARDS, RANK

CHECK: Action = {"type": "check"}
BET: Action = {"type": "bet"}
CALL: Action = {"type": "call"}
FOLD: Action = {"type": "fold"}
LABELS = {"check": "check", "bet": "bet 1 chip", "call": "call the bet (1 chip)", "fold": "fold"}
HIDDEN = {"hidden": True}


def card_json(card: str) -> dict[str, Any]:
    return dict(CARDS[card])


def deal(seed: int, hand: int) -> list[str]:
    """The two seats' cards of hand ``hand`` (the third card stays out)."""
    return Draws(seed, "deal", hand).shuffled(list(CARDS))[:2]


def legal_after(history: list[str]) -> list[Action]:
    """The actions open to the seat to act after ``history`` (this hand's actions)."""
    if history in ([], ["check"]):
        return [CHECK, BET]
    if history[-1] == "bet":
        return [FOLD, CALL]
    return []


def hand_over(history: list[str]) -> bool:
    return history in (["check", "check"], ["bet", "fold"], ["bet", "call"], ["check", "bet", "fold"],
                       ["check", "bet", "call"])


def settle(first: int, cards: list[str], history: list[str]) -> tuple[str, int, list[int]]:
    """A finished hand's end (showdown or fold), winner and points per seat."""
    if history[-1] == "fold":
        folder = (first + len(history) - 1) % 2
        winner, stake, end = 1 - folder, 1, "fold"
    else:
        winner = 0 if RANK[cards[0]] > RANK[cards[1]] else 1
        stake, end = (2 if "bet" in history else 1), "showdown"
    points = [stake if s == winner else -stake for s in range(2)]
    return end, winner, points


OPTIONS = (
    OptionSpec("hands", "int", 10, low=1, high=1000, doc="hands in the match (the first seat alternates)"),
)


class KuhnState(GameState):
    # ------------------------------------------------------------------------------ set-up
    @classmethod
    def new(cls, config: MatchConfig, seed: int) -> KuhnState:
        state = cls()
        state.config, state.seed = config, seed
        state.hands = config.options["hands"]
        state.totals = [0, 0]
        state.rounds = []
        state.over = False
        state._start_hand(1)
        return state

    def _start_hand(self, hand: int) -> None:
        self.round = hand
        self.cards = deal(self.seed, hand)
        self.history: list[str] = []

    @property
    def first(self) -> int:
        return (self.round - 1) % 2

    @classmethod
    def from_position_state(cls, config: MatchConfig, seed: int, data: dict[str, Any]) -> KuhnState:
        state = cls()
        state.config, state.seed = config, seed
        state.hands = config.options["hands"]
        state.round = int(data["round"])
        state.cards = list(data["cards"])
        state.history = [action for _, action in data.get("history", [])]
        state.totals = list(data.get("totals", [0, 0]))
        state.rounds = [dict(r) for r in data.get("rounds", [])]
        state.over = bool(data.get("over", False))
        finished = state.round if state.over else state.round - 1
        if not 1 <= state.round <= state.hands or len(state.rounds) != finished \
                or (state.over and state.round != state.hands):
            raise PositionError(f"kuhn-poker: hand {state.round} of {state.hands} with {len(state.rounds)} "
                                f"finished{' (over)' if state.over else ''}")
        if len(state.cards) != 2 or len(set(state.cards)) != 2 or any(c not in CARDS for c in state.cards):
            raise PositionError(f"kuhn-poker: two different cards needed, got {state.cards}")
        seats = [s for s, _ in data.get("history", [])]
        if seats != [(state.first + k) % 2 for k in range(len(seats))]:
            raise PositionError(f"kuhn-poker: the history's seats {seats} do not alternate from seat {state.first}")
        for k, action in enumerate(state.history):
            if {"type": action} not in legal_after(state.history[:k]):
                raise PositionError(f"kuhn-poker: {action!r} is not legal after {state.history[:k]}")
        if hand_over(state.history) != state.over:
            raise PositionError("kuhn-poker: a hand's end and the match's do not agree")
        return state

    def position_state(self) -> dict[str, Any]:
        return {"round": self.round, "cards": list(self.cards),
                "history": [[(self.first + k) % 2, a] for k, a in enumerate(self.history)],
                "totals": list(self.totals), "rounds": [dict(r) for r in self.rounds], "over": self.over}

    def _copy_mutables(self, other: KuhnState) -> None:
        other.cards = list(self.cards)
        other.history = list(self.history)
        other.totals = list(self.totals)
        other.rounds = list(self.rounds)  # summaries are never changed once written

    # ------------------------------------------------------------------------------ play
    def to_move(self) -> list[int]:
        if self.over:
            return []
        return [(self.first + len(self.history)) % 2]

    def _legal_actions(self, seat: int) -> list[Action]:
        if self.over or seat != (self.first + len(self.history)) % 2:
            return []
        return legal_after(self.history)

    def _default_action(self, seat: int) -> Action:
        return CHECK if CHECK in self.legal_actions(seat) else FOLD

    def action_label(self, seat: int, action: Action) -> str:
        return LABELS.get(action.get("type"), str(action))

    def public_label(self, seat: int, action: Action) -> str:
        return self.action_label(seat, action)  # betting is public

    def _apply(self, seat: int, action: Action) -> None:
        self.history.append(action["type"])
        if not hand_over(self.history):
            return
        end, winner, points = settle(self.first, self.cards, self.history)
        self.totals = [t + p for t, p in zip(self.totals, points)]
        self.rounds.append({"round": self.round, "first": self.first, "cards": list(self.cards),
                            "history": [[(self.first + k) % 2, a] for k, a in enumerate(self.history)],
                            "end": end, "winner": winner, "points": points})
        if self.round == self.hands:
            self.over = True
        else:
            self._start_hand(self.round + 1)

    # ------------------------------------------------------------------------------ views
    def _stakes(self) -> list[int]:
        stakes = [1, 1]
        for k, action in enumerate(self.history):
            if action in ("bet", "call"):
                stakes[(self.first + k) % 2] += 1
        return stakes

    def _summary(self, summary: dict[str, Any], seat: int | None) -> dict[str, Any]:
        shown = summary["end"] == "showdown"
        return {"round": summary["round"], "first": summary["first"],
                "cards": [card_json(c) if shown or s == seat else dict(HIDDEN) for s, c in enumerate(summary["cards"])],
                "history": [{"seat": s, "action": a} for s, a in summary["history"]], "end": summary["end"],
                "winner": summary["winner"], "points": list(summary["points"])}

    def _view(self, seat: int | None) -> dict[str, Any]:
        stakes = self._stakes()
        view: dict[str, Any] = {
            "game": self.config.game, "round": self.round, "hands": self.hands,
            "phase": "over" if self.over else "betting", "to_move": self.to_move(), "first": self.first,
            "cards": [card_json(c) if s == seat and not self.over else dict(HIDDEN) for s, c in enumerate(self.cards)],
            "history": [{"seat": (self.first + k) % 2, "action": a} for k, a in enumerate(self.history)],
            "stakes": stakes, "pot": sum(stakes), "scores": list(self.totals),
            "rounds": [self._summary(r, seat) for r in self.rounds],
        }
        if seat is not None:
            view["seat"] = seat
        return view

    def observation(self, seat: int) -> dict[str, Any]:
        return self._view(seat)

    def public_view(self) -> dict[str, Any]:
        return self._view(None)

    def is_terminal(self) -> bool:
        return self.over

    def result(self) -> dict[str, Any]:
        return {"scores": list(self.totals), "ranks": competition_ranks(self.totals), "hands": self.hands}

    def resample_hidden(self, seat: int, rng: random.Random) -> KuhnState:
        """A state ``seat`` cannot tell from this one: the other seat's card of this hand, and of
        every finished hand that ended in a fold, redrawn among the cards the seat did not hold;
        a fresh seed for the later deals."""
        other = self.clone()
        other.seed = rng.getrandbits(SEED_BITS)

        def redrawn(cards: list[str]) -> list[str]:
            mine = cards[seat]
            drawn = list(cards)
            drawn[1 - seat] = rng.choice([c for c in CARDS if c != mine])
            return drawn

        if not self.over:
            other.cards = redrawn(self.cards)
        other.rounds = [r if r["end"] == "showdown" else dict(r, cards=redrawn(r["cards"])) for r in self.rounds]
        return other


GAME = GameDescription(
    id="kuhn-poker",
    name="Kuhn poker",
    engine_version="1.0.0",
    variants={"standard": Variant("standard", (2,), OPTIONS,
                                  doc="three cards, one each, one betting round; a match is a series of hands")},
    state_class=KuhnState,
    card_texts=CARD_TEXTS,
)
