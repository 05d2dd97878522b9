"""Playout policies: how every seat plays after the tree, until the horizon.

Uniformly random play models nobody: in Bszzzz! random seats spend their swatters on anything and
keep cards a real player sheds, so a search that believes it plays badly. Each game's policy here
is a cheap rule of thumb (a few attribute reads on the engine state, no observation built), the
rest is random. The search's own copy of the state is read directly: it is the bot's, not the
referee's.
"""
from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable
from typing import Any

from referee.games.bszzzz.data import SWATTER
from referee.games.bszzzz.engine import swat_value
from referee.games.tricky_twist.data import BONUS_VALUE, CARD_FAMILY, CARD_ORDER, CARD_VALUE, SCORING_CARDS
from referee.games.tricky_twist.engine import (
    base_stars,
    card_count,
    effective_piles,
    scoring_card_stars,
    table_stars,
)
from referee.games.tussie_mussie.scoring import score_arrangement

from ..bot import Bot
from ..decision import Decision
from ..greedy import greedy_bot_class
from ..greedy.tricky_twist import BONUS_PREFERENCE, BONUS_WORTH

Action = dict[str, Any]
Policy = Callable[[Any, int, list[Action], random.Random], Action]

SHED = 0.8  # Bszzzz!: how often a seat that may pass sheds a card instead
WORTH_TAKING = 1.5  # Tussie Mussie: what a face-up tile must add to be taken over the unknown one
WHIM = 0.2  # how often a rule-of-thumb policy plays at random instead
BONUS_RANK = {bonus: i for i, bonus in enumerate(BONUS_PREFERENCE)}  # Tricky Twist
ORDER = CARD_ORDER.__getitem__


def random_policy(state: Any, seat: int, legal: list[Action], rng: random.Random) -> Action:
    return legal[rng.randrange(len(legal))]


def bszzzz_policy(state: Any, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """Swat a trick worth a point to this seat; otherwise mostly shed a trick card; else pass."""
    _, cards, may_pass = state._legal_for(seat)
    trick = state.trick
    swatter = None
    others = []
    for action, card in zip(legal, cards):
        if card.kind == SWATTER:
            swatter = swatter or action
        else:
            others.append(action)
    if swatter is not None and trick and swat_value(state.colours[seat], [c for _, c in trick]) >= 1:
        return swatter
    if others and (not may_pass or rng.random() < SHED):
        return others[rng.randrange(len(others))]
    return legal[-1] if may_pass else legal[rng.randrange(len(legal))]


def _card_stars(state: Any, seat: int, everyone: list[list[tuple]]) -> int:
    """The seat's stars from the Scoring card, ``everyone``'s false tricks as (value, family); a
    counting card needs only the seat's own (a quarter of ``scoring_card_stars``' work)."""
    card = state.scoring_card
    if card in ("fewest_false_tricks", "most_false_tricks"):
        return scoring_card_stars(card, everyone)[seat]
    return table_stars(SCORING_CARDS[card]["table"], card_count(card, everyone[seat]))


def _round_end_choice(state: Any, seat: int, legal: list[Action]) -> Action:
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
        return base_stars(tricks, len(falses)) + _card_stars(state, seat, everyone) + bonus

    return max(legal, key=stars)


def _tricky_twist_play(state: Any, seat: int, legal: list[Action]) -> Action:
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
            return _card_stars(state, seat, everyone) + seven, -CARD_VALUE[card]

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


def tricky_twist_policy(state: Any, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """Put the shortest families in the reserve (voids make false tricks of one's choosing); draw
    only when the hand runs short; take a Bonus card when offered (in the greedy bot's order of
    preference: the opponents in the tree play this too); play cards as greedy does
    (``_tricky_twist_play``); the rest at random. Bonus cards are used at the round's end for the
    most stars (``_round_end_choice``), take-backs as the greedy bot does (from an observation,
    ~1 ms, but rare): at random they throw away more stars than any card play, and drown the
    playout's outcome in noise."""
    if state.phase == "round_end":
        return _round_end_choice(state, seat, legal)
    if state.phase == "take_back":
        return _tricky_twist_greedy(state, seat, legal)
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
        return _tricky_twist_play(state, seat, legal)
    return legal[rng.randrange(len(legal))]


def tussie_mussie_policy(state: Any, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """The greedy bot's rules: take the face-up tile when it adds enough to the arrangement; offer
    face up the tile worth less to keep (face down); the rest at random."""
    kind = legal[0]["type"]
    if kind not in ("take", "offer") or rng.random() < WHIM:
        return legal[rng.randrange(len(legal))]
    columns = [None if c is None else (c[0], c[1]) for c in state.hands[seat]]
    honeysuckle = state.honeysuckle

    def value(extra: tuple[str, str] | None) -> int:
        return score_arrangement(columns + [extra] if extra else columns, honeysuckle=honeysuckle)[0]

    if kind == "take":
        gain = value((state.offer["face_up"], "bouquet")) - value(None)
        return legal[0] if gain >= WORTH_TAKING else legal[1]
    return min(legal, key=lambda a: value((a["face_up"], "keepsakes")))


def greedy_choice(bot: Bot, state: Any, seat: int, legal: list[Action]) -> Action:
    """``bot``'s decision for ``seat`` in ``state``, fed the observation its seat would get."""
    c = state.config
    return bot.decide(Decision(game=c.game, variant=c.variant, seat=seat, players=c.players,
                               options=dict(c.options), legal_actions=legal,
                               _observe=lambda: state.observation(seat)))


def _tricky_twist_greedy(state: Any, seat: int, legal: list[Action]) -> Action:
    if len(legal) == 1:
        return legal[0]
    return greedy_choice(_TRICKY_TWIST_GREEDY, state, seat, legal)


_TRICKY_TWIST_GREEDY = greedy_bot_class("tricky-twist")()  # stateless: it reads only its decision


def opponent_model(game: str) -> Policy | None:
    """How the other seats play in the tree (``ismcts.search(model_opponents=True)``), or None
    where they search for themselves: the playout policy, where it is good enough to stand for a
    player. In Tricky Twist it replaced the greedy bot itself (fed observations: a quarter of an
    iteration's time), and won more at the same budget: 28 of 80 four-player matches against
    greedy at 0.05 s a decision, against 24 with the greedy model. In Misty no model helped."""
    if game in ("tussie-mussie", "bszzzz", "tricky-twist"):
        return POLICIES[game]
    return None


POLICIES: dict[str, Policy] = {
    "tussie-mussie": tussie_mussie_policy,
    "bszzzz": bszzzz_policy,
    "tricky-twist": tricky_twist_policy,
}
