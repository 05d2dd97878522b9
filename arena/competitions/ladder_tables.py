"""The ladders as people read them: a game's ladder keys, a page of a ladder's table ranked and
sorted (the site's ladder page), every row of one (``python -m arena ladder show``).

A version is on its ladder's page while its bot is active and not deleted; its rank there is one
plus the number of ratings shown above it (an index range count per row of the page, never a sort
of the whole ladder).
"""
from __future__ import annotations

from django.db.models import Case, Count, F, FloatField, OuterRef, Q, QuerySet, Subquery, Value, When
from django.db.models.functions import Cast, Coalesce

from ..models import Rating

# the columns a ladder page sorts by: their order, ties broken by the following keys
SORTS = {
    "rank": ("-conservative_rating", "bot_version__bot__name"),
    "bot": ("bot_version__bot__name", "bot_version__number"),
    "owner": ("bot_version__bot__owner__username", "rank"),
    "conservative": ("-conservative_rating", "bot_version__bot__name"),
    "mu": ("-mu", "rank"),
    "sigma": ("sigma", "rank"),
    "fit": ("-fit_elo", "rank"),
    "games": ("-games", "rank"),
    "win_rate": ("-win_rate", "rank"),
}


def ladder_keys(game: str) -> list[str]:
    """The game's ladders with ratings, by a skip scan of the (ladder, ...) index: one seek per
    ladder, where a DISTINCT would read every rating of the game."""
    keys: list[str] = []
    after = f"{game}/"
    while True:
        key = (Rating.objects.filter(ladder__gt=after, ladder__lt=f"{game}0").order_by("ladder")
               .values_list("ladder", flat=True).first())  # "0" follows "/": the end of the prefix
        if key is None:
            return keys
        keys.append(key)
        after = key


def parse_sort(asked: str) -> tuple[str, bool]:
    """A page's ``sort`` (a column of ``SORTS``, ``-`` first for the other way) as (column,
    descending); the rank, ascending, for anything else."""
    column = (asked or "rank").lstrip("-")
    if column not in SORTS:
        return "rank", False
    return column, (asked or "").startswith("-")


def _shown(ladder: str) -> Q:
    return Q(ladder=ladder, bot_version__bot__active=True, bot_version__bot__deleted=None)  # off the ladder when off


def shown_count(ladder: str) -> int:
    """How many versions a ladder's page shows (the ratings alone: a count over the rows' joins
    costs 10x more)."""
    return Rating.objects.filter(_shown(ladder)).count()


def ranked_rows(ladder: str, column: str, descending: bool = False) -> QuerySet:
    """The ladder's shown ratings, ranked, in the page's order: plain values (slice it for a
    page), formatted by the caller — model instances cost more than the queries on a page of 25."""
    order = list(SORTS[column])
    if descending:
        first = order[0]
        order[0] = first[1:] if first.startswith("-") else f"-{first}"
    above = (Rating.objects.filter(_shown(ladder), conservative__gt=OuterRef("conservative")).order_by()
             .values("ladder").annotate(n=Count("pk")).values("n"))
    return (Rating.objects.filter(_shown(ladder))
            .annotate(conservative_rating=F("conservative"),
                      win_rate=Case(When(games=0, then=Value(0.0)),
                                    default=Cast("wins", FloatField()) / Cast("games", FloatField()),
                                    output_field=FloatField()),
                      rank=Coalesce(Subquery(above), 0) + 1)
            .order_by(*order, "pk")
            .values("rank", "conservative_rating", "mu", "sigma", "fit_elo", "fit_low", "fit_high", "games", "win_rate",
                    "bot_version__number",
                    "bot_version__bot_id", "bot_version__bot__name", "bot_version__bot__owner__username"))


def ladder_rows(ladder: str) -> list[dict]:
    """The ladder: every rated version, best conservative rating (mu - 3 sigma) first."""
    rows = []
    for r in Rating.objects.filter(ladder=ladder).select_related("bot_version__bot__owner"):
        bot = r.bot_version.bot
        rows.append({"bot": bot.name, "version": r.bot_version.number, "owner": bot.owner.username if bot.owner else "",
                     "conservative": r.conservative, "mu": r.mu, "sigma": r.sigma, "games": r.games,
                     "win_rate": r.wins / r.games if r.games else 0.0,
                     "fit": None if r.fit_elo is None else [r.fit_elo, r.fit_low, r.fit_high]})
    return sorted(rows, key=lambda row: -row["conservative"])
