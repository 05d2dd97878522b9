"""The bot page's record (versions, ratings and the rating chart, head to head, results, recent
matches) rendered once and cached, keyed by a stamp that changes with everything it shows; the
viewer's own parts (the owner's switches, tokens, webhooks, forms with their CSRF tokens) are drawn
around it on every request (webui/views/bots.py).

The stamp, read before anything the record shows (what is cached under it is at least as new):
- the game's ladder edition (arena.competitions.ladder_editions): a new one on every rating change,
  recorded rated match, bot saved or deleted (a rename, its switches), owner renamed — the names of
  every bot the record shows (its opponents play the same game) and of their owners;
- the bot's own row and its owner's name, and whether the viewer owns it;
- its versions' rows: an upload, a verdict;
- the latest seat of each version: a new match of the bot, rated or not, a version's check match;
- the asked ladder.
The recent matches' statuses can change without any of these (a match claimed, requeued): the
cached entry keeps them and a hit compares them with the database's (one read by primary key).
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.contrib.auth import get_user_model
from django.db import connection
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from arena.competitions import ladder_editions
from arena.models import Bot, BotVersion, LadderEdition, Match, MatchSeat


def page_stamp(bot_id: int, viewer_id: int | None, asked: str) -> tuple[str, bool] | None:
    """The stamp of the bot's page as the viewer (a user's id; None: anonymous) sees it, and whether
    the viewer owns the bot (``webui.views.common.owns``); None: no such bot. One read: raw SQL, as
    the ORM's building of the same query costs more than the database's answer."""
    quote = connection.ops.quote_name
    tables = {name: quote(model._meta.db_table) for name, model in
              (("bot", Bot), ("user", get_user_model()), ("edition", LadderEdition), ("version", BotVersion),
               ("seat", MatchSeat))}
    columns = [f.column for f in Bot._meta.concrete_fields]  # named: a table's own order may differ
    bot_columns = ", ".join(f"b.{quote(c)}" for c in columns)
    version_columns = ", ".join(f"v.{quote(f.column)}" for f in BotVersion._meta.concrete_fields)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {bot_columns}, u.username, (SELECT e.token FROM {tables['edition']} e WHERE e.game = b.game), {version_columns},"
            # per version: its latest seat, a seek in the seats' (bot_version, id) index
            f" (SELECT s.id FROM {tables['seat']} s WHERE s.bot_version_id = v.id ORDER BY s.id DESC LIMIT 1)"
            f" FROM {tables['bot']} b LEFT JOIN {tables['user']} u ON u.id = b.owner_id"
            f" LEFT JOIN {tables['version']} v ON v.bot_id = b.id WHERE b.id = %s ORDER BY v.number", [bot_id])
        rows = cursor.fetchall()
    if not rows:
        return None
    owner = rows[0][columns.index("owner_id")]
    is_owner = viewer_id is not None and owner is not None and owner == viewer_id
    edition_at = len(columns) + 1
    if rows[0][edition_at] is None:  # a game nobody changed yet gets its first edition
        edition = ladder_editions.current(rows[0][columns.index("game")])
        rows = [(*row[:edition_at], edition, *row[edition_at + 1:]) for row in rows]
    return hashlib.sha256(repr((bot_id, is_owner, asked, rows)).encode()).hexdigest(), is_owner


def cached_record(stamp: str, build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """What the page shows under ``stamp`` but the viewer's own parts: ``build()`` makes the
    context (``bot``, ``versions``, ``recent``: the match rows, ...) when nothing fresh is cached.
    Returns ``bot``, ``versions`` (as read when cached: the stamp holds all their columns) and the
    record's HTML as ``record_html``."""
    key = f"bot-record-html:{stamp}"
    entry = cache.get(key)
    if entry is not None and entry["statuses"]:  # a finished match is final: only the others are read
        now = dict(Match.objects.filter(pk__in=list(entry["statuses"])).values_list("pk", "status"))
        if now != entry["statuses"]:
            entry = None
    if entry is None:
        context = build()
        # a plain str: a SafeString is pickled through its class's reduction, ~10x slower to load
        entry = {"html": str(render_to_string("webui/_bot_record.html", context)),
                 "bot": context["bot"], "versions": context["versions"],
                 "statuses": {row["match"].pk: row["match"].status for row in context["recent"]
                              if row["match"].status != Match.FINISHED}}
        cache.set(key, entry, 3600)
    return {"record_html": mark_safe(entry["html"]), "bot": entry["bot"], "versions": entry["versions"]}
