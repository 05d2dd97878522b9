"""Tricky Twist (Taylor Reiner; published as *Short Zoot Suit*): the rules, top to bottom.

A round: a Scoring card is revealed and the variable Bonus cards turned to match it; all 48
Number cards are dealt; every seat builds its 5-card reserve with five single picks made by all
seats at once, and each reserve is shuffled. Then tricks: before each trick, from its leader
clockwise, each seat with a reserve may draw its top card; the leader plays any card, the others
follow the led family if they can. The highest led-family card takes every led-family card as one
trick; each seat that did not follow takes its own card back as a false trick. A recovered 7 lets
its new owner take a Bonus card (several: clockwise from the winner); `take_back` is used at once
or never. The round ends after a trick when a seat's hand is empty (option ``end_check``:
``after_trick``, or ``after_draw``, which waits for the next trick's reserve draws). The other
Bonus choices are then made by all seats at once, sealed, and revealed before scoring. As many
rounds as players, the first player moving one seat left; total stars win, ties share.

Choices where the rulebook and the rulings (rules.md) are silent (the platform's):
- The reserve picks are made in lockstep: pick k of every seat is collected before pick k+1 is
  asked. A reserve is shuffled from the stream ``(seed, "reserve", round)``; the round's Scoring
  card is drawn from ``(seed, "scoring", round)`` among the cards not revealed yet.
- A seat with an empty reserve is not asked to draw (its reserve size is public).
- Every Bonus card is optional ("Vous n'êtes pas obligé d'utiliser une carte Bonus"): taking a
  Bonus card for a 7 may be declined, and every round-end choice (flip, wild_pile, a variable face)
  has a ``decline`` action; a declined card counts for nothing. The default action for a faulted
  seat is the decline / no-draw / no-bonus action (the first legal card when it must play or pick).
- ``take_back`` may return any of the seat's number-card false tricks, the 7 just recovered
  included; taken with no false trick it is simply spent (the seat is not asked). The returned
  card is public: every seat knows it is in that hand until it is played again.
- ``flip`` turns a number-card pile only (a trick, choosing its top card, or a false trick), not
  a Bonus card. var_4 may target any false trick that has a value (a number card, a framed
  var_1-3 face, a flipped trick), only within 1..12. A seat's round-end steps come in the fixed
  order flip, wild_pile, var_1, var_2, var_3, var_4, one action per card held, so var_4 sees the
  seat's earlier choices. Seats that hold none of these cards are not asked.
- During the reserve picks, ``hand_counts`` still count a pending pick in its hand (nobody can
  tell who has picked). With ``after_draw``, the draws made just before the round ended stay
  shown (``draws``) in the round-end phase.
- Round-end flips, faces and adjustments are revealed in the round summary (``rounds[i].choices``).
- In a simultaneous phase (reserve picks, round-end choices) the observations' ``to_move`` lists
  every seat taking part, so nobody can see who has already answered; ``state.to_move()`` still
  drops a seat once it has submitted its part.
- ``most_false_tricks``: a seat with no false trick scores 0 and takes no rank from others.
- ``resample_hidden`` respects what the follow rule reveals: a seat that did not follow family F
  held no F card then, so the cards it still hides from that time avoid F (cards drawn from its
  reserve since are free). The draw is consistent with everything the seat knows, not exactly
  uniform over such states.

Position JSON (``to_position()["state"]``), cards by id ("moon-7", data.CARD_IDS):
``round`` (0-based), ``first`` (first player of the round), ``phase`` (``reserve`` | ``draw`` |
``play`` | ``bonus`` | ``take_back`` | ``round_end`` | ``over``), ``scoring_card``, ``hands``
(per seat, sorted), ``reserves`` (per seat, top first), ``reserve_step`` (0-4) and ``picks`` (per
seat, the pending pick or null), ``leader``, ``turn`` (the seat asked in the sequential phases),
``draw_offered`` (seats from the leader already past in the draw), ``draws`` (seats that drew
before the current trick), ``trick`` (``[seat, card]`` in play order), ``tricks`` (per seat, a list
of piles, each a list of cards), ``false_tricks`` (per seat, cards), ``bonus_available``,
``bonus_held`` (per seat), ``bonus_spent`` (take_back once taken), ``bonus_queue`` (seats still to
choose a Bonus for this trick's 7s, the one asked first), ``known_in_hand`` (per seat, cards
publicly back in its hand by take_back), ``log`` (this round's resolved tricks: ``leader``,
``draws``, ``plays``, ``winner``, ``trick``, ``false_tricks`` as ``[seat, card]``, ``bonus`` as
``[seat, bonus or null]``, ``take_back`` as ``[seat, card or null]``), ``batch`` (seats asked in the
round-end phase), ``choices`` (per seat, its round-end actions so far), ``history`` (finished
rounds' summaries), ``totals`` (stars per seat).
"""
from __future__ import annotations

import heapq
import random
from typing import Any

from ..interface import (
    Action,
    GameDescription,
    GameState,
    MatchConfig,
    OptionSpec,
    PositionError,
    Variant,
    copy_json,
)
from ..ranking import competition_ranks
from ..seeding import draw_seed, stream
from .data import (
    ADJUST_BONUS,
    BONUS_IDS,
    BONUS_NAME,
    BONUS_TEXT,
    BONUS_VALUE,
    CARD_FAMILY,
    CARD_IDS,
    CARD_ORDER,
    CARD_VALUE,
    FAMILIES,
    RANK_TABLE,
    RESERVE_SIZE,
    SCORING_CARD_IDS,
    SCORING_CARDS,
    VARIABLE_FAMILIES,
    VARIABLE_VALUES,
)

