"""Bszzzz!: the rules, top to bottom (the rulebook as read by the platform: ``rules.md``).

A round: every seat holds its dealt trick cards plus the 3 swatters of its colour. Play is a series of
**reaction windows**. Each window asks, at once and sealed, every seat holding any card; each submits one
card or a pass. When the last submission arrives the window is resolved in priority order (clockwise
from the left of the seat that played the trick's last card; in a trick's first window from the turn
seat; or, with ``priority=arrival``, in the order the submissions were applied):

1. any swatter played: the first in priority lands on the trick as it stood when the window opened, every
   other swatter is spent (face up before its owner, no points), every other card goes back to its hand;
2. otherwise the first card in priority is applied, the others go back to their owners' hands;
3. the turn passes left when the turn seat's card is applied or no card is, and stays otherwise.

A swatter on a pest takes the whole trick; on a useful insect only the useful insects (the pests are
discarded). A web discards the trick. After a swatter or a web the seat to the left of its player leads
the next trick. The round ends when at most one seat still holds a swatter, or after n consecutive
windows with no card applied; then round points (``round_points``) are added, the dealer moves left and
a new deal follows (``Draws(seed, "deal", round)``). The game ends after the round in which a seat
reaches 100, or at ``round_cap``. Total variant: no turn, nobody forced, any seat may play any legal
card (pests included); a trick's first window gives priority from the last trick's winner; a window in
which nobody plays ends the round.

Choices where the rulings (rules.md) and the rulebook are silent (the platform's):
- "Twice in a row" applies within a trick in both variants: the seat whose card is on top of the trick
  may not play; on an empty trick anyone may (so a web's player may add a useful insect to the next
  trick's first window).
- A useful insect or a web may open a trick (it is a trick card; only swatters may not). A web on an
  empty trick discards only itself and hands the lead to its player's left.
- A window in which the trick is still empty (the turn seat could not lead) is again a "first window":
  its priority starts from the (new) turn seat.
- The swatter that lands goes with what it took (face down) or, on a useful insect, face up before its
  owner; either way it is "swatted" (used) and scores nothing itself.
- At round end every seat's remaining trick cards are revealed in the round summary (their penalties are
  counted in public); the undealt cards of a 3-player round are never revealed.
- Seat colours: given ones must be known and distinct; seats given none get the first unused colours of
  the card data's order (seat k gets the k-th colour when none is given).
- Observations show ``to_move`` as every seat asked in the window (submitted or not), so one seat's
  submission changes nothing the others see. A resolved window is shown with every asked seat's
  submission in priority order and its outcome (applied / spent / returned / pass).
- Legal actions list the playable cards in hand order (trick cards, then swatters), then the pass when it
  is allowed. The default action (a faulted seat) is the pass; for a turn seat that must play, its first
  legal trick card. A turn seat whose only legal cards are swatters may pass.
- Views keep every finished round's points; the latest finished round also shows every seat's captured
  cards, the trick cards it was left holding, and the window that ended it (older rounds' cards are in the
  replay's earlier steps), so observations stay small over a 50-round game.
- Knowledge a seat draws from play and that ``resample_hidden`` keeps: a card that went back to a hand
  stays known there until played; a turn seat that passed (standard variant, not the trick's last
  player) held no trick card of another colour than the top card (none at all on an empty trick).

Views (JSON). A card is ``{"id", "kind" (pest|useful|web|swatter), "name" (fly|mosquito|bee|butterfly|web|
swatter), "colour", "capture" (int, null for webs and swatters), "penalty" (int)}``. ``public_view()``:
``game``, ``variant``, ``round``, ``phase`` (play|over), ``to_move`` (every seat asked in this window),
``colours``, ``dealer``, ``turn`` (null in the Total variant), ``priority_start`` (where this window's
priority starts; null with ``priority=arrival`` or when over), ``trick`` (``[{"seat", "card"}]`` bottom to
top), ``last_player`` (or null), ``idle_windows``, ``hand_sizes``, ``swatters_in_hand``, ``taken`` /
``swatted`` / ``spent`` (per seat, cards), ``discard`` (cards), ``windows`` (this round's resolved windows:
``{"turn" (or null), "top" (card or null), "last_player" (or null), "priority" (seats in resolution
order), "plays": [{"seat", "card" (or null: a pass), "outcome" (applied|spent|returned|pass)}], "effect"
(trick|web|swat-trick|swat-useful|none), "by" (the applied card's seat, or null)}``), ``scores`` (totals),
``rounds`` (``{"round", "dealer", "end" (swatters|no-play), "windows", "points", "totals"}``; the latest
also ``"taken"``, ``"hands"`` (per seat, cards) and ``"final_window"`` (a window or null)).
``observation(seat)`` adds ``seat``, ``colour``, ``hand`` (cards) and ``submitted`` (the seat's own sealed
action this window, or null); ``public_view()`` has ``submitted`` too, always null (one shape).

Position JSON (``to_position()["state"]``), every card by its id (``data.CARDS``); only ``hands`` and
``turn`` are required, every other key defaults to empty / zero:
``round`` (1-based), ``dealer`` (seat 0 in round 1, moving left each round), ``turn`` (standard: the turn seat; total: the seat where a trick's
first window's priority starts), ``hands`` (per seat: trick cards and swatters), ``out`` (trick cards not
dealt this round), ``trick`` (``[[seat, card], ...]`` bottom to top), ``idle`` (consecutive windows with
no card applied), ``taken`` / ``swatted`` / ``spent`` (per seat: cards captured, swatters that landed,
swatters spent), ``discard``, ``pending`` (``[[seat, card or null], ...]``: this window's sealed
submissions in arrival order), ``windows`` (this round's resolved windows: ``{"turn", "top",
"last_player", "priority", "plays": [{"seat", "card", "outcome"}], "effect", "by"}``), ``totals``,
``rounds`` (summaries of finished rounds), ``over``.
"""
from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from ..interface import (
    Action,
    ConfigError,
    GameDescription,
    GameState,
    IllegalActionError,
    MatchConfig,
    OptionSpec,
    PositionError,
    Variant,
)
from ..ranking import competition_ranks
from ..seeding import SEED_BITS, Draws
from .data import CARD_TEXTS, CARDS, COLOURS, DECKS, HAND_SIZE, PEST, SWATTER, SWATTERS, USEFUL, WEB, Card

