"""The greedy policy for Tricky Twist.

It decides from the observation and the legal actions only. The idea of the game is balance: the
round's stars are mostly 1 per trick plus 3 (or 5 when equal) per [trick + false trick] pair, so
the bot values a trick or a false trick by how much it moves that score, plus the Scoring card's
stars for a false trick's value and family. A card played off the led family is a sure false
trick of the bot's choosing, so the reserve is built to make voids (the shortest families put
away) and is drawn from only when the hand runs short.
"""
from __future__ import annotations

from typing import Any

from ..hooks import Turn
from .data import BONUS_VALUE, CARD_FAMILY, CARD_VALUE
from .engine import base_stars, effective_piles, scoring_card_stars

FAMILIES = ("moon", "sun", "rain", "smile")
ALL_CARDS = [f"{f}-{v}" for f in FAMILIES for v in range(1, 13)]
BONUS_PREFERENCE = ("wild_pile", "flip", "var_3", "var_1", "var_2", "var_4", "trick_premium",
                    "take_back")
BONUS_WORTH = 4.0   # what recovering a 7 is worth while a Bonus card is left (a rough guess)
DRAW_BELOW = 3      # draw from the reserve when the hand holds fewer cards than this


def family(card: str) -> str:
    return card.split("-")[0]


def value(card: str) -> int:
    return int(card.split("-")[1])


def reserve_pick(hand: list[str]) -> str:
    """The card the greedy rule puts away from ``hand``: one of the shortest family (voids make
    sure false tricks), keeping 7s and high cards; ties go to the first in ``hand``'s order.
    (The search bot guesses the other seats' reserves with this same rule.)"""
    counts = dict.fromkeys(FAMILIES, 0)
    for card in hand:
        counts[CARD_FAMILY[card]] += 1
    return min(hand, key=lambda c: (counts[CARD_FAMILY[c]], CARD_VALUE[c] == BONUS_VALUE, CARD_VALUE[c]))


def greedy(turn: Turn) -> dict[str, Any]:
    actions = turn.legal
    if len(actions) == 1:
        return actions[0]
    kind = actions[0]["type"]
    obs = turn.observation
    if kind == "reserve":
        return pick_reserve(obs, actions)
    if kind == "draw":
        return actions[0] if len(obs["hand"]) < DRAW_BELOW else actions[1]
    if kind == "play":
        return play(obs, actions)
    if kind in ("take_bonus", "no_bonus"):
        return take_bonus(actions)
    if kind in ("take_back", "no_take_back"):
        return take_back(obs, actions)
    return round_end(obs, actions)


# ---------------------------------------------------------------------- evaluation
def my_piles(obs: dict[str, Any]) -> tuple[int, list[tuple]]:
    seat = obs["seat"]
    tricks = len(obs["tricks"][seat])
    falses = [(c["value"], c["family"]) for c in obs["false_tricks"][seat]]
    return tricks, falses


def round_value(obs: dict[str, Any], tricks: int, falses: list[tuple],
                premium: bool = False) -> float:
    """The bot's stars if the round ended with these piles (the others' as they stand)."""
    seat = obs["seat"]
    everyone = [[(c["value"], c["family"]) for c in f] for f in obs["false_tricks"]]
    everyone[seat] = falses
    card = scoring_card_stars(obs["scoring_card"]["id"], everyone)[seat]
    return base_stars(tricks, len(falses)) + card + (tricks if premium else 0)


# ---------------------------------------------------------------------- decisions
def pick_reserve(obs: dict[str, Any], actions: list[dict]) -> dict:
    return {"type": "reserve", "card": reserve_pick([a["card"] for a in actions])}


def play(obs: dict[str, Any], actions: list[dict]) -> dict:
    seat = obs["seat"]
    premium = "trick_premium" in obs["bonus"]["held"][seat]
    tricks, falses = my_piles(obs)
    now = round_value(obs, tricks, falses, premium)
    trick_gain = round_value(obs, tricks + 1, falses, premium) - now
    bonus_left = BONUS_WORTH if obs["bonus"]["available"] else 0.0
    played = obs["trick"]
    led = played[0]["card"]["family"] if played else None
    cards = [a["card"] for a in actions]
    following = led is not None and family(cards[0]) == led
    unseen = unseen_cards(obs)
    after = [(seat + i) % obs["players"] for i in range(1, obs["players"] - len(played))]
    in_hands = sum(obs["hand_counts"][s] for s in after)
    share = min(1.0, in_hands / max(1, len(unseen)))

    def p_win(card: str) -> float:
        best = max((p["card"]["value"] for p in played
                    if p["card"]["family"] == family(card)), default=0)
        if value(card) < best:
            return 0.0
        higher = sum(1 for c in unseen if family(c) == family(card) and value(c) > value(card))
        return (1.0 - share) ** higher

    def worth(card: str) -> float:
        if led is not None and not following:  # off the led family: a sure false trick
            gain = round_value(obs, tricks, falses + [(value(card), family(card))], premium) - now
            return gain + (bonus_left if value(card) == 7 else 0.0)
        p = p_win(card)
        seven = bonus_left * p if value(card) == 7 else 0.0
        return p * trick_gain + seven

    # best worth; ties keep high cards for later (play the lowest)
    best = max(cards, key=lambda c: (round(worth(c), 6), -value(c)))
    return {"type": "play", "card": best}