END_CHECK = OptionSpec(
    "end_check", "choice", "after_trick", ("after_trick", "after_draw"),
    doc="the round ends right after a trick when a hand is empty, or only after the next reserve draws",
)
# Bonus cards whose use is decided at round end, in the order a seat is asked about them.
ROUND_END_ORDER = ("flip", "wild_pile", "var_1", "var_2", "var_3", "var_4")
SEQUENTIAL_PHASES = ("draw", "play", "bonus", "take_back")

# Shared action objects: legal lists are read-only, so the hot path builds no dicts.
PLAY = {c: {"type": "play", "card": c} for c in CARD_IDS}
PICK = {c: {"type": "reserve", "card": c} for c in CARD_IDS}
DRAW, NO_DRAW = {"type": "draw"}, {"type": "no_draw"}
TAKE_BONUS = {b: {"type": "take_bonus", "bonus": b} for b in BONUS_IDS}
NO_BONUS = {"type": "no_bonus"}
NO_TAKE_BACK = {"type": "no_take_back"}


# ====================================================================== scoring (pure functions)
def table_stars(table: tuple[int, ...], n: int) -> int:
    """Stars for count ``n`` from a Scoring card's table (the last entry covers larger counts)."""
    return table[min(n, len(table) - 1)]


def base_stars(tricks: int, false_tricks: int) -> int:
    """1 per trick, plus 3 per [trick + false trick] pair, or 5 per pair when the counts are equal."""
    pairs = min(tricks, false_tricks)
    return tricks + pairs * (5 if tricks == false_tricks else 3)


def longest_run(values: list[int]) -> int:
    """Length of the longest run of consecutive values (duplicates ignored)."""
    present = set(values)
    best = 0
    for v in present:
        if v - 1 not in present:
            length = 1
            while v + length in present:
                length += 1
            best = max(best, length)
    return best


def card_count(card: str, false_tricks: list[tuple[int | None, str | None]]) -> int:
    """The count ``n`` one seat's false tricks give on a (non-ranking) Scoring card."""
    values = [v for v, _ in false_tricks if v is not None]
    families = [f for _, f in false_tricks if f is not None]
    if card == "longest_run":
        return longest_run(values)
    if card in ("families_moon_sun", "families_rain_smile"):
        return max(families.count(f) for f in SCORING_CARDS[card]["families"])
    if card == "most_common_family":
        return max((families.count(f) for f in FAMILIES), default=0)
    if card == "family_count":
        return len(set(families))
    if card == "even_values":
        return sum(1 for v in values if v % 2 == 0)
    if card == "odd_values":
        return sum(1 for v in values if v % 2 == 1)
    raise ValueError(f"not a counting Scoring card: {card}")


def scoring_card_stars(card: str, false_tricks: list[list[tuple[int | None, str | None]]]) -> list[int]:
    """Each seat's stars from the round's Scoring card; ``false_tricks`` per seat as (value,
    family) pairs, None where a Bonus face has no value or no family."""
    counts = [len(f) for f in false_tricks]
    if card == "fewest_false_tricks":
        return [RANK_TABLE[r - 1] for r in competition_ranks([-c for c in counts])]
    if card == "most_false_tricks":
        ranks = competition_ranks(counts)
        return [RANK_TABLE[r - 1] if c > 0 else 0 for r, c in zip(ranks, counts)]
    table = SCORING_CARDS[card]["table"]
    return [table_stars(table, card_count(card, f)) for f in false_tricks]


def effective_piles(
    tricks: list[list[str]], false_tricks: list[str], choices: list[Action]
) -> tuple[list[list[str]], list[dict[str, Any]]]:
    """A seat's tricks and false tricks once its round-end Bonus choices apply. False tricks are
    ``{"id", "value", "family"}`` (a Bonus face: its card id, value or family None)."""
    piles = [list(p) for p in tricks]
    falses = [{"id": c, "value": CARD_VALUE[c], "family": CARD_FAMILY[c]} for c in false_tricks]
    for action in choices:
        kind = action["type"]
        if kind == "flip":
            card = action["card"]
            if action["to"] == "false_trick":
                piles = [p for p in piles if card not in p]
                falses.append({"id": card, "value": CARD_VALUE[card], "family": CARD_FAMILY[card]})
            else:
                falses = [f for f in falses if f["id"] != card]
                piles.append([card])
        elif kind == "wild_pile":
            if action["status"] == "trick":
                piles.append(["wild_pile"])
            else:
                falses.append({"id": "wild_pile", "value": None, "family": None})
        elif kind == "variable":
            falses.append({"id": action["bonus"], "value": action.get("value"),
                           "family": action.get("family")})
        elif kind == "adjust":
            for f in falses:
                if f["id"] == action["target"]:
                    f["value"] += action["delta"]
    return piles, falses


# ====================================================================== card JSON
def card_json(card: str) -> dict[str, Any]:
    value, family = CARD_VALUE[card], CARD_FAMILY[card]
    return {"id": card, "kind": "number", "family": family, "value": value,
            "name": f"{value} {family}", "bonus_icon": value == BONUS_VALUE}


def cards_json(cards: list[str]) -> list[dict[str, Any]]:
    return [card_json(c) for c in cards]


def sort_cards(cards: list[str]) -> list[str]:
    return sorted(cards, key=CARD_ORDER.__getitem__)


def bonus_text(bonus: str, framed: bool) -> str:
    """What a Bonus card does this round (a variable card shows the face matching the round)."""
    if bonus in BONUS_TEXT:
        return BONUS_TEXT[bonus]
    if not framed:
        return "a false trick of family " + " or ".join(VARIABLE_FAMILIES[bonus]) + ", no value"
    if bonus == ADJUST_BONUS:
        return "at round end, one of your false tricks' value +1 or -1 (within 1-12)"
    values = VARIABLE_VALUES[bonus]
    return "a false trick of value " + ", ".join(map(str, values)) + " (your choice), no family"