TARGET = 100
PASS: Action = {"type": "pass"}
# One action object per card: legal lists are read-only, so the hot path builds no dicts.
PLAY: dict[str, Action] = {cid: {"type": "play", "card": cid} for cid in CARDS}

# Hands are kept in this order (the decks' order, swatters last), so legal actions list trick cards first.
_ORDER: dict[str, int] = {cid: i for i, cid in enumerate(CARDS)}


def _sort_key(card: Card) -> int:
    return _ORDER[card.id]


_CARD_JSON: dict[Card, dict[str, Any]] = {card: card.to_json() for card in CARDS.values()}


def play_label(card: Card) -> str:
    """The label of playing ``card``: what it captures and costs in hand, for a pest or useful one."""
    if card.kind in (PEST, USEFUL):
        return f"play the {card.colour} {card.name} ({card.capture:+d}, hand {card.penalty})"
    return f"play the {card.colour} {card.name}"


# made once: a decision labels every card of the seat's hand (~6 % of a 4-player match's referee)
_PLAY_LABELS: dict[str, str] = {card.id: play_label(card) for card in CARDS.values()}


def submission_json(card: Card | None) -> dict[str, Any]:
    """A sealed submission as its seat's view shows it: a pass (None) or the card played."""
    return {"type": "pass"} if card is None else {"type": "play", "card": card.id}


def card_json(card: Card) -> dict[str, Any]:
    """What a viewer needs to draw a card (a fresh copy of its JSON, built once per card: views
    draw every card on the table at every step)."""
    return dict(_CARD_JSON[card])


# ---------------------------------------------------------------------------------------- scoring
def round_points(colour: str, taken: Iterable[Card], hand: Iterable[Card]) -> int:
    """A seat's round points: + each captured pest of another colour, - each of its own colour, + the
    (negative) value of each captured useful insect whatever its colour, - the hand penalty of every
    trick card left in hand (unused swatters cost nothing)."""
    points = 0
    for card in taken:
        if card.kind == PEST:
            points += -card.capture if card.colour == colour else card.capture
        elif card.kind == USEFUL:
            points += card.capture
    for card in hand:
        if card.kind != SWATTER:
            points -= card.penalty
    return points


def swat_value(colour: str, trick: Iterable[Card]) -> int:
    """What a swatter of ``colour`` would score on this trick now (bottom to top, non-empty)."""
    cards = list(trick)
    if not cards:
        return 0
    if cards[-1].kind == PEST:
        return round_points(colour, cards, ())
    return round_points(colour, [c for c in cards if c.kind == USEFUL], ())


# ---------------------------------------------------------------------------------------- the deal
def deal_hands(deck: str, colours: list[str], seed: int, round_no: int) -> tuple[list[list[Card]], list[Card]]:
    """The hands of round ``round_no`` (each with its seat's 3 swatters) and the cards left out."""
    cards = Draws(seed, "deal", round_no).shuffled(DECKS[deck])
    size = HAND_SIZE[len(colours)]
    hands = [
        sorted(cards[k * size:(k + 1) * size], key=_sort_key) + list(SWATTERS[colour])
        for k, colour in enumerate(colours)
    ]
    return hands, sorted(cards[len(colours) * size:], key=_sort_key)