def unseen_cards(obs: dict[str, Any]) -> list[str]:
    """Cards the bot has not seen: not in its hand or reserve, never played this round."""
    seen = {c["id"] for c in obs["hand"]} | {c["id"] for c in obs["reserve"]}
    seen |= {p["card"]["id"] for p in obs["trick"]}
    for rec in obs["log"]:
        seen |= {p["card"]["id"] for p in rec["plays"]}
    return [c for c in ALL_CARDS if c not in seen]


def take_bonus(actions: list[dict]) -> dict:
    offered = {a.get("bonus"): a for a in actions}
    for bonus in BONUS_PREFERENCE:
        if bonus in offered:
            return offered[bonus]
    return actions[-1]


def take_back(obs: dict[str, Any], actions: list[dict]) -> dict:
    """Return the false trick whose loss costs least, if the round is better without it."""
    seat = obs["seat"]
    premium = "trick_premium" in obs["bonus"]["held"][seat]
    tricks, falses = my_piles(obs)
    best, best_value = actions[-1], round_value(obs, tricks, falses, premium)
    if not obs["hand"]:
        best_value -= 1.0  # an empty hand ends the round: a card back keeps it going
    for action in actions[:-1]:
        rest = list(falses)
        card = action["card"]
        rest.remove((value(card), family(card)))
        worth = round_value(obs, tricks, rest, premium)
        if value(card) == 7 and obs["bonus"]["available"]:
            worth += 1.0
        if worth > best_value:
            best, best_value = action, worth
    return best


def round_end(obs: dict[str, Any], actions: list[dict]) -> dict:
    """Try each choice, the later steps chosen greedily after it; keep the best."""
    seat = obs["seat"]
    premium = "trick_premium" in obs["bonus"]["held"][seat]
    tricks = [[c["id"] for c in pile] for pile in obs["tricks"][seat]]
    falses = [c["id"] for c in obs["false_tricks"][seat]]
    done = list(obs["my_choices"])
    steps = obs["round_end_steps"][len(done):]

    def score(choices: list[dict]) -> float:
        piles, fts = effective_piles(tricks, falses, choices)
        return round_value(obs, len(piles), [(f["value"], f["family"]) for f in fts],
                                premium)

    def complete(choices: list[dict], remaining: list[str]) -> float:
        for bonus in remaining:
            options = step_options(obs, bonus, tricks, falses, choices)
            choices = choices + [max(options, key=lambda a: score(choices + [a]))]
        return score(choices)

    return max(actions, key=lambda a: complete(done + [a], steps[1:]))


def step_options(obs: dict[str, Any], bonus: str, tricks: list[list[str]],
                 falses: list[str], choices: list[dict]) -> list[dict]:
    """The actions a later round-end step will offer (as the engine lists them)."""
    options: list[dict] = [{"type": "decline", "bonus": bonus}]
    piles, fts = effective_piles(tricks, falses, choices)
    framed = obs["bonus"]["face"] == "framed"
    if bonus == "flip":
        options += [{"type": "flip", "card": c, "to": "false_trick"} for p in piles for c in p]
        options += [{"type": "flip", "card": f["id"], "to": "trick"}
                    for f in fts if "-" in f["id"]]
    elif bonus == "wild_pile":
        options += [{"type": "wild_pile", "status": "trick"},
                    {"type": "wild_pile", "status": "false_trick"}]
    elif not framed:
        pairs = {"var_1": ("moon", "sun"), "var_2": ("rain", "smile"),
                 "var_3": ("moon", "rain"), "var_4": ("sun", "smile")}
        options += [{"type": "variable", "bonus": bonus, "family": f} for f in pairs[bonus]]
    elif bonus == "var_4":
        options += [{"type": "adjust", "target": f["id"], "delta": d} for f in fts
                    if f["value"] is not None for d in (-1, 1) if 1 <= f["value"] + d <= 12]
    else:
        values = {"var_1": range(1, 12, 2), "var_2": range(2, 13, 2), "var_3": range(1, 13)}
        options += [{"type": "variable", "bonus": bonus, "value": v} for v in values[bonus]]
    return options
