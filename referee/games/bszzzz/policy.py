"""The greedy policy for Bszzzz!: swat any trick worth points to it, otherwise shed the cards that
would cost most at round end while giving the others as little as possible to swat.

It decides from the observation and the legal actions only (plus the engine's pure scoring rules,
through ``swat_value``)."""
from __future__ import annotations

from typing import Any

from ..hooks import Turn
from .data import CARDS, PEST, SWATTER, USEFUL, WEB
from .engine import swat_value

PASS = {"type": "pass"}
# How much a pest we lead is worth to whoever swats it, against the penalty it sheds from our hand.
GIFT = 0.5
# A swat is worth a swatter when it scores at least this much.
SWAT_AT = 1


def greedy(turn: Turn) -> dict[str, Any]:
    legal = turn.legal
    plays = [a for a in legal if a["type"] == "play"]
    if not plays:
        return legal[0]
    obs = turn.observation
    colour = obs["colour"]
    trick = [CARDS[t["card"]["id"]] for t in obs["trick"]]
    cards = [CARDS[a["card"]] for a in plays]

    # 1. Swat a trick that pays (the first swatter in priority takes it; the others are spent).
    if trick:
        mine = swat_value(colour, trick)
        swatters = [a for a, c in zip(plays, cards) if c.kind == SWATTER]
        if swatters and mine >= SWAT_AT:
            return swatters[0]
    else:
        mine = 0

    # What the best-placed opponent would score by swatting the trick now.
    others = [c for c in obs["colours"] if c != colour]
    theirs = max((swat_value(o, trick) for o in others), default=0) if trick else 0

    # 2. Otherwise shed a trick card: its penalty leaves our hand, minus what it hands the others.
    best, best_score = None, float("-inf")
    for action, card in zip(plays, cards):
        if card.kind == SWATTER:
            continue
        score = float(card.penalty)
        if card.kind == PEST:
            # on top of the trick, it makes the trick (and everything under it) a target
            after = trick + [card]
            gift = max(swat_value(o, after) for o in others)
            score -= GIFT * max(gift, 0)
            if card.colour != colour:
                score += 0.25 * swat_value(colour, after)  # we may swat it ourselves later
        elif card.kind == USEFUL:
            # a useful insect on top leaves a swatter only the (negative) insects
            score += 0.5 * max(theirs, 0) - 0.5 * max(mine, 0)
        elif card.kind == WEB:
            # a web discards the trick: good when it would pay the others, bad when it would pay us
            score += 0.5 * theirs - 1.0 * max(mine, 0)
        if score > best_score:
            best, best_score = action, score
    if best is None:
        return PASS if PASS in legal else legal[0]
    if PASS in legal and best_score <= 0:
        return PASS
    return best