# ---------------------------------------------------------------------------------------- legal cards
def may_play(card: Card, top: Card | None, may_play_pest: bool, strict_swatters: bool) -> bool:
    """Whether a seat that did not play the trick's top card may play ``card``: never a card of the top
    card's colour (a swatter too, when ``strict_swatters``), no swatter on an empty trick, pests only
    when ``may_play_pest`` (the turn seat; anyone in the Total variant)."""
    if not may_play_pest and card.kind == PEST:
        return False
    if top is None:
        return card.kind != SWATTER
    return card.colour != top.colour or (card.kind == SWATTER and not strict_swatters)


# Every situation's playable cards, each with its action: only the top card's colour matters of the trick.
_PLAY_ACTIONS: dict[tuple[str | None, bool, bool], dict[Card, Action]] = {}


def play_actions(top: Card | None, may_play_pest: bool, strict_swatters: bool) -> dict[Card, Action]:
    """Every card ``may_play`` allows in this situation, with its play action (memoised: a few dozen
    situations, and a legal list is then a lookup per card in hand)."""
    key = (top.colour if top else None, may_play_pest, strict_swatters)
    plays = _PLAY_ACTIONS.get(key)
    if plays is None:
        plays = _PLAY_ACTIONS[key] = {
            c: PLAY[c.id] for c in CARDS.values() if may_play(c, top, may_play_pest, strict_swatters)}
    return plays


# ---------------------------------------------------------------------------------------- windows
def resolve_window(order: list[int], plays: dict[int, Card | None]) -> tuple[int | None, dict[int, str]]:
    """Rulings' steps 1-2 for one window: the seat whose card is applied (or None) and every asked seat's
    outcome (``applied``, ``spent``, ``returned``, ``pass``). ``order`` is the priority order."""
    swatter = first = None
    for s in order:
        card = plays[s]
        if card is not None:
            if first is None:
                first = s
            if card.kind == SWATTER:
                swatter = s
                break
    applied = swatter if swatter is not None else first
    outcomes = {}
    for s in order:
        card = plays[s]
        if card is None:
            outcomes[s] = "pass"
        elif s == applied:
            outcomes[s] = "applied"
        elif card.kind == SWATTER:
            outcomes[s] = "spent"
        else:
            outcomes[s] = "returned"
    return applied, outcomes


OPTIONS = (
    OptionSpec("deck", "choice", "rulebook", ("rulebook", "original"),
               doc="40 pests / 9 useful insects / 11 webs (our rulebook) or 48 / 9 / 3 (the original)"),
    OptionSpec("priority", "choice", "clockwise", ("clockwise", "arrival"),
               doc="a window's cards in clockwise order from the left of the last card's player, "
                   "or by arrival time at the referee"),
    OptionSpec("swatter_colour", "choice", "strict", ("strict", "free"),
               doc="a swatter may not land on a card of its own colour (strict) or may (free)"),
    OptionSpec("round_cap", "int", 20, low=1, high=50, doc="the game ends after this many rounds at most"),
)


