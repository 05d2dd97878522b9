"""Tricky Twist's search hooks: a position rebuilt from a seat's observation, and the playouts.

What the observation gives: the seat's hand, its reserve's cards (not their order) and its pending
pick, every seat's hand and reserve sizes, the cards publicly back in a hand (``take_back``), the
trick on the table, every pile, the Bonus cards, this round's tricks and the round summaries.
Unknown: the other seats' hands and reserves (and the order of the seat's own reserve), their
sealed picks and round-end choices. The engine's ``resample_hidden`` deals the unknown cards so
that every seat that did not follow a family held none of it then; ``redraw`` then moves each
other seat's reserve among the cards a player would have put away (its shortest families), where
that evidence allows.
"""
from __future__ import annotations

import random
from typing import Any

from bisect import bisect_left

from ..hooks import UNKNOWN, SearchHooks, Turn, base_position, fill_unknown
from ..interface import Action, MatchConfig
from .data import BONUS_VALUE, CARD_FAMILY, CARD_IDS, CARD_ORDER, CARD_VALUE, RESERVE_SIZE, SCORING_CARDS
from .engine import FAMILY_BIT, base_stars, card_count, effective_piles, scoring_card_stars, table_stars
from .policy import BONUS_PREFERENCE, BONUS_WORTH, greedy, reserve_pick


def ids(views: list[dict[str, Any]]) -> list[str]:
    return [v["id"] for v in views]


