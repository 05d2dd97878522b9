"""A challenge, from a bot's page: its owner plays it now against the opponents picked (an unrated
match, opened live; arena.competitions.challenges), within an hourly quota."""
from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from arena.competitions.challenges import ChallengeError, recent_challenges, start_challenge
from arena.games import solo_variants
from arena.models import Bot

from ..forms import ChallengeForm
from .common import owned_bot_or_403, owner_only, quota_text

def challenge_context(user, bot: Bot) -> dict:
    """What the bot page needs to offer a challenge (owner only)."""
    return {"challenge_form": ChallengeForm(user, bot, initial={"opponents": ["house:random"]}),
            "solo_variants": solo_variants(bot.game),
            "challenge_limited": quota_text(recent_challenges(user), settings.PARLOUR_CHALLENGES_PER_HOUR, "challenges")}


@owner_only
@require_POST
def challenge(request, bot_id: int):
    """Play the bot now against the opponents picked: an unrated match, opened live."""
    bot = owned_bot_or_403(request, bot_id)
    limited = quota_text(recent_challenges(request.user), settings.PARLOUR_CHALLENGES_PER_HOUR, "challenges")
    form = ChallengeForm(request.user, bot, request.POST)
    if limited:
        messages.error(request, f"Challenge not started: {limited}.")
        return redirect("bot", bot_id=bot.pk)
    if not form.is_valid():
        problems = "; ".join(f"{field}: {' '.join(errors)}" for field, errors in form.errors.items())
        messages.error(request, f"Challenge not started: {problems}")
        return redirect("bot", bot_id=bot.pk)
    try:
        match = start_challenge(request.user, bot, form.cleaned_data["opponents"], form.cleaned_data["variant"])
    except ChallengeError as exc:
        messages.error(request, f"Challenge not started: {exc}")
        return redirect("bot", bot_id=bot.pk)
    return redirect("match", match_id=match.pk)