class BszzzzState(GameState):
    _rendered: _Renderings | None = None  # what read-only views share from step to step

    # ------------------------------------------------------------------------------ set-up
    @classmethod
    def complete_config(cls, config: MatchConfig) -> MatchConfig:
        """Seat colours: validate the given ones; seats without one get the first unused colours."""
        seats = [dict(s) for s in config.seats]
        given = [s.get("colour") for s in seats]
        for colour in given:
            if colour is not None and colour not in COLOURS:
                raise ConfigError(f"bszzzz: colour {colour!r} is not allowed (allowed: {', '.join(COLOURS)})")
        named = [c for c in given if c is not None]
        if len(set(named)) != len(named):
            raise ConfigError(f"bszzzz: seat colours must be distinct, got {named}")
        free = iter(c for c in COLOURS if c not in named)
        for seat in seats:
            if seat.get("colour") is None:
                seat["colour"] = next(free)
        return MatchConfig(config.game, config.variant, config.players, dict(config.options), tuple(seats))

    def _setup(self, config: MatchConfig, seed: int) -> None:
        self.config = config
        self.seed = seed
        self.n = config.players
        self.total = config.variant == "total"
        self.strict = config.options["swatter_colour"] == "strict"
        self.arrival = config.options["priority"] == "arrival"
        self.deck = config.options["deck"]
        self.round_cap = config.options["round_cap"]
        self.colours = [s["colour"] for s in config.seats]
        self.totals = [0] * self.n
        self.rounds: list[dict] = []
        self.over = False
        # The seats clockwise from each seat, for priority orders.
        self._rings = [[(start + k) % self.n for k in range(self.n)] for start in range(self.n)]

    @classmethod
    def new(cls, config: MatchConfig, seed: int) -> BszzzzState:
        state = cls()
        state._setup(config, seed)
        state._start_round(1)
        return state

    def _start_round(self, round_no: int) -> None:
        n = self.n
        self.round = round_no
        self.dealer = (round_no - 1) % n
        self.hands, self.out = deal_hands(self.deck, self.colours, self.seed, round_no)
        self.turn = (self.dealer + 1) % n  # the seat left of the dealer leads
        self.trick: list[tuple[int, Card]] = []
        self.idle = 0
        self.taken: list[list[Card]] = [[] for _ in range(n)]
        self.swatted: list[list[Card]] = [[] for _ in range(n)]
        self.spent: list[list[Card]] = [[] for _ in range(n)]
        self.discard: list[Card] = []
        self.windows: list[dict] = []
        self._count_swatters()
        self._open_window()

    def _count_swatters(self) -> None:
        self.swatters_left = [sum(1 for c in hand if c.kind == SWATTER) for hand in self.hands]

    def _open_window(self) -> None:
        """Ask every seat that holds any card (being asked reveals nothing but the public hand size)."""
        self.pending: list[tuple[int, Card | None]] = []
        self.waiting = [s for s in range(self.n) if self.hands[s]]

    # ------------------------------------------------------------------------------ legal actions
    def _legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.waiting:
            return []
        trick = self.trick
        if trick and trick[-1][0] == seat:  # never twice in a row
            return [PASS]  # nobody must play on their own card (the turn seat has played it)
        top = trick[-1][1] if trick else None
        plays = play_actions(top, self.total or seat == self.turn, self.strict)
        hand = self.hands[seat]
        actions: list[Action] = [plays[c] for c in hand if c in plays]
        # The turn seat may not pass while it holds a legal trick card.
        may_pass = self.total or seat != self.turn or all(c.kind == SWATTER for c in hand if c in plays)
        if may_pass:
            actions.append(PASS)
        return actions

    def _legal_for(self, seat: int) -> tuple[list[Action], list[Card], bool]:
        """(actions, playable cards, may pass) for an asked seat (a search's playout policy)."""
        actions = self.legal_actions(seat)
        may_pass = bool(actions) and actions[-1] is PASS
        cards = [CARDS[a["card"]] for a in (actions[:-1] if may_pass else actions)]
        return actions, cards, may_pass

    def arrival_order_matters(self) -> bool:
        return self.arrival

    def to_move(self) -> list[int]:
        return list(self.waiting)

    def action_label(self, seat: int, action: Action) -> str:
        if action.get("type") == "pass":
            return "pass"
        label = _PLAY_LABELS.get(action.get("card", ""))
        return str(action) if label is None else label

    def public_label(self, seat: int, action: Action) -> str:
        """The label any other seat or a spectator may read: every submission is sealed, a pass
        as much as a card, until the window resolves (the window's record then shows them all)."""
        return "submit a card or a pass (sealed)"

    def _default_action(self, seat: int) -> Action:
        """A pass where passing is allowed; the turn seat that must play: its first legal trick card."""
        actions = self.legal_actions(seat)
        if not actions:
            raise IllegalActionError(f"seat {seat} is not asked now")
        return actions[-1] if actions[-1] is PASS else actions[0]

    # ------------------------------------------------------------------------------ apply
    def _apply(self, seat: int, action: Action) -> None:
        """Seal ``seat``'s submission; the window resolves when the last asked seat has submitted."""
        card = None if action is PASS else CARDS[action["card"]]
        self.pending.append((seat, card))
        self.waiting.remove(seat)
        if not self.waiting:
            self._resolve()

    def _priority_start(self) -> int:
        return (self.trick[-1][0] + 1) % self.n if self.trick else self.turn

    def _resolve(self) -> None:
        """Resolve the window (rulings' steps 1-3), record it, then end the round or open the next."""
        n, trick = self.n, self.trick
        plays = dict(self.pending)
        start = (trick[-1][0] + 1) % n if trick else self.turn  # _priority_start()
        if self.arrival:
            order = [s for s, _ in self.pending]  # the arrival order is the order apply was called
        else:
            order = [s for s in self._rings[start] if s in plays]  # clockwise from ``start``
        applied, outcomes = resolve_window(order, plays)
        top = trick[-1] if trick else None
        record = {
            "turn": None if self.total else self.turn,
            "top": top[1].id if top else None,
            "last_player": top[0] if top else None,
            "priority": order,
            "plays": [
                {"seat": s, "card": card.id if (card := plays[s]) else None, "outcome": outcomes[s]}
                for s in order
            ],
            "effect": "none",
            "by": applied,
        }
        for s, outcome in outcomes.items():
            if outcome == "spent":
                self._take_from_hand(s, plays[s])
                self.spent[s].append(plays[s])
        if applied is None:
            self.idle += 1
            if not self.total:
                self.turn = (self.turn + 1) % n
        else:
            self.idle = 0
            record["effect"] = self._apply_card(applied, plays[applied])
        self.windows.append(record)
        self._after_window()

    def _take_from_hand(self, seat: int, card: Card) -> None:
        self.hands[seat].remove(card)
        if card.kind == SWATTER:
            self.swatters_left[seat] -= 1

    def _apply_card(self, seat: int, card: Card) -> str:
        """Put the window's applied card into play; returns what happened (for the window's record)."""
        n = self.n
        self._take_from_hand(seat, card)
        if card.kind == SWATTER:
            cards = [c for _, c in self.trick]
            self.swatted[seat].append(card)
            if cards[-1].kind == PEST:  # on a pest: the whole trick
                self.taken[seat].extend(cards)
                effect = "swat-trick"
            else:  # on a useful insect: only the useful insects, the pests are discarded
                self.taken[seat].extend(c for c in cards if c.kind == USEFUL)
                self.discard.extend(c for c in cards if c.kind != USEFUL)
                effect = "swat-useful"
            self.trick = []
            # The trick's winner leads (Total: its priority starts there); in the base game its left.
            self.turn = seat if self.total else (seat + 1) % n
            return effect
        if card.kind == WEB:
            self.discard.extend(c for _, c in self.trick)
            self.discard.append(card)
            self.trick = []
            self.turn = (seat + 1) % n
            return "web"
        self.trick.append((seat, card))
        if not self.total and seat == self.turn:
            self.turn = (seat + 1) % n  # the turn seat's own card passes the turn; an interruption does not
        return "trick"

    def _after_window(self) -> None:
        if self.swatters_left.count(0) >= self.n - 1:  # at most one seat still holds a swatter
            self._end_round("swatters")
        elif self.idle >= (1 if self.total else self.n):
            self._end_round("no-play")
        else:
            self._open_window()

    # ------------------------------------------------------------------------------ round end
    def _end_round(self, reason: str) -> None:
        self.discard.extend(c for _, c in self.trick)  # a trick still on the table is discarded
        self.trick = []
        points = [round_points(self.colours[s], self.taken[s], self.hands[s]) for s in range(self.n)]
        self.totals = [t + p for t, p in zip(self.totals, points)]
        self.rounds.append({
            "round": self.round,
            "dealer": self.dealer,
            "end": reason,
            "points": points,
            "totals": list(self.totals),
            "taken": [[c.id for c in pile] for pile in self.taken],
            "hands": [[c.id for c in hand if c.kind != SWATTER] for hand in self.hands],
            "windows": len(self.windows),
            "final_window": self.windows[-1] if self.windows else None,
        })
        if max(self.totals) >= TARGET or self.round >= self.round_cap:
            self.over = True
            self.pending, self.waiting = [], []
        else:
            self._start_round(self.round + 1)

    def is_terminal(self) -> bool:
        return self.over

    def result(self) -> dict:
        return {
            "scores": list(self.totals),
            "ranks": competition_ranks(self.totals),
            "rounds": len(self.rounds),
            "round_points": [r["points"] for r in self.rounds],
        }

    # ------------------------------------------------------------------------------ views
    def _table_view(self, read_only: bool = False) -> dict[str, Any]:
        """Everything public: the table, the piles, the resolved windows, the hand sizes.

        ``read_only``: for ``read_only_views`` — the cards are the shared card JSON, the resolved
        windows and finished rounds are rendered once, and the table is built again only when a
        window has resolved since (``_Renderings``)."""
        if not read_only:
            windows = [_render_window(w) for w in self.windows]
            rounds = [_render_summary(r, k == len(self.rounds) - 1) for k, r in enumerate(self.rounds)]
            return self._table(card_json, windows, rounds)
        renderings = self._rendered
        if renderings is None or renderings.windows_of is not self.windows or renderings.rounds_of is not self.rounds:
            renderings = self._rendered = _Renderings(self.windows, self.rounds)
        return renderings.table(self)

    def _table(self, card, windows: list[dict], rounds: list[dict], pile=None) -> dict[str, Any]:
        """``pile(key, index, cards)``: a pile's cards rendered (read-only views reuse a pile's
        rendering while its size is unchanged: ``_Renderings.pile``)."""
        trick = self.trick
        if pile is None:
            def pile(key: str, index: int, cards: list[Card]) -> list[dict]:
                return [card(c) for c in cards]
        return {
            "game": self.description.id,
            "variant": self.config.variant,
            "round": self.round,
            "phase": "over" if self.over else "play",
            "to_move": [] if self.over else [s for s in range(self.n) if self.hands[s]],
            "colours": list(self.colours),
            "dealer": self.dealer,
            "turn": None if self.total else self.turn,
            "priority_start": None if (self.over or self.arrival) else self._priority_start(),
            "trick": [{"seat": s, "card": card(c)} for s, c in trick],
            "last_player": trick[-1][0] if trick else None,
            "idle_windows": self.idle,
            "hand_sizes": [len(h) for h in self.hands],
            "swatters_in_hand": list(self.swatters_left),
            "taken": [pile("taken", s, cards) for s, cards in enumerate(self.taken)],
            "swatted": [pile("swatted", s, cards) for s, cards in enumerate(self.swatted)],
            "spent": [pile("spent", s, cards) for s, cards in enumerate(self.spent)],
            "discard": pile("discard", 0, self.discard),
            "windows": windows,
            "scores": list(self.totals),
            "rounds": rounds,
        }

    def observation(self, seat: int) -> dict[str, Any]:
        return self._seat_view(self._table_view(), seat)

    def _seat_view(self, table: dict[str, Any], seat: int, card=card_json,
                   shared: _Renderings | None = None) -> dict[str, Any]:
        """A seat's observation: the table (copied at its top level only) plus the seat's own parts
        (``shared``: for read-only views, the hand and the submission as rendered last time when
        they have not changed)."""
        view = dict(table)
        view["seat"] = seat
        view["colour"] = self.colours[seat]
        own = next((c for s, c in self.pending if s == seat), False)
        if shared is None:
            view["hand"] = [card(c) for c in self.hands[seat]]
            view["submitted"] = None if own is False else submission_json(own)
        else:  # a hand only shrinks within a round (a new round deals new lists)
            view["hand"] = shared.pile("hand", seat, self.hands[seat])
            view["submitted"] = None if own is False else shared.submission(own)
        return view

    def public_view(self) -> dict[str, Any]:
        view = self._table_view()
        view["submitted"] = None  # the same keys as a seat's view (a spectator never submits)
        return view

    def views(self, spectator: bool = True) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        """One table for the spectator and every seat (they share its lists; the state shares none)."""
        return self._views(self._table_view(), spectator, card_json)

    def read_only_public_view(self) -> dict[str, Any]:
        return dict(self._table_view(read_only=True), submitted=None)

    def read_only_views(self, spectator: bool = True) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        table = self._table_view(read_only=True)
        return self._views(table, spectator, _CARD_JSON.__getitem__, self._rendered)

    def read_only_observation(self, seat: int) -> dict[str, Any]:
        table = self._table_view(read_only=True)
        return self._seat_view(table, seat, _CARD_JSON.__getitem__, self._rendered)

    def _views(self, table: dict[str, Any], spectator: bool, card,
               shared: _Renderings | None = None) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        public = dict(table, submitted=None) if spectator else None
        return public, [self._seat_view(table, seat, card, shared) for seat in range(self.n)]

    # ------------------------------------------------------------------------------ positions
    def position_state(self) -> dict[str, Any]:
        def ids(cards: list[Card]) -> list[str]:
            return [c.id for c in cards]

        return {
            "round": self.round,
            "dealer": self.dealer,
            "turn": self.turn,
            "hands": [ids(h) for h in self.hands],
            "out": ids(self.out),
            "trick": [[s, c.id] for s, c in self.trick],
            "idle": self.idle,
            "taken": [ids(p) for p in self.taken],
            "swatted": [ids(p) for p in self.swatted],
            "spent": [ids(p) for p in self.spent],
            "discard": ids(self.discard),
            "pending": [[s, c.id if c else None] for s, c in self.pending],
            "windows": [dict(w, plays=[dict(p) for p in w["plays"]], priority=list(w["priority"]))
                        for w in self.windows],
            "totals": list(self.totals),
            "rounds": [dict(r) for r in self.rounds],
            "over": self.over,
        }

    @classmethod
    def from_position_state(cls, config: MatchConfig, seed: int, data: dict[str, Any]) -> BszzzzState:
        state = cls()
        state._setup(config, seed)
        n = state.n
        deck_ids = {c.id for c in DECKS[state.deck]}
        seen: set[str] = set()

        def card(cid: Any, swatter_of: str | None = None) -> Card:
            c = CARDS.get(cid) if isinstance(cid, str) else None
            if c is None or (c.kind != SWATTER and cid not in deck_ids):
                raise PositionError(f"bszzzz: {cid!r} is not a card of the {state.deck} deck")
            if c.kind == SWATTER and swatter_of is not None and c.colour != swatter_of:
                raise PositionError(f"bszzzz: {cid} does not belong to a {swatter_of} seat")
            if cid in seen:
                raise PositionError(f"bszzzz: card {cid} is in two places")
            seen.add(cid)
            return c

        def per_seat(key: str, kinds: tuple[str, ...]) -> list[list[Card]]:
            piles = data.get(key) or [[] for _ in range(n)]
            if len(piles) != n:
                raise PositionError(f"bszzzz: {key} needs one list per seat")
            cards = [[card(c, state.colours[s]) for c in pile] for s, pile in enumerate(piles)]
            if any(c.kind not in kinds for pile in cards for c in pile):
                raise PositionError(f"bszzzz: {key} holds only {', '.join(kinds)} cards")
            return cards

        def seat_no(value: Any) -> int:
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < n:
                raise PositionError(f"bszzzz: {value!r} is not a seat")
            return value

        state.round = int(data.get("round", 1))
        state.dealer = seat_no(data.get("dealer", (state.round - 1) % n))
        state.turn = seat_no(data["turn"])
        state.hands = [sorted(h, key=_sort_key) for h in per_seat("hands", (PEST, USEFUL, WEB, SWATTER))]
        state.out = [card(c) for c in data.get("out", [])]
        state.trick = []
        for s, cid in data.get("trick", []):
            c = card(cid)
            if c.kind not in (PEST, USEFUL):
                raise PositionError(f"bszzzz: a trick holds only pests and useful insects, not {cid}")
            state.trick.append((seat_no(s), c))
        state.idle = int(data.get("idle", 0))
        state.taken = per_seat("taken", (PEST, USEFUL))
        state.swatted = per_seat("swatted", (SWATTER,))
        state.spent = per_seat("spent", (SWATTER,))
        state.discard = [card(c) for c in data.get("discard", [])]
        state.windows = [dict(w, plays=[dict(p) for p in w["plays"]], priority=list(w["priority"]))
                         for w in data.get("windows", [])]
        state.totals = [int(t) for t in data.get("totals", [0] * n)]
        state.rounds = [dict(r) for r in data.get("rounds", [])]
        state.over = bool(data.get("over", False))
        if len(state.totals) != n:
            raise PositionError("bszzzz: totals needs one number per seat")
        state._count_swatters()
        if state.over:
            state.pending, state.waiting = [], []
            return state
        state._open_window()
        for s, cid in data.get("pending", []):
            s = seat_no(s)
            try:
                state.apply(s, PASS if cid is None else {"type": "play", "card": cid})
            except IllegalActionError as exc:
                raise PositionError(f"bszzzz: pending submission of seat {s}: {exc}") from None
        return state

    def _copy_mutables(self, other: BszzzzState) -> None:
        """Only immutable Card objects and finished records stay shared."""
        other.hands = [list(h) for h in self.hands]
        other.out = list(self.out)
        other.trick = list(self.trick)
        other.taken = [list(p) for p in self.taken]
        other.swatted = [list(p) for p in self.swatted]
        other.spent = [list(p) for p in self.spent]
        other.discard = list(self.discard)
        other.windows = list(self.windows)  # records are never changed once written
        other.totals = list(self.totals)
        other.rounds = list(self.rounds)
        other.swatters_left = list(self.swatters_left)
        other.pending = list(self.pending)
        other.waiting = list(self.waiting)
        other._rendered = None  # its lists will be its own: it renders for itself

    # ------------------------------------------------------------------------------ hidden information
    def public_knowledge(self) -> tuple[list[set[str]], list[set[str] | None]]:
        """What every seat knows of the others' hands from this round's windows: per seat, the cards known
        to be in it (played, sent back, not played since), and the colours its trick cards are limited to
        (None: no limit; an empty set: it holds no trick card) by the passes it was not allowed to make."""
        known: list[set[str]] = [set() for _ in range(self.n)]
        limits: list[set[str] | None] = [None] * self.n
        for window in self.windows:
            for play in window["plays"]:
                s, cid = play["seat"], play["card"]
                if play["outcome"] == "returned" and any(c.id == cid for c in self.hands[s]):
                    known[s].add(cid)
                if play["outcome"] == "pass" and s == window["turn"] and s != window["last_player"]:
                    # A turn seat may pass only when it holds no legal trick card.
                    top = window["top"]
                    allowed = {CARDS[top].colour} if top else set()
                    limits[s] = allowed if limits[s] is None else limits[s] & allowed
        return known, limits

    def resample_hidden(self, seat: int, rng: random.Random) -> BszzzzState:
        """A state ``seat`` cannot tell from this one: the other seats' unknown trick cards and the cards out
        of the round redrawn (keeping hand sizes and what play revealed), their sealed submissions redrawn
        among their legal actions, and a fresh seed for the deals of later rounds."""
        other = self.clone()
        other.seed = rng.getrandbits(SEED_BITS)
        if self.over:
            return other
        known, limits = self.public_knowledge()
        pool = list(self.out)
        need: dict[int, int] = {}
        for s in range(self.n):
            if s == seat:
                continue
            hidden = [c for c in self.hands[s] if c.kind != SWATTER and c.id not in known[s]]
            need[s] = len(hidden)
            pool.extend(hidden)
            other.hands[s] = [c for c in self.hands[s] if c.kind == SWATTER or c.id in known[s]]
        rng.shuffle(pool)
        # Seats whose colours are limited draw first from the cards they may hold: the real deal proves
        # there are enough, and the unlimited seats can take whatever remains.
        for s in sorted(need, key=lambda s: limits[s] is None):
            allowed = limits[s]
            picked = [c for c in pool if allowed is None or c.colour in allowed][: need[s]]
            for c in picked:
                pool.remove(c)
            other.hands[s] = sorted(other.hands[s] + picked, key=_sort_key)
        other.out = sorted(pool, key=_sort_key)
        # Other seats' sealed submissions are hidden too: redraw them among their new legal actions.
        other.waiting = [s for s in range(self.n) if other.hands[s]]
        other.pending = []
        for s, own in self.pending:
            if s != seat:
                actions, _, _ = other._legal_for(s)
                choice = rng.choice(actions)
                own = CARDS[choice["card"]] if choice["type"] == "play" else None
            other.pending.append((s, own))
            other.waiting.remove(s)
        other._legal = None
        return other


