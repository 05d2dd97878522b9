"""Comparisons, from a bot's page: its owner asks whether A is stronger than B (any two of its
accepted versions, earlier ones included, or the house bots; arena.competitions.comparison_requests),
follows it on the comparison's page (progress, the SPRT's position between its bounds, its games),
reads the verdict in words, and may cancel it."""
from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from arena.bots.house_entrants import house_specs, house_version
from arena.competitions.comparison_requests import cancel_comparison, start_comparison
from arena.models import Bot, BotVersion, Comparison, Match

from ..forms import ComparisonForm
from .common import game_names, match_rows, owned_bot_or_403, owner_only, private_bot_or_404, seats_prefetch

GAMES_LISTED = 20  # the comparison's latest games linked from its page


def version_label(version: BotVersion) -> str:
    """"name v2" for a version of an author's bot, "house greedy" for a house bot."""
    return f"house {version.bot.name}" if version.bot.kind == Bot.HOUSE else f"{version.bot.name} v{version.number}"


def compare_choices(bot: Bot) -> list[tuple[int, str]]:
    """What an owner may compare: the bot's accepted versions, the newest first (earlier ones stay,
    retired by a newer upload: "is v2 better than v1?"), and the game's house bots."""
    own = [(v.pk, f"{bot.name} v{v.number}" + (" (earlier)" if v.state == BotVersion.RETIRED else ""))
           for v in bot.versions.filter(state__in=(BotVersion.ACTIVE, BotVersion.RETIRED)).order_by("-number")]
    return own + [(house_version(bot.game, spec).pk, f"house {spec}") for spec in house_specs(bot.game)]


@owner_only
@require_POST
def comparison_start(request, bot_id: int):
    bot = owned_bot_or_403(request, bot_id)
    form = ComparisonForm(compare_choices(bot), request.POST)
    if not form.is_valid():
        messages.error(request, f"Comparison not started: {form.problems()}")
        return redirect("bot", bot_id=bot.pk)
    versions = BotVersion.objects.select_related("bot").in_bulk([form.cleaned_data["a"], form.cleaned_data["b"]])
    try:
        comparison = start_comparison(request.user, bot, versions[form.cleaned_data["a"]],
                                      versions[form.cleaned_data["b"]], elo1=form.cleaned_data["elo1"],
                                      max_games=form.cleaned_data["max_games"])
    except ValueError as exc:  # what the driver refuses beyond the form's bounds
        messages.error(request, f"Comparison not started: {exc}")
        return redirect("bot", bot_id=bot.pk)
    return redirect("comparison", comparison_id=comparison.pk)


@owner_only
@require_POST
def comparison_cancel(request, comparison_id: int):
    comparison = get_object_or_404(Comparison, pk=comparison_id)
    private_bot_or_404(request, comparison.bot_id)
    if cancel_comparison(comparison):
        messages.info(request, "The comparison is cancelled: it stops before its next game.")
    return redirect("comparison", comparison_id=comparison.pk)


@owner_only
def comparison_page(request, comparison_id: int):
    comparison = get_object_or_404(Comparison.objects.select_related("bot", "a__bot", "b__bot"), pk=comparison_id)
    private_bot_or_404(request, comparison.bot_id)
    games = Match.objects.filter(key__startswith=f"compare/{comparison.pk}/")
    return render(request, "webui/comparison.html", {
        "comparison": comparison, "rows": comparison_rows(comparison.figures),
        "a_label": version_label(comparison.a), "b_label": version_label(comparison.b),
        "verdict": verdict_words(comparison), "progress": progress(comparison),
        "games": match_rows(seats_prefetch(games.order_by("-pk"))[:GAMES_LISTED]), "games_count": games.count(),
        "game_name": game_names().get(comparison.game, comparison.game),
        "live": comparison.status in (Comparison.SCHEDULED, Comparison.RUNNING),
    })


def elo_words(figures: dict, sign: int = 1) -> str:
    """"+38 Elo ± 21" (the 95 % interval's half width), from A's side (sign 1) or B's (-1)."""
    elo = figures["elo"]
    if elo["value"] is None:
        return "it won every game" if sign * (figures["score"]["value"] - 0.5) > 0 else "it lost every game"
    value = sign * elo["value"]
    if elo["low"] is None or elo["high"] is None:
        return f"{value:+.0f} Elo"
    return f"{value:+.0f} Elo ± {(elo['high'] - elo['low']) / 2:.0f}"


def verdict_words(comparison: Comparison) -> str:
    """The outcome as a sentence: "mine v2 is stronger than mine v1: +38 Elo ± 21"."""
    a, b, figures = version_label(comparison.a), version_label(comparison.b), comparison.figures
    games = figures["games"] if figures else 0
    if comparison.status == Comparison.CANCELLED:
        return f"Cancelled after {games} game{'' if games == 1 else 's'}."
    if comparison.status == Comparison.FAILED:
        return "It stopped on an error (below)."
    if comparison.status != Comparison.FINISHED or not figures:
        return ""
    if comparison.verdict == "A":
        return f"{a} is stronger than {b}: {elo_words(figures)}"
    if comparison.verdict == "B":
        return f"{b} is stronger than {a}: {elo_words(figures, -1)}"
    why = (f"after {games} games, the most asked" if figures.get("stopped") == "cap"
           else f"neither is {comparison.elo1:g} Elo stronger")
    return f"No difference shown between {a} and {b} ({why}): {a} {elo_words(figures)}"


def progress(comparison: Comparison) -> dict[str, Any] | None:
    """Where a comparison stands: its games out of the most, and each side's SPRT between its
    bounds as a share of the way from "no" (0) to "stronger" (1)."""
    figures = comparison.figures
    if not figures:
        return None
    lower, upper = figures["bounds"]["lower"], figures["bounds"]["upper"]

    def share(llr: float) -> int:
        return round(100 * min(1.0, max(0.0, (llr - lower) / (upper - lower))))

    return {"games": figures["games"], "max_games": comparison.max_games,
            "games_percent": round(100 * figures["games"] / max(1, comparison.max_games)),
            "sides": [{"label": label, "llr": figures["llr"][side], "percent": share(figures["llr"][side])}
                      for side, label in (("A", version_label(comparison.a)), ("B", version_label(comparison.b)))],
            "lower": lower, "upper": upper}


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