def card_texts() -> dict[str, dict[str, str]]:
    """Every number and Bonus card by id, its name and what it does (GameDescription.card_texts); a
    variable Bonus card gives both faces (the public view's ``bonus.text`` names this round's)."""
    texts = {c: {"name": card_json(c)["name"],
                 "text": "carries the Bonus icon: recovering it earns a Bonus card" if CARD_VALUE[c] == BONUS_VALUE
                 else ""} for c in CARD_IDS}
    for bonus in BONUS_IDS:
        text = bonus_text(bonus, False) if bonus in BONUS_TEXT else \
            f"unframed face: {bonus_text(bonus, False)} · framed face: {bonus_text(bonus, True)}"
        texts[bonus] = {"name": bonus.replace("_", " "), "text": text}
    return texts


FAMILY_BIT = {f: 1 << i for i, f in enumerate(FAMILIES)}
ALL_FAMILIES = (1 << len(FAMILIES)) - 1


class TrickyTwistState(GameState):
    # ================================================================== set-up
    @classmethod
    def new(cls, config: MatchConfig, seed: int) -> TrickyTwistState:
        state = cls(config, seed)
        state.start_round(0, first=0)
        return state

    def __init__(self, config: MatchConfig, seed: int) -> None:
        self.config = config
        self.seed = seed
        self.n = n = config.players
        self.end_after_draw = config.options["end_check"] == "after_draw"
        self.round = 0
        self.first = 0
        self.phase = "reserve"
        self.scoring_card = SCORING_CARD_IDS[0]
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.reserves: list[list[str]] = [[] for _ in range(n)]
        self.reserve_step = 0
        self.picks: list[str | None] = [None] * n
        self.leader = 0
        self.turn = 0
        self.draw_offered = 0
        self.draws: list[int] = []
        self.trick: list[list] = []
        self.tricks: list[list[list[str]]] = [[] for _ in range(n)]
        self.false_tricks: list[list[str]] = [[] for _ in range(n)]
        self.bonus_available: list[str] = list(BONUS_IDS)
        self.bonus_held: list[list[str]] = [[] for _ in range(n)]
        self.bonus_spent: list[str] = []
        self.bonus_queue: list[int] = []
        self.known_in_hand: list[list[str]] = [[] for _ in range(n)]
        self.log: list[dict[str, Any]] = []
        self.batch: list[int] = []
        self.choices: list[list[Action]] = [[] for _ in range(n)]
        self.history: list[dict[str, Any]] = []
        self.totals: list[int] = [0] * n

    def start_round(self, round_index: int, first: int) -> None:
        """Reveal the Scoring card, set the Bonus cards out again, deal all 48 cards."""
        n = self.n
        self.round, self.first = round_index, first
        used = {h["scoring_card"] for h in self.history}
        remaining = [c for c in SCORING_CARD_IDS if c not in used]
        self.scoring_card = stream(self.seed, "scoring", round_index).choice(remaining)
        self.deal_hands(round_index)
        self.reserves = [[] for _ in range(n)]
        self.reserve_step, self.picks = 0, [None] * n
        self.leader = self.turn = first
        self.draw_offered, self.draws, self.trick = 0, [], []
        self.tricks = [[] for _ in range(n)]
        self.false_tricks = [[] for _ in range(n)]
        self.bonus_available = list(BONUS_IDS)
        self.bonus_held = [[] for _ in range(n)]
        self.bonus_spent, self.bonus_queue = [], []
        self.known_in_hand = [[] for _ in range(n)]
        self.log, self.batch = [], []
        self.choices = [[] for _ in range(n)]
        self.phase = "reserve"

    def deal_hands(self, round_index: int) -> None:
        """All 48 cards, the same number to every seat, from the round's own stream."""
        deck = list(CARD_IDS)
        stream(self.seed, "deal", round_index).shuffle(deck)
        size = len(deck) // self.n
        self.hands = [sort_cards(deck[s * size:(s + 1) * size]) for s in range(self.n)]

    @property
    def framed(self) -> bool:
        return SCORING_CARDS[self.scoring_card]["framed"]

    # ================================================================== who moves
    def to_move(self) -> list[int]:
        phase = self.phase
        if phase in SEQUENTIAL_PHASES:
            return [self.turn]
        if phase == "reserve":
            return [s for s in range(self.n) if self.picks[s] is None]
        if phase == "round_end":
            return [s for s in self.batch if len(self.choices[s]) < len(self.round_end_steps(s))]
        return []

    def visible_to_move(self) -> list[int]:
        """``to_move`` as observations show it: a sealed phase lists every seat taking part."""
        if self.phase == "reserve":
            return list(range(self.n))
        if self.phase == "round_end":
            return list(self.batch)
        return self.to_move()

    def round_end_steps(self, seat: int) -> list[str]:
        held = self.bonus_held[seat]
        return [b for b in ROUND_END_ORDER if b in held]

    # ================================================================== legal actions
    def _legal_actions(self, seat: int) -> list[Action]:
        phase = self.phase
        if phase == "play":
            return self.playable(seat) if seat == self.turn else []
        if phase == "draw":
            return [DRAW, NO_DRAW] if seat == self.turn else []
        if phase == "reserve":
            return [PICK[c] for c in self.hands[seat]] if self.picks[seat] is None else []
        if phase == "bonus":
            if seat != self.turn:
                return []
            return [TAKE_BONUS[b] for b in self.bonus_available] + [NO_BONUS]
        if phase == "take_back":
            if seat != self.turn:
                return []
            return [{"type": "take_back", "card": c} for c in self.false_tricks[seat]] + [NO_TAKE_BACK]
        if phase == "round_end" and seat in self.to_move():
            return self.round_end_actions(seat)
        return []

    def playable(self, seat: int) -> list[Action]:
        """Follow the led family if able (whatever earlier seats did); else any card."""
        hand = self.hands[seat]
        if self.trick:
            led = CARD_FAMILY[self.trick[0][1]]
            follow = [PLAY[c] for c in hand if CARD_FAMILY[c] == led]
            if follow:
                return follow
        return [PLAY[c] for c in hand]

    def round_end_actions(self, seat: int) -> list[Action]:
        """The choices for the seat's next round-end Bonus card (decline first)."""
        bonus = self.round_end_steps(seat)[len(self.choices[seat])]
        actions: list[Action] = [{"type": "decline", "bonus": bonus}]
        piles, falses = effective_piles(self.tricks[seat], self.false_tricks[seat], self.choices[seat])
        if bonus == "flip":
            for pile in piles:
                actions += [{"type": "flip", "card": c, "to": "false_trick"} for c in pile]
            actions += [{"type": "flip", "card": f["id"], "to": "trick"}
                        for f in falses if f["id"] in CARD_VALUE]
        elif bonus == "wild_pile":
            actions += [{"type": "wild_pile", "status": "trick"},
                        {"type": "wild_pile", "status": "false_trick"}]
        elif not self.framed:
            actions += [{"type": "variable", "bonus": bonus, "family": f}
                        for f in VARIABLE_FAMILIES[bonus]]
        elif bonus == ADJUST_BONUS:
            for f in falses:
                if f["value"] is None:
                    continue
                actions += [{"type": "adjust", "target": f["id"], "delta": d}
                            for d in (-1, 1) if 1 <= f["value"] + d <= 12]
        else:
            actions += [{"type": "variable", "bonus": bonus, "value": v}
                        for v in VARIABLE_VALUES[bonus]]
        return actions

    def _default_action(self, seat: int) -> Action:
        """Decline, do not draw, take no Bonus; when a card must be played or picked, the first."""
        return self.legal_actions(seat)[-1 if self.phase in ("draw", "bonus", "take_back") else 0]

    def action_label(self, seat: int, action: Action) -> str:
        kind = action.get("type")
        def name(c: str) -> str:
            return f"{CARD_VALUE[c]} {CARD_FAMILY[c]}" if c in CARD_VALUE else c

        if kind == "reserve":
            return f"put the {name(action['card'])} in your reserve"
        if kind == "draw":
            return "draw your reserve's top card"
        if kind == "no_draw":
            return "do not draw"
        if kind == "play":
            return f"play the {name(action['card'])}"
        if kind == "take_bonus":
            return f"take {BONUS_NAME[action['bonus']]}"
        if kind == "no_bonus":
            return "take no Bonus card"
        if kind == "take_back":
            return f"take your false trick {name(action['card'])} back into your hand"
        if kind == "no_take_back":
            return "take no false trick back"
        if kind == "decline":
            return f"do not use {BONUS_NAME[action['bonus']]}"
        if kind == "flip":
            if action["to"] == "false_trick":
                return f"flip the trick with the {name(action['card'])} on top into a false trick"
            return f"flip the false trick {name(action['card'])} into a trick"
        if kind == "wild_pile":
            return f"{BONUS_NAME['wild_pile']} counts as a {action['status'].replace('_', ' ')}"
        if kind == "variable":
            what = action.get("family") or action.get("value")
            return f"{BONUS_NAME[action['bonus']]}: a false trick of {what}"
        if kind == "adjust":
            return f"{BONUS_NAME[ADJUST_BONUS]}: {name(action['target'])} {action['delta']:+d}"
        return str(action)

    def public_label(self, seat: int, action: Action) -> str:
        """The label any other seat or a spectator may read: a reserve pick and a round-end Bonus
        choice are sealed (the pick stays hidden; the choices show in the round summary once every
        seat has made its), so they name no card and no choice; the rest is played in the open."""
        kind = action.get("type")
        if kind == "reserve":
            return "put a card in the reserve"
        if kind in ("decline", "flip", "wild_pile", "variable", "adjust"):
            bonus = {"flip": "flip", "wild_pile": "wild_pile", "adjust": ADJUST_BONUS}.get(kind)
            return f"make a sealed round-end choice for {BONUS_NAME[bonus or action.get('bonus')]}"
        return self.action_label(seat, action)

    # ================================================================== apply
    def _apply(self, seat: int, action: Action) -> None:
        kind = action["type"]
        if kind == "play":
            self.play_card(seat, action["card"])
        elif kind in ("draw", "no_draw"):
            self.reserve_draw(seat, kind == "draw")
        elif kind == "reserve":
            self.pick_reserve(seat, action["card"])
        elif kind in ("take_bonus", "no_bonus"):
            self.choose_bonus(seat, action.get("bonus"))
        elif kind in ("take_back", "no_take_back"):
            self.use_take_back(seat, action.get("card"))
        else:
            self.choices[seat].append(dict(action))
            if not self.to_move():
                self.score_round()

    # ------------------------------------------------------------------ the reserve
    def pick_reserve(self, seat: int, card: str) -> None:
        """One of five sealed picks; when every seat has picked, the picks join the reserves."""
        self.hands[seat].remove(card)
        self.picks[seat] = card
        if None in self.picks:
            return
        for s, pick in enumerate(self.picks):
            self.reserves[s].append(pick)
        self.picks = [None] * self.n
        self.reserve_step += 1
        if self.reserve_step == RESERVE_SIZE:
            rng = stream(self.seed, "reserve", self.round)
            for reserve in self.reserves:
                rng.shuffle(reserve)
            self.start_trick()

    # ------------------------------------------------------------------ draws and tricks
    def start_trick(self) -> None:
        self.trick, self.draws, self.draw_offered = [], [], 0
        self.next_draw()

    def next_draw(self) -> None:
        """Offer the draw to the next seat (from the leader, clockwise) that has a reserve."""
        n = self.n
        while self.draw_offered < n:
            seat = (self.leader + self.draw_offered) % n
            if self.reserves[seat]:
                self.phase, self.turn = "draw", seat
                return
            self.draw_offered += 1
        if self.end_after_draw and not all(self.hands):
            self.end_round()
            return
        self.phase, self.turn = "play", self.leader

    def reserve_draw(self, seat: int, draw: bool) -> None:
        if draw:
            hand = self.hands[seat]
            hand.append(self.reserves[seat].pop(0))
            hand.sort(key=CARD_ORDER.__getitem__)
            self.draws.append(seat)
        self.draw_offered += 1
        self.next_draw()

    def play_card(self, seat: int, card: str) -> None:
        self.hands[seat].remove(card)
        if card in self.known_in_hand[seat]:
            self.known_in_hand[seat].remove(card)
        self.trick.append([seat, card])
        if len(self.trick) == self.n:
            self.resolve_trick()
        else:
            self.turn = (seat + 1) % self.n

    def resolve_trick(self) -> None:
        """The highest led-family card takes the led-family cards as one face-down trick; every
        seat that did not follow takes its own card back as a face-up false trick."""
        led = CARD_FAMILY[self.trick[0][1]]
        winner, best = self.trick[0][0], 0
        won: list[str] = []
        falses: list[list] = []
        for seat, card in self.trick:
            if CARD_FAMILY[card] == led:
                won.append(card)
                if CARD_VALUE[card] > best:
                    winner, best = seat, CARD_VALUE[card]
            else:
                falses.append([seat, card])
                self.false_tricks[seat].append(card)
        self.tricks[winner].append(won)
        self.log.append({"leader": self.leader, "draws": self.draws, "plays": self.trick,
                         "winner": winner, "trick": won, "false_tricks": falses,
                         "bonus": [], "take_back": []})
        self.leader = winner
        self.trick, self.draws = [], []
        # A recovered 7 gives its new owner a Bonus card: clockwise from the winner.
        sevens = [winner] if any(CARD_VALUE[c] == BONUS_VALUE for c in won) else []
        sevens += [s for s, c in falses if CARD_VALUE[c] == BONUS_VALUE]
        self.bonus_queue = sorted(sevens, key=lambda s: (s - winner) % self.n)
        self.next_bonus()

    # ------------------------------------------------------------------ Bonus cards for 7s
    def next_bonus(self) -> None:
        if self.bonus_queue and self.bonus_available:
            self.phase, self.turn = "bonus", self.bonus_queue[0]
            return
        self.bonus_queue = []
        self.after_trick()

    def choose_bonus(self, seat: int, bonus: str | None) -> None:
        self.log[-1]["bonus"].append([seat, bonus])
        self.bonus_queue.pop(0)
        if bonus is not None:
            self.bonus_available.remove(bonus)
            if bonus == "take_back":
                # used at once or never: the card leaves play either way
                self.bonus_spent.append(bonus)
                if self.false_tricks[seat]:
                    self.phase, self.turn = "take_back", seat
                    return
            else:
                self.bonus_held[seat].append(bonus)
        self.next_bonus()

    def use_take_back(self, seat: int, card: str | None) -> None:
        self.log[-1]["take_back"].append([seat, card])
        if card is not None:
            self.false_tricks[seat].remove(card)
            self.hands[seat].append(card)
            self.hands[seat].sort(key=CARD_ORDER.__getitem__)
            self.known_in_hand[seat].append(card)
        self.next_bonus()

    def after_trick(self) -> None:
        """The end-of-round check (``after_trick``), else the winner leads the next trick."""
        if not self.end_after_draw and not all(self.hands):
            self.end_round()
        else:
            self.start_trick()

    # ------------------------------------------------------------------ round end and scoring
    def end_round(self) -> None:
        # self.draws stays: with after_draw, the last draws happened and everyone saw them
        self.batch = [s for s in range(self.n) if self.round_end_steps(s)]
        self.choices = [[] for _ in range(self.n)]
        if self.batch:
            self.phase = "round_end"
            return
        self.score_round()

    def score_round(self) -> None:
        """Reveal the round-end choices, score, and start the next round (or end the game)."""
        n = self.n
        tricks, falses = [], []
        for s in range(n):
            piles, f = effective_piles(self.tricks[s], self.false_tricks[s], self.choices[s])
            tricks.append(len(piles))
            falses.append(f)
        pairs = [[(f["value"], f["family"]) for f in fs] for fs in falses]
        card = scoring_card_stars(self.scoring_card, pairs)
        base = [base_stars(tricks[s], len(falses[s])) for s in range(n)]
        premium = [tricks[s] if "trick_premium" in self.bonus_held[s] else 0 for s in range(n)]
        stars = [base[s] + premium[s] + card[s] for s in range(n)]
        self.history.append({
            "round": self.round, "first_player": self.first, "scoring_card": self.scoring_card,
            "tricks": tricks, "false_tricks": falses, "bonus_held": [list(b) for b in self.bonus_held],
            "choices": [list(c) for c in self.choices],
            "base": base, "premium": premium, "card_stars": card, "stars": stars,
        })
        self.totals = [t + s for t, s in zip(self.totals, stars)]
        self.batch = []
        if self.round + 1 >= n:
            self.phase = "over"
            return
        self.start_round(self.round + 1, (self.first + 1) % n)

    # ================================================================== results
    def is_terminal(self) -> bool:
        return self.phase == "over"

    def result(self) -> dict[str, Any]:
        return {"scores": list(self.totals), "ranks": competition_ranks(self.totals),
                "rounds": self.history}

    # ================================================================== views
    def public_part(self) -> dict[str, Any]:
        n = self.n
        # a pending reserve pick still counts in its hand: nobody sees who has picked
        hand_counts = [len(h) + (p is not None) for h, p in zip(self.hands, self.picks)]
        return {
            "game": "tricky-twist",
            "variant": self.config.variant,
            "round": self.round,
            "rounds": copy_json(self.history),
            "phase": self.phase,
            "to_move": self.visible_to_move(),
            "players": n,
            "first_player": self.first,
            "scoring_card": {"id": self.scoring_card, **{k: v for k, v in
                             SCORING_CARDS[self.scoring_card].items() if k in ("framed", "text")}},
            "bonus": {
                "face": "framed" if self.framed else "unframed",
                "text": {b: bonus_text(b, self.framed) for b in BONUS_IDS},
                "available": list(self.bonus_available),
                "held": [list(b) for b in self.bonus_held],
                "spent": list(self.bonus_spent),
            },
            "reserve_step": self.reserve_step if self.phase == "reserve" else None,
            "hand_counts": hand_counts,
            "reserve_counts": [len(r) for r in self.reserves],
            "known_in_hand": [cards_json(k) for k in self.known_in_hand],
            "leader": self.leader,
            "turn": self.turn if self.phase in SEQUENTIAL_PHASES else None,
            "draws": list(self.draws),
            "trick": [{"seat": s, "card": card_json(c)} for s, c in self.trick],
            "tricks": [[cards_json(p) for p in piles] for piles in self.tricks],
            "false_tricks": [cards_json(f) for f in self.false_tricks],
            "log": [self.log_json(rec) for rec in self.log],
            "totals": list(self.totals),
            # the observing seat's own part: empty for a spectator
            "hand": [], "reserve": [], "pending_pick": None, "round_end_steps": [],
            "my_choices": [],
        }

    @staticmethod
    def log_json(rec: dict[str, Any]) -> dict[str, Any]:
        return {"leader": rec["leader"], "draws": list(rec["draws"]),
                "plays": [{"seat": s, "card": card_json(c)} for s, c in rec["plays"]],
                "winner": rec["winner"], "trick": cards_json(rec["trick"]),
                "false_tricks": [{"seat": s, "card": card_json(c)} for s, c in rec["false_tricks"]],
                "bonus": [{"seat": s, "bonus": b} for s, b in rec["bonus"]],
                "take_back": [{"seat": s, "card": card_json(c) if c else None}
                              for s, c in rec["take_back"]]}

    def observation(self, seat: int, public: dict[str, Any] | None = None) -> dict[str, Any]:
        """``public``: the public part already built for another view of this step (``views``),
        copied at its top level only."""
        obs = self.public_part() if public is None else dict(public)
        obs["seat"] = seat
        obs["hand"] = cards_json(self.hands[seat])
        # the reserve's cards, sorted: its order is unknown even to its owner
        obs["reserve"] = cards_json(sort_cards(self.reserves[seat]))
        pick = self.picks[seat] if self.phase == "reserve" else None
        obs["pending_pick"] = card_json(pick) if pick else None
        obs["round_end_steps"] = self.round_end_steps(seat) if seat in self.batch else []
        obs["my_choices"] = [dict(c) for c in self.choices[seat]] if self.phase == "round_end" else []
        return obs

    def public_view(self) -> dict[str, Any]:
        return self.public_part()

    def views(self, spectator: bool = True) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        """One public part for the spectator and every seat (they share its lists; the state shares none)."""
        public = self.public_part()
        return (public if spectator else None), [self.observation(seat, public) for seat in range(self.n)]

    # ================================================================== positions
    def position_state(self) -> dict[str, Any]:
        return {
            "round": self.round, "first": self.first, "phase": self.phase,
            "scoring_card": self.scoring_card,
            "hands": [list(h) for h in self.hands],
            "reserves": [list(r) for r in self.reserves],
            "reserve_step": self.reserve_step, "picks": list(self.picks),
            "leader": self.leader, "turn": self.turn, "draw_offered": self.draw_offered,
            "draws": list(self.draws), "trick": [list(p) for p in self.trick],
            "tricks": [[list(p) for p in piles] for piles in self.tricks],
            "false_tricks": [list(f) for f in self.false_tricks],
            "bonus_available": list(self.bonus_available),
            "bonus_held": [list(b) for b in self.bonus_held],
            "bonus_spent": list(self.bonus_spent),
            "bonus_queue": list(self.bonus_queue),
            "known_in_hand": [list(k) for k in self.known_in_hand],
            "log": [{"leader": r["leader"], "draws": list(r["draws"]),
                     "plays": [list(p) for p in r["plays"]], "winner": r["winner"],
                     "trick": list(r["trick"]), "false_tricks": [list(p) for p in r["false_tricks"]],
                     "bonus": [list(b) for b in r["bonus"]],
                     "take_back": [list(t) for t in r["take_back"]]} for r in self.log],
            "batch": list(self.batch),
            "choices": [[dict(a) for a in c] for c in self.choices],
            "history": [copy_json(h) for h in self.history],
            "totals": list(self.totals),
        }

    @classmethod
    def from_position_state(cls, config: MatchConfig, seed: int, data: dict[str, Any]) -> TrickyTwistState:
        state = cls(config, seed)
        n = state.n
        state.round, state.first = int(data["round"]), int(data["first"])
        state.phase = data["phase"]
        state.scoring_card = data["scoring_card"]
        state.hands = [sort_cards(h) for h in data["hands"]]
        state.reserves = [list(r) for r in data["reserves"]]
        state.reserve_step = int(data.get("reserve_step", 0))
        state.picks = list(data.get("picks") or [None] * n)
        state.leader, state.turn = int(data["leader"]), int(data["turn"])
        state.draw_offered = int(data.get("draw_offered", 0))
        state.draws = list(data.get("draws", []))
        state.trick = [list(p) for p in data.get("trick", [])]
        state.tricks = [[list(p) for p in piles] for piles in data["tricks"]]
        state.false_tricks = [list(f) for f in data["false_tricks"]]
        state.bonus_available = [b for b in BONUS_IDS if b in data.get("bonus_available", BONUS_IDS)]
        state.bonus_held = [list(b) for b in data.get("bonus_held", [[] for _ in range(n)])]
        state.bonus_spent = list(data.get("bonus_spent", []))
        state.bonus_queue = list(data.get("bonus_queue", []))
        state.known_in_hand = [list(k) for k in data.get("known_in_hand", [[] for _ in range(n)])]
        state.log = [copy_json(r) for r in data.get("log", [])]
        state.batch = list(data.get("batch", []))
        state.choices = [[dict(a) for a in c] for c in data.get("choices", [[] for _ in range(n)])]
        state.history = [copy_json(h) for h in data.get("history", [])]
        state.totals = list(data.get("totals", [0] * n))
        state.validate()
        return state

    def validate(self) -> None:
        """Refuse positions that cannot describe a game: every card exactly once, known phases."""
        n = self.n
        if self.phase not in ("reserve", *SEQUENTIAL_PHASES, "round_end", "over"):
            raise PositionError(f"unknown phase {self.phase!r}")
        if self.scoring_card not in SCORING_CARDS:
            raise PositionError(f"unknown Scoring card {self.scoring_card!r}")
        per_seat = (self.hands, self.reserves, self.picks, self.tricks, self.false_tricks,
                    self.bonus_held, self.known_in_hand, self.choices, self.totals)
        if any(len(x) != n for x in per_seat):
            raise PositionError(f"per-seat lists must have {n} entries")
        cards = [c for h in self.hands for c in h] + [c for r in self.reserves for c in r]
        cards += [p for p in self.picks if p is not None] + [c for _, c in self.trick]
        cards += [c for piles in self.tricks for p in piles for c in p]
        cards += [c for f in self.false_tricks for c in f]
        if sorted(cards) != sorted(CARD_IDS):
            raise PositionError("every one of the 48 Number cards must be in exactly one place")
        for s in range(n):
            if any(c not in self.hands[s] for c in self.known_in_hand[s]):
                raise PositionError(f"known_in_hand[{s}] names a card not in that hand")
        bonus = self.bonus_available + [b for h in self.bonus_held for b in h] + self.bonus_spent
        if len(set(bonus)) != len(bonus) or not set(bonus) <= set(BONUS_IDS):
            raise PositionError("a Bonus card is in two places, or unknown")
        if self.phase in SEQUENTIAL_PHASES and not 0 <= self.turn < n:
            raise PositionError("turn is not a seat")
        if self.phase == "draw" and (not self.reserves[self.turn]
                                     or self.turn != (self.leader + self.draw_offered) % n):
            raise PositionError("the draw is offered to the seat draw_offered places from the "
                                "leader, and only to a seat with a reserve")
        if self.phase == "play" and self.turn != (self.leader + len(self.trick)) % n:
            raise PositionError("the seat to play is the next one after the trick's cards")
        for s in range(n):
            for a in self.choices[s]:
                if not isinstance(a, dict) or "type" not in a:
                    raise PositionError("a round-end choice must be an action")

    # ================================================================== hidden information
    def _copy_mutables(self, other: TrickyTwistState) -> None:
        """Every list play mutates is copied (the last trick record's Bonus and take_back lists
        too); finished rounds are shared."""
        other.hands = [list(h) for h in self.hands]
        other.reserves = [list(r) for r in self.reserves]
        other.picks = list(self.picks)
        other.draws = list(self.draws)
        other.trick = [list(p) for p in self.trick]
        other.tricks = [list(piles) for piles in self.tricks]
        other.false_tricks = [list(f) for f in self.false_tricks]
        other.bonus_available = list(self.bonus_available)
        other.bonus_held = [list(b) for b in self.bonus_held]
        other.bonus_spent = list(self.bonus_spent)
        other.bonus_queue = list(self.bonus_queue)
        other.known_in_hand = [list(k) for k in self.known_in_hand]
        other.log = [dict(r, bonus=list(r["bonus"]), take_back=list(r["take_back"])) for r in self.log]
        other.batch = list(self.batch)
        other.choices = [list(c) for c in self.choices]
        other.history = list(self.history)
        other.totals = list(self.totals)

    def resample_hidden(self, seat: int, rng: random.Random) -> TrickyTwistState:
        """A state ``seat`` cannot tell apart: every card it cannot know redrawn among the places
        it cannot see into (the others' hands, reserves and pending picks, its own reserve's
        order), the follow rule's evidence respected, the others' sealed round-end choices
        redrawn, and a fresh seed (future deals and Scoring cards)."""
        other = self.clone()
        other.seed = draw_seed(rng)
        rng.shuffle(other.reserves[seat])
        others = [y for y in range(self.n) if y != seat]
        slots: list[tuple[int, str, int]] = []  # (seat, place, allowed families mask)
        pool: list[str] = []
        for y in others:
            known = other.known_in_hand[y]
            hidden = [c for c in other.hands[y] if c not in known]
            pool += hidden
            slots += [(y, "hand", mask) for mask in self.hand_masks(y, len(hidden))]
            pool += other.reserves[y]
            slots += [(y, "reserve", ALL_FAMILIES)] * len(other.reserves[y])
            if other.picks[y] is not None:
                pool.append(other.picks[y])
                slots.append((y, "pick", ALL_FAMILIES))
        dealt = deal_constrained(rng, pool, [mask for _, _, mask in slots])
        for y in others:
            other.hands[y] = list(other.known_in_hand[y])
            other.reserves[y] = []
        for (y, place, _), card in zip(slots, dealt):
            if place == "hand":
                other.hands[y].append(card)
            elif place == "reserve":
                other.reserves[y].append(card)
            else:
                other.picks[y] = card
        for y in others:
            other.hands[y] = sort_cards(other.hands[y])
        if other.phase == "round_end":
            # the others' sealed choices are unknown: redraw them, keeping how far each has got
            for y in others:
                done = len(other.choices[y])
                other.choices[y] = []
                for _ in range(done):
                    other.choices[y].append(dict(rng.choice(other.round_end_actions(y))))
        return other

    def hand_masks(self, y: int, count: int) -> list[int]:
        """Allowed families for each card seat ``y`` still hides in its hand, from the follow
        rule: a seat that did not follow family F at trick t held no F card then. Cards drawn
        from its reserve later are free of that. Played cards are matched to the earliest
        entries they can have come from (earliest deadline first), leaving the hand the latest
        entries, which constrain least; the true history shows such a matching exists."""
        if self.phase == "reserve":
            return [ALL_FAMILIES] * count
        records = list(self.log)
        if self.phase in ("draw", "play", "round_end"):
            records.append({"draws": self.draws, "plays": self.trick, "take_back": []})
        entries = [0] * (len(CARD_IDS) // self.n - RESERVE_SIZE)
        voids: list[tuple[str, int]] = []
        played: list[tuple[int, int]] = []  # (earliest entry, trick played)
        public: set[str] = set()
        for t, rec in enumerate(records):
            entries += [t] * rec["draws"].count(y)
            plays = rec["plays"]
            led = CARD_FAMILY[plays[0][1]] if plays else None
            for s, card in plays:
                if s != y:
                    continue
                if CARD_FAMILY[card] != led:
                    voids.append((led, t))
                if card in public:
                    public.discard(card)
                else:
                    played.append((card, t))
            for s, card in rec["take_back"]:
                if s == y and card:
                    public.add(card)
        intervals = []
        for card, t in played:
            fam = CARD_FAMILY[card]
            earliest = max((v + 1 for f, v in voids if f == fam and v < t), default=0)
            intervals.append((earliest, t))
        intervals.sort()
        entries.sort()
        free: list[int] = []
        heap: list[int] = []
        i = 0
        for e in entries:
            while i < len(intervals) and intervals[i][0] <= e:
                heapq.heappush(heap, intervals[i][1])
                i += 1
            if heap:
                heapq.heappop(heap)
            else:
                free.append(e)
        if len(free) != count:  # cannot happen in a real game; a hand-built position: no evidence
            return [ALL_FAMILIES] * count
        masks = []
        for e in free:
            mask = ALL_FAMILIES
            for f, t in voids:
                if t >= e:
                    mask &= ~FAMILY_BIT[f]
            masks.append(mask)
        return masks


def deal_constrained(rng: random.Random, pool: list[str], masks: list[int]) -> list[str]:
    """Deal ``pool`` to slots, slot i taking a card whose family bit is in ``masks[i]``: most
    constrained slots first, each a random card among those that keep the rest dealable (Hall's
    condition over the 16 family sets)."""
    by_family: dict[int, list[str]] = {bit: [] for bit in FAMILY_BIT.values()}
    for card in pool:
        by_family[FAMILY_BIT[CARD_FAMILY[card]]].append(card)
    for cards in by_family.values():
        rng.shuffle(cards)
    need = [0] * 16  # slots still to fill, by mask
    for m in masks:
        need[m] += 1
    order = sorted(range(len(masks)), key=lambda i: (bin(masks[i]).count("1"), rng.random()))

    def feasible() -> bool:
        for subset in range(1, 16):
            slots = sum(need[m] for m in range(1, 16) if m & ~subset == 0)
            cards = sum(len(by_family[b]) for b in by_family if b & subset)
            if slots > cards:
                return False
        return True

    dealt: list[str | None] = [None] * len(masks)
    for k, i in enumerate(order):
        if masks[i] == ALL_FAMILIES:
            # the slots left are unconstrained too (most constrained first): any card fits, so a
            # shuffle of what is left is the same draw without the feasibility checks
            rest = [c for cards in by_family.values() for c in cards]
            rng.shuffle(rest)
            for j, card in zip(order[k:], rest):
                dealt[j] = card
            break
        need[masks[i]] -= 1
        options = [b for b in by_family if b & masks[i] and by_family[b]]
        while options:
            weights = [len(by_family[b]) for b in options]
            bit = rng.choices(options, weights)[0]
            card = by_family[bit].pop()
            if feasible():
                dealt[i] = card
                break
            by_family[bit].append(card)
            options.remove(bit)
        if dealt[i] is None:  # no consistent deal (a hand-built position): ignore the evidence
            rest = [c for cards in by_family.values() for c in cards]
            dealt[i] = rest[0]
            by_family[FAMILY_BIT[CARD_FAMILY[rest[0]]]].remove(rest[0])
    return dealt  # type: ignore[return-value]


GAME = GameDescription(
    id="tricky-twist",
    name="Tricky Twist",
    engine_version="1.1.0",  # 1.1: the Bonus cards named in labels (replays of 1.0 keep their own labels)
    variants={"standard": Variant("standard", (3, 4), (END_CHECK,),
                                  doc="3 or 4 players, as many rounds as players")},
    state_class=TrickyTwistState,
    card_texts=card_texts(),
)
