"""The onboarding pages: the quickstart, the guides, and a page per game (rules summary, the
observation and action a bot receives, the house bots' strength). The texts are the repository's
own (``arena.onboarding``), rendered from Markdown with raw HTML off."""
from __future__ import annotations

import json

from django.http import FileResponse, Http404
from django.shortcuts import render
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt

from arena import onboarding
from arena.games import example_decision, game_choices
from arena.starter_kit import KIT_NAME, example_game, starter_kit
from arena.people.tables import table_choices

_markdown = MarkdownIt("commonmark", {"html": False}).enable("table")


def markdown(text: str) -> str:
    """Markdown to HTML; raw HTML in the text is escaped, never passed through."""
    return mark_safe(_markdown.render(text))  # html=False: the renderer escapes everything


def learn(request):
    text = onboarding.quickstart()
    return render(request, "webui/learn.html", {
        "quickstart": markdown(text) if text else None, "games": game_choices(), "guides": onboarding.GUIDES.items(),
        "example_game": example_game(),
    })


def learn_guide(request, name: str):
    text = onboarding.guide(name)
    if text is None:
        raise Http404("no such guide")
    return render(request, "webui/learn_doc.html", {"title": onboarding.GUIDES[name], "body": markdown(text)})


def learn_game(request, game: str):
    names = dict(game_choices())
    if game not in names:
        raise Http404("unknown game")
    rules = onboarding.rules(game)
    return render(request, "webui/learn_game.html", {
        "game": game, "game_name": names[game], "rules": markdown(rules) if rules else None,
        "proto": onboarding.proto(game), "proto_name": onboarding.proto_name(game),
        "house": onboarding.house_strength(game), "table": table_choices(game),
        "example": json.dumps(example_decision(game), indent=2, ensure_ascii=False),
    })


def starter_kit_download(request):
    """The starter kit: the SDK's wheel, an example bot and a README (``arena.starter_kit``)."""
    return FileResponse(starter_kit().open("rb"), as_attachment=True, filename=KIT_NAME,
                        content_type="application/zip")
