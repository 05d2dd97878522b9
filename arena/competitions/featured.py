"""Parlour TV's pick: the table worth watching now. Among the matches being played (their frames
published live), the one whose seats are the strongest on their game's standard ladder (the mean
of μ − 3σ, a seat without a rating counting 0), the newest on a tie: as chess sites feature their
highest-rated game. It needs nothing of the games, so every game is featured alike."""
from __future__ import annotations

import logging

from ..models import Match, Rating
from ..road.live_frames import playing_now
from .ladder import standard_ladder

log = logging.getLogger("parlour.arena")


def featured_match(excluding: int | None = None) -> int | None:
    """The id of the live match to feature (not ``excluding``, the one just watched, when another
    plays), or None when nothing is being played or Redis cannot be asked."""
    try:
        live = playing_now()
    except Exception as exc:  # noqa: BLE001 - Redis down: nothing to feature, the page says so
        log.warning("could not read the live matches: %s", exc)
        return None
    matches = list(Match.objects.filter(pk__in=live, status=Match.RUNNING).prefetch_related("seats"))
    if len(matches) > 1:
        matches = [m for m in matches if m.pk != excluding]
    if not matches:
        return None
    wanted = {(standard_ladder(m.game), s.bot_version_id) for m in matches for s in m.seats.all()}
    ratings = {(r.ladder, r.bot_version_id): r.conservative
               for r in Rating.objects.filter(bot_version_id__in={v for _, v in wanted},
                                              ladder__in={ladder for ladder, _ in wanted})}

    def strength(match: Match) -> tuple[float, int]:
        seats = match.seats.all()
        mean = sum(ratings.get((standard_ladder(match.game), s.bot_version_id), 0.0) for s in seats) / max(1, len(seats))
        return mean, match.pk

    return max(matches, key=strength).pk