class _Renderings:
    """What read-only views share from step to step: this round's resolved windows and the finished
    rounds, each rendered once (records never change once written), and the latest table. Tied to
    the lists it renders: a clone or a new round (new lists) starts its own. The table depends only
    on what a window's resolution changes, and every resolution appends a record to the round's
    windows (or starts a new round), so it is built again only when their count has changed."""

    def __init__(self, windows: list[dict], rounds: list[dict]) -> None:
        self.windows_of, self.rounds_of = windows, rounds
        self.windows: list[dict] = []  # rendered
        self.rounds: list[dict] = []  # rendered without details
        self.latest: dict | None = None  # the latest round, rendered with its details
        self.built_at: tuple[int, int] | None = None  # (windows, rounds) when the table was built
        self.last_table: dict[str, Any] = {}
        self.piles: dict[tuple[str, int], tuple[list, int, list[dict]]] = {}  # (key, seat) -> (cards, count, rendered)
        self.submissions: dict[Card | None, dict[str, Any]] = {}

    def table(self, state: BszzzzState) -> dict[str, Any]:
        """The state's table for read-only views (never changed once built: lists handed out never
        grow afterwards; each caller copies its top level)."""
        at = (len(self.windows_of), len(self.rounds_of))
        if at != self.built_at:
            self.windows.extend(_render_window(w, shared=True) for w in self.windows_of[len(self.windows):])
            if len(self.rounds) < len(self.rounds_of):
                self.rounds.extend(_render_summary(r, False, shared=True) for r in self.rounds_of[len(self.rounds):])
                self.latest = _render_summary(self.rounds_of[-1], True, shared=True)
            rounds = self.rounds[:-1] + [self.latest] if self.rounds else []
            self.last_table = state._table(_CARD_JSON.__getitem__, list(self.windows), rounds, self.pile)
            self.built_at = at
        return self.last_table

    def submission(self, card: Card | None) -> dict[str, Any]:
        """A sealed submission as a seat's read-only view shows it (a pass for None): one object
        per card, so consecutive views share it."""
        shown = self.submissions.get(card)
        if shown is None:
            shown = self.submissions[card] = submission_json(card)
        return shown

    def pile(self, key: str, index: int, cards: list[Card]) -> list[dict]:
        """A pile's cards for read-only views: the same list while the pile has not changed size
        (piles only grow and hands only shrink within a round, and a new round or a clone brings
        new lists), so the views of consecutive steps share it and a host converts or compares
        it once."""
        hit = self.piles.get((key, index))
        if hit is not None and hit[0] is cards and hit[1] == len(cards):
            return hit[2]
        rendered = [_CARD_JSON[c] for c in cards]
        self.piles[key, index] = (cards, len(cards), rendered)
        return rendered


