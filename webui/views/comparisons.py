"""Comparisons, from a bot's page: its owner asks whether A is stronger than B (two of its versions
or the house bots; arena.competitions.comparison_requests), and follows the figures on the
comparison's page."""
from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from arena.bots.house_entrants import house_specs, house_version
from arena.competitions.comparison_requests import start_comparison
from arena.models import Bot, BotVersion, Comparison

from .common import game_names, owned_bot_or_403, owner_only, private_bot_or_404


def compare_choices(bot: Bot) -> list[tuple[int, str]]:
    """What an owner may compare: the bot's active versions and the game's house bots."""
    own = [(v.pk, f"{bot.name} v{v.number}") for v in bot.versions.filter(state=BotVersion.ACTIVE).order_by("-number")]
    return own + [(house_version(bot.game, spec).pk, f"house {spec}") for spec in house_specs(bot.game)]


@owner_only
@require_POST
def comparison_start(request, bot_id: int):
    bot = owned_bot_or_403(request, bot_id)
    allowed = {pk for pk, _ in compare_choices(bot)}
    try:
        a, b = (int(request.POST.get(side, "")) for side in ("a", "b"))
        if a not in allowed or b not in allowed:
            raise ValueError("choose A and B among this bot's versions and the house bots")
        versions = BotVersion.objects.select_related("bot").in_bulk([a, b])
        settings_given = {key: float(request.POST[key]) for key in ("elo1",) if request.POST.get(key)}
        if request.POST.get("max_games"):
            settings_given["max_games"] = int(request.POST["max_games"])
        comparison = start_comparison(request.user, bot, versions[a], versions[b], **settings_given)
    except (ValueError, KeyError) as exc:
        messages.error(request, f"Comparison not started: {exc}")
        return redirect("bot", bot_id=bot.pk)
    return redirect("comparison", comparison_id=comparison.pk)


@owner_only
def comparison_page(request, comparison_id: int):
    comparison = get_object_or_404(Comparison.objects.select_related("bot", "a__bot", "b__bot"), pk=comparison_id)
    private_bot_or_404(request, comparison.bot_id)
    return render(request, "webui/comparison.html", {
        "comparison": comparison, "rows": comparison_rows(comparison.figures),
        "game_name": game_names().get(comparison.game, comparison.game),
        "live": comparison.status in (Comparison.SCHEDULED, Comparison.RUNNING),
    })


def comparison_rows(figures: dict | None) -> list[tuple[str, str]]:
    """The figures as (label, text); an Elo of null in the figures is infinite (one side won every game)."""
    if not figures:
        return []

    def elo(value: float | None, sign: str) -> str:
        return f"{value:+.1f}" if value is not None else f"{sign}∞"

    score, e, llr, bounds = figures["score"], figures["elo"], figures["llr"], figures["bounds"]
    return [
        ("Games", f"{figures['games']} ({figures['pairs']} pairs)"),
        ("A won / drew / lost", f"{figures['wins']} / {figures['draws']} / {figures['losses']}"),
        ("Pairs scoring 0, ¼, ½, ¾, 1 for A", " ".join(str(n) for n in figures["pentanomial"])),
        ("Score of A (95 % interval)", f"{score['value']:.3f} [{score['low']:.3f}, {score['high']:.3f}]"),
        ("Elo A − B (95 % interval)", f"{elo(e['value'], '+' if score['value'] > 0.5 else '−')} "
                                      f"[{elo(e['low'], '−')}, {elo(e['high'], '+')}]"),
        ("LLR A / B (bounds)", f"{llr['A']:+.3f} / {llr['B']:+.3f} [{bounds['lower']:.3f}, {bounds['upper']:.3f}]"),
    ]
