"""Tricky Twist's cards and tables, as rules.md gives them."""
from __future__ import annotations

# --- Number cards: values 1-12 in four families; the 7 of each family carries the Bonus icon.
FAMILIES: tuple[str, ...] = ("moon", "sun", "rain", "smile")  # the rulebook's ☽ ☀ ☔ ☺
VALUES: tuple[int, ...] = tuple(range(1, 13))
BONUS_VALUE = 7

# Ids are fixed per physical copy ("moon-7"), never positions; the order here is the canonical one.
CARD_IDS: tuple[str, ...] = tuple(f"{f}-{v}" for f in FAMILIES for v in VALUES)
CARD_FAMILY: dict[str, str] = {f"{f}-{v}": f for f in FAMILIES for v in VALUES}
CARD_VALUE: dict[str, int] = {f"{f}-{v}": v for f in FAMILIES for v in VALUES}
CARD_ORDER: dict[str, int] = {c: i for i, c in enumerate(CARD_IDS)}

RESERVE_SIZE = 5

# --- Scoring cards: stars by count n (the last entry applies to every larger count).
# `framed` decides which face the variable Bonus cards show.
RUN_TABLE = (0, 0, 2, 4, 7, 10, 14)                # n = 0, 1, 2, ... 6+
TWO_FAMILIES_TABLE = (0, 1, 3, 5, 8, 11, 14)
MOST_COMMON_TABLE = (0, 0, 1, 3, 6, 10, 15)
FAMILY_COUNT_TABLE = (0, 1, 3, 6, 10)
PARITY_TABLE = (0, 1, 2, 4, 6, 9, 12)
RANK_TABLE = (12, 7, 3, 0)                         # 1st, 2nd, 3rd, 4th

SCORING_CARDS: dict[str, dict] = {
    "longest_run": {"framed": True, "table": RUN_TABLE,
                    "text": "longest run of consecutive false-trick values"},
    "families_moon_sun": {"framed": False, "table": TWO_FAMILIES_TABLE, "families": ("moon", "sun"),
                          "text": "false tricks of moon, or of sun (your choice)"},
    "families_rain_smile": {"framed": False, "table": TWO_FAMILIES_TABLE,
                            "families": ("rain", "smile"),
                            "text": "false tricks of rain, or of smile (your choice)"},
    "most_common_family": {"framed": False, "table": MOST_COMMON_TABLE,
                           "text": "false tricks of your most common family"},
    "family_count": {"framed": False, "table": FAMILY_COUNT_TABLE,
                     "text": "families among your false tricks"},
    "fewest_false_tricks": {"framed": False, "table": RANK_TABLE,
                            "text": "fewest false tricks: 12, 7, 3, 0 stars"},
    "most_false_tricks": {"framed": False, "table": RANK_TABLE,
                          "text": "most false tricks (at least one): 12, 7, 3, 0 stars"},
    "even_values": {"framed": True, "table": PARITY_TABLE, "text": "false tricks of even value"},
    "odd_values": {"framed": True, "table": PARITY_TABLE, "text": "false tricks of odd value"},
}
SCORING_CARD_IDS: tuple[str, ...] = tuple(SCORING_CARDS)

# --- Bonus cards. Permanent ones are the same every round; a variable card shows its unframed or
# framed face, matching the round's Scoring card.
PERMANENT_BONUS: tuple[str, ...] = ("take_back", "flip", "wild_pile", "trick_premium")
VARIABLE_BONUS: tuple[str, ...] = ("var_1", "var_2", "var_3", "var_4")
BONUS_IDS: tuple[str, ...] = PERMANENT_BONUS + VARIABLE_BONUS

# Unframed faces: a false trick of one of two families (chosen at round end), no value.
VARIABLE_FAMILIES: dict[str, tuple[str, str]] = {
    "var_1": ("moon", "sun"),
    "var_2": ("rain", "smile"),
    "var_3": ("moon", "rain"),
    "var_4": ("sun", "smile"),
}
# Framed faces: var_1-3 a false trick of a chosen value, no family; var_4 adjusts a false trick.
VARIABLE_VALUES: dict[str, tuple[int, ...]] = {
    "var_1": (1, 3, 5, 7, 9, 11),
    "var_2": (2, 4, 6, 8, 10, 12),
    "var_3": VALUES,
}
ADJUST_BONUS = "var_4"

# What labels call each Bonus card (the rulebook names none: ours, said in words, never the id)
BONUS_NAME: dict[str, str] = {
    "take_back": "the Take Back Bonus card",
    "flip": "the Flip Bonus card",
    "wild_pile": "the Wild Pile Bonus card",
    "trick_premium": "the Trick Premium Bonus card",
    **{f"var_{n}": f"the Variable {n} Bonus card" for n in range(1, 5)},
}

BONUS_TEXT: dict[str, str] = {
    "take_back": "return one of your false tricks to your hand, at once",
    "flip": "at round end, turn one of your tricks into a false trick, or back",
    "wild_pile": "counts as one trick or one false trick, no value, no family",
    "trick_premium": "+1 star per trick you hold",
}