def _render_window(window: dict, shared: bool = False) -> dict:
    """A resolved window for the views (``shared``: with the shared card JSON, for read-only views)."""
    card = _CARD_JSON.__getitem__ if shared else card_json
    top = window["top"]
    return dict(
        window,
        top=card(CARDS[top]) if top else None,
        priority=list(window["priority"]),
        plays=[dict(p, card=card(CARDS[p["card"]]) if p["card"] else None) for p in window["plays"]],
    )


def _render_summary(summary: dict, detailed: bool, shared: bool = False) -> dict:
    """A finished round for the views: its points for every round; for the latest one also the cards
    each seat took and kept (what its points were counted from) and the window that ended it."""
    card = _CARD_JSON.__getitem__ if shared else card_json
    view = {key: summary[key] for key in ("round", "dealer", "end", "windows")}
    view.update(points=list(summary["points"]), totals=list(summary["totals"]))
    if detailed:
        final = summary.get("final_window")
        view.update(
            taken=[[card(CARDS[c]) for c in pile] for pile in summary["taken"]],
            hands=[[card(CARDS[c]) for c in hand] for hand in summary["hands"]],
            final_window=_render_window(final, shared) if final else None,
        )
    return view


GAME = GameDescription(
    id="bszzzz",
    name="Bszzzz!",
    engine_version="1.1.0",
    variants={
        "standard": Variant("standard", (3, 4, 5, 6), OPTIONS, doc="turn order; the turn seat must play"),
        "total": Variant("total", (3, 4, 5, 6), OPTIONS,
                         doc="Total Bszzzz!: no turn order, anyone plays any legal card; an empty window ends the round"),
    },
    state_class=BszzzzState,
    seat_attributes=("colour",),
    card_texts=CARD_TEXTS,
)