def rebuild(config: MatchConfig, seat: int, obs: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    n = config.players
    phase = obs["phase"]
    known_in_hand = [ids(k) for k in obs["known_in_hand"]]
    pick = obs["pending_pick"]["id"] if obs["pending_pick"] else None
    hands, reserves = [], []
    for y in range(n):
        if y == seat:
            hands.append(ids(obs["hand"]))
            reserves.append(ids(obs["reserve"]))  # its order is redrawn with the rest
        else:
            # a seat's pending pick is sealed: it is still in its hand here (the count shows it)
            hidden = obs["hand_counts"][y] - len(known_in_hand[y])
            hands.append(known_in_hand[y] + [UNKNOWN] * hidden)
            reserves.append([UNKNOWN] * obs["reserve_counts"][y])
    picks: list[str | None] = [None] * n
    picks[seat] = pick
    leader = obs["leader"]
    turn = obs["turn"] if obs["turn"] is not None else leader
    log = [{"leader": r["leader"], "draws": list(r["draws"]),
            "plays": [[p["seat"], p["card"]["id"]] for p in r["plays"]], "winner": r["winner"],
            "trick": ids(r["trick"]), "false_tricks": [[f["seat"], f["card"]["id"]] for f in r["false_tricks"]],
            "bonus": [[b["seat"], b["bonus"]] for b in r["bonus"]],
            "take_back": [[t["seat"], t["card"]["id"] if t["card"] else None] for t in r["take_back"]]}
           for r in obs["log"]]
    state: dict[str, Any] = {
        "round": obs["round"], "first": obs["first_player"], "phase": phase,
        "scoring_card": obs["scoring_card"]["id"],
        "hands": hands, "reserves": reserves,
        "reserve_step": obs["reserve_step"] if phase == "reserve" else RESERVE_SIZE,
        "picks": picks, "leader": leader, "turn": turn,
        "draw_offered": (turn - leader) % n if phase == "draw" else (n if phase == "play" else 0),
        "draws": list(obs["draws"]),
        "trick": [[t["seat"], t["card"]["id"]] for t in obs["trick"]],
        "tricks": [[ids(p) for p in piles] for piles in obs["tricks"]],
        "false_tricks": [ids(f) for f in obs["false_tricks"]],
        "bonus_available": list(obs["bonus"]["available"]),
        "bonus_held": [list(b) for b in obs["bonus"]["held"]],
        "bonus_spent": list(obs["bonus"]["spent"]),
        "bonus_queue": _bonus_queue(log, n) if phase in ("bonus", "take_back") else [],
        "known_in_hand": known_in_hand,
        "batch": list(obs["to_move"]) if phase == "round_end" else [],
        "choices": [[dict(a) for a in obs["my_choices"]] if y == seat else [] for y in range(n)],
        "totals": list(obs["totals"]),
    }
    located = {c for h in hands for c in h} | {c for r in reserves for c in r}
    located.update(c for _, c in state["trick"])
    located.update(c for piles in state["tricks"] for p in piles for c in p)
    located.update(c for f in state["false_tricks"] for c in f)
    if pick:
        located.add(pick)
    state = fill_unknown(state, [c for c in CARD_IDS if c not in located])
    state["log"] = log
    state["history"] = obs["rounds"]
    return base_position(config, state), None


def _bonus_queue(log: list[dict[str, Any]], n: int) -> list[int]:
    """The seats still to choose a Bonus card for the last trick's 7s (clockwise from its winner),
    less those that have chosen."""
    last = log[-1]
    winner = last["winner"]
    sevens = [winner] if any(CARD_VALUE[c] == BONUS_VALUE for c in last["trick"]) else []
    sevens += [s for s, c in last["false_tricks"] if CARD_VALUE[c] == BONUS_VALUE]
    sevens.sort(key=lambda s: (s - winner) % n)
    return sevens[len(last["bonus"]):]


def redraw(state: Any, seat: int, rng: random.Random, context: Any) -> None:
    """Each other seat's reserve drawn among the cards it would have put away.

    The engine deals the unknown cards evenly between hands and reserves, but a player builds its
    reserve from its shortest families (the void makes a false trick of its choosing): its hand
    is short of some families and its reserve full of them. Each seat's reserve is therefore
    redrawn among ``reserve_guess`` of its dealt hand (what it played this round, holds and keeps
    in reserve), where the seat's hidden cards and the follow rule's evidence allow."""
    if state.phase == "reserve" and state.reserve_step == 0:
        return
    picks = state.reserve_step if state.phase == "reserve" else RESERVE_SIZE
    for y in range(state.n):
        if y != seat and state.reserves[y]:
            _redraw_reserve(state, y, picks, rng)


def reserve_guess(dealt: list[str], picks: int) -> set[str]:
    """The first ``picks`` cards the greedy bot's rule (``reserve_pick``) puts away from ``dealt``,
    the hand in the engine's card order as the bot sees it."""
    hand = sorted(dealt, key=CARD_ORDER.__getitem__)
    chosen = set()
    for _ in range(picks):
        card = reserve_pick(hand)
        hand.remove(card)
        chosen.add(card)
    return chosen


def _redraw_reserve(state: Any, y: int, picks: int, rng: random.Random) -> None:
    known = state.known_in_hand[y]
    hidden = [c for c in state.hands[y] if c not in known]
    reserve = state.reserves[y]
    played = {c for rec in state.log for s, c in rec["plays"] if s == y}
    played.update(c for s, c in state.trick if s == y)
    dealt = played | set(state.hands[y]) | set(reserve)
    if state.picks[y] is not None:
        dealt.add(state.picks[y])
    guess = reserve_guess(list(dealt), picks)
    pool = hidden + reserve
    likely = [c for c in pool if c in guess]
    rng.shuffle(likely)
    if len(likely) < len(reserve):  # the guess is off (another rule, or cards already drawn)
        rest = [c for c in pool if c not in guess]
        rng.shuffle(rest)
        likely += rest[:len(reserve) - len(likely)]
    chosen = set(likely[:len(reserve)])
    if chosen == set(reserve):
        return
    new_hidden = [c for c in pool if c not in chosen]
    if not _dealable(new_hidden, state.hand_masks(y, len(new_hidden))):
        return  # the follow rule's evidence rules this split out: keep the engine's draw
    state.reserves[y] = likely[:len(reserve)]
    state.hands[y] = sorted(known + new_hidden, key=CARD_ORDER.__getitem__)


def _dealable(cards: list[str], masks: list[int]) -> bool:
    """Whether ``cards`` can fill slots each allowing the families in its mask (Hall's condition
    over the 16 sets of families)."""
    by_bit = [0] * 16
    for card in cards:
        by_bit[FAMILY_BIT[CARD_FAMILY[card]]] += 1
    need = [0] * 16
    for m in masks:
        need[m] += 1
    for subset in range(1, 16):
        slots = sum(need[m] for m in range(1, 16) if m & ~subset == 0)
        have = sum(by_bit[b] for b in (1, 2, 4, 8) if b & subset)
        if slots > have:
            return False
    return True



# ---------------------------------------------------------------------- playouts
WHIM = 0.2  # how often the playout policy plays at random instead
BONUS_RANK = {bonus: i for i, bonus in enumerate(BONUS_PREFERENCE)}
ORDER = CARD_ORDER.__getitem__


def card_stars(state: Any, seat: int, everyone: list[list[tuple]]) -> int:
    """The seat's stars from the Scoring card, ``everyone``'s false tricks as (value, family); a
    counting card needs only the seat's own (a quarter of ``scoring_card_stars``' work)."""
    card = state.scoring_card
    if card in ("fewest_false_tricks", "most_false_tricks"):
        return scoring_card_stars(card, everyone)[seat]
    return table_stars(SCORING_CARDS[card]["table"], card_count(card, everyone[seat]))


def round_end_choice(state: Any, seat: int, legal: list[Action]) -> Action:
    """The use of this Bonus card that gives the seat the most stars, its earlier choices applied
    and the others' false tricks as they stand (the greedy bot's rule without its lookahead over
    the later cards: ~10 times cheaper, and no observation to build). Each action's piles are the
    earlier choices' piles changed by that one action (``effective_piles`` once, not per action:
    a flip offers every card of every pile)."""
    if len(legal) == 1:
        return legal[0]
    everyone = [[(CARD_VALUE[c], CARD_FAMILY[c]) for c in pile] for pile in state.false_tricks]
    premium = "trick_premium" in state.bonus_held[seat]
    piles, fts = effective_piles(state.tricks[seat], state.false_tricks[seat], state.choices[seat])
    count = len(piles)
    mine = [(f["value"], f["family"]) for f in fts]
    ids = [f["id"] for f in fts]

    def stars(action: Action) -> int:
        kind = action["type"]
        tricks, falses = count, mine
        if kind == "flip":
            card = action["card"]
            if action["to"] == "false_trick":
                tricks = count - sum(1 for p in piles if card in p)
                falses = mine + [(CARD_VALUE[card], CARD_FAMILY[card])]
            else:
                tricks = count + 1
                falses = [f for f, i in zip(mine, ids) if i != card]
        elif kind == "wild_pile":
            if action["status"] == "trick":
                tricks = count + 1
            else:
                falses = mine + [(None, None)]
        elif kind == "variable":
            falses = mine + [(action.get("value"), action.get("family"))]
        elif kind == "adjust":
            falses = [(v + action["delta"], f) if i == action["target"] else (v, f)
                      for (v, f), i in zip(mine, ids)]
        everyone[seat] = falses
        bonus = tricks if premium else 0
        return base_stars(tricks, len(falses)) + card_stars(state, seat, everyone) + bonus

    return max(legal, key=stars)


def card_play(state: Any, seat: int, legal: list[Action]) -> Action:
    """The greedy bot's card play, read off the engine state: a card's worth is its chance to win
    the trick times what one more trick adds to the seat's stars (negative once its tricks match
    its false tricks: a pair then scores 5, not 3), plus a Bonus card's worth for a 7; off the led
    family, the false trick that adds the most stars. The chance counts the higher cards of the
    family the seat has not seen (the others' hands and reserves) and the share of them held by
    the seats still to play, as greedy does: the opponents in the tree are greedy's stand-ins."""
    trick = state.trick
    bonus_left = BONUS_WORTH if state.bonus_available else 0.0
    if trick and CARD_FAMILY[legal[0]["card"]] != CARD_FAMILY[trick[0][1]]:
        # void in the led family: a sure false trick, the one the Scoring card likes best
        everyone = [[(CARD_VALUE[c], CARD_FAMILY[c]) for c in pile] for pile in state.false_tricks]
        mine = everyone[seat]

        def stars(action: Action) -> tuple:
            card = action["card"]
            everyone[seat] = mine + [(CARD_VALUE[card], CARD_FAMILY[card])]
            seven = bonus_left if CARD_VALUE[card] == BONUS_VALUE else 0.0
            return card_stars(state, seat, everyone) + seven, -CARD_VALUE[card]

        return max(legal, key=stars)
    tricks, falses = len(state.tricks[seat]), len(state.false_tricks[seat])
    gain = base_stars(tricks + 1, falses) - base_stars(tricks, falses)
    if "trick_premium" in state.bonus_held[seat]:
        gain += 1
    n = state.n
    hands, reserves = state.hands, state.reserves
    unseen = 0
    higher = {CARD_FAMILY[a["card"]]: [0] * 13 for a in legal}  # unseen cards by value, per family
    # hands are sorted family by family (CARD_ORDER): following, only the led family's stretch of
    # each hand is read (a play is ~ a third of an iteration's time)
    span = None
    if len(higher) == 1:
        (fam,) = higher
        first = CARD_ORDER[f"{fam}-1"]
        span = (first, first + 12)
    for other in range(n):
        if other == seat:
            continue
        hand = hands[other]
        unseen += len(hand) + len(reserves[other])
        if span is not None:
            hand = hand[bisect_left(hand, span[0], key=ORDER):bisect_left(hand, span[1], key=ORDER)]
        for pile in (hand, reserves[other]):
            for card in pile:
                counts = higher.get(CARD_FAMILY[card])
                if counts is not None:
                    counts[CARD_VALUE[card]] += 1
    after = sum(len(hands[(seat + i) % n]) for i in range(1, n - len(trick)))
    keep = 1.0 - min(1.0, after / max(1, unseen))
    best_in_trick: dict[str, int] = {}
    for _, card in trick:
        fam = CARD_FAMILY[card]
        best_in_trick[fam] = max(best_in_trick.get(fam, 0), CARD_VALUE[card])

    def worth(action: Action) -> tuple:
        card = action["card"]
        fam, value = CARD_FAMILY[card], CARD_VALUE[card]
        if value < best_in_trick.get(fam, 0):
            p = 0.0
        else:
            p = keep ** sum(higher[fam][value + 1:])
        seven = bonus_left * p if value == BONUS_VALUE else 0.0
        return round(p * gain + seven, 6), -value

    return max(legal, key=worth)


def playout(state: Any, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """Put the shortest families in the reserve (voids make false tricks of one's choosing); draw
    only when the hand runs short; take a Bonus card when offered (in the greedy bot's order of
    preference: the opponents in the tree play this too); play cards as greedy does
    (``card_play``); the rest at random. Bonus cards are used at the round's end for the
    most stars (``round_end_choice``), take-backs as the greedy bot does (from an observation,
    ~1 ms, but rare): at random they throw away more stars than any card play, and drown the
    playout's outcome in noise."""
    if state.phase == "round_end":
        return round_end_choice(state, seat, legal)
    if state.phase == "take_back":
        return _greedy(state, seat, legal, rng)
    kind = legal[0]["type"]
    if kind == "draw":
        return legal[0] if len(state.hands[seat]) < 3 else legal[1]
    if kind == "take_bonus":  # the greedy bot's order (take_back, first in the engine's, last)
        return min(legal, key=lambda a: BONUS_RANK.get(a.get("bonus"), len(BONUS_RANK)))
    if rng.random() < WHIM:
        return legal[rng.randrange(len(legal))]
    if kind == "reserve":
        counts: dict[str, int] = {}
        for card in state.hands[seat]:
            counts[CARD_FAMILY[card]] = counts.get(CARD_FAMILY[card], 0) + 1
        return min(legal, key=lambda a: (counts[CARD_FAMILY[a["card"]]], rng.random()))
    if kind == "play" and len(legal) > 1:
        return card_play(state, seat, legal)
    return legal[rng.randrange(len(legal))]


def _greedy(state: Any, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """The greedy policy's choice, fed the observation the seat would get."""
    if len(legal) == 1:
        return legal[0]
    return greedy(Turn(state.config, seat, state.observation(seat), legal, rng))


def score(state: Any) -> list[float]:
    return state.totals


HOOKS = SearchHooks(
    rebuild=rebuild, redraw=redraw, score=score, score_scale=6.0, playout=playout,
    # the playout policy stands for the other seats in the tree: in 80 four-player matches against
    # greedy at 0.05 s a decision it won 28, against 24 with the greedy policy itself as the model
    model_opponents=True,
    # where a few hundred noisy playouts cannot tell good moves from bad, greedy's rule decides
    prior_weight=1.5,
    # a reserve pick (one card of twelve, judged by a whole round's playouts with three hidden hands)
    # was noise at these budgets; greedy's rule (shortest families away) won more: docs/search.md
    greedy_decisions=frozenset({"reserve"}),
)
