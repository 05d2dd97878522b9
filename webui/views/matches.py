"""A match's page and its replay on the wire.

What a user may see of a replay is the arena's one rule (arena.road.replay_visibility); this module
only ships it.

A stored replay is gzipped JSON (keyframes and deltas, ``referee/replay.py``). It goes out as it is
stored, with ``Content-Encoding: gzip``, whenever the user may see all of it; a visitor who may not
read the bots' log lines gets a copy without them, gzipped once per match and kept beside the
replay (``<replay>.shared.gz``, ``arena/road/replay_copies.py``); a bot's owner, whose copy holds their own bots' lines, gets one
gzipped on the fly. A client that does not accept gzip gets the plain JSON.

The viewer asks for the replay in two parts (``replay.json?part=...``), so that it can draw the first
step before the bulk has arrived: ``spectator``, everything but the seats' own views, with
``"seat_views": N``, how many seats have views to fetch; and ``seats``, ``{"views": [...]}``, asked
only when someone picks a seat's perspective (in a 6-seat Bszzzz match the views are most of the
file). A visitor's two parts are made beside the replay when the match is recorded
(``arena/road/replay_copies.py``), so that a first view reads a file.

A running match is followed by long polling, ``live.json`` (``webui/views/live.py``).
"""
from __future__ import annotations

import gzip
import json
import logging
from pathlib import Path

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from arena.competitions.featured import featured_match
from arena.games import card_texts
from arena.models import Match
from arena.road.replay_copies import PARTS, pack, part_copies, shared_copy, spectator_part
from arena.road.replay_visibility import NoReplay, ReplayAccess, replay_access, visible_replay

from .common import game_names

log = logging.getLogger("parlour.web")


def accepts_gzip(request) -> bool:
    return "gzip" in request.headers.get("Accept-Encoding", "")


def gzipped_json_response(request, body_gz: bytes, cache: str) -> HttpResponse:
    """A gzipped JSON body: as it is for a client that accepts gzip, else decompressed."""
    if accepts_gzip(request):
        response = HttpResponse(body_gz, content_type="application/json")
        response["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(gzip.decompress(body_gz), content_type="application/json")
    response["Vary"] = "Accept-Encoding, Cookie"
    response["Cache-Control"] = cache
    return response


def stored_as_is(access: ReplayAccess, match: Match) -> bool:
    """Whether the stored file is exactly what ``access`` sees: every log line, and no sandbox
    verdict to add (the verdicts are kept in the match's result)."""
    return access.every_log and not (match.result or {}).get("sandbox_logs")


def visible(match: Match, access: ReplayAccess) -> dict:
    """The replay as this user may see it (arena.road.replay_visibility); 404 when there is none."""
    try:
        return visible_replay(match, access)
    except NoReplay:
        raise Http404("no replay for this match") from None


def replay_gz(request, match: Match) -> bytes:
    """What this user may see of the match's replay, gzipped: the stored file, or the visitors'
    shared copy, when that is what they may see; else made for them."""
    access = replay_access(request.user, match)
    stored = Path(match.replay_path) if match.replay_path else None
    if access.released and stored is not None and stored.is_file():
        try:
            if stored_as_is(access, match):
                return stored.read_bytes()
            if not access.reads_logs:
                return shared_copy(stored).read_bytes()
        except (OSError, ValueError, EOFError) as exc:  # an unreadable file: the general road says 404
            log.warning("match %s: replay %s unreadable (%s)", match.pk, stored, exc)
    return pack(visible(match, access))


def replay_part_gz(request, match: Match, part: str) -> bytes:
    """One part of what this user may see of the replay, gzipped (see the module's docstring)."""
    access = replay_access(request.user, match)
    stored = Path(match.replay_path) if match.replay_path else None
    if access.released and stored is not None and stored.is_file():
        try:  # the seats' views are everyone's; the log lines of an owner's or staff's copy are theirs
            if part == "seats" or not access.reads_logs:
                return part_copies(stored)[part].read_bytes()
        except (OSError, ValueError, EOFError) as exc:  # an unreadable file: the general road says 404
            log.warning("match %s: replay %s unreadable (%s)", match.pk, stored, exc)
    replay = visible(match, access)
    return pack(spectator_part(replay) if part == "spectator" else {"views": replay.get("views") or []})


def tv(request):
    """Parlour TV: the live table worth watching now (``arena.competitions.featured``), shown as its
    match page; when it ends, the page moves on to the next (``tv.js``)."""
    after = request.GET.get("after", "")
    match_id = featured_match(excluding=int(after) if after.isdigit() else None)
    if match_id is None:
        return render(request, "webui/tv_idle.html")
    return match_page(request, match_id, tv=True)


def match_page(request, match_id: int, tv: bool = False):
    match = get_object_or_404(Match.objects.select_related("tournament", "round"), pk=match_id)
    seats = list(match.seats.select_related("bot_version__bot__owner", "entry"))
    has_replay = (bool(match.replay_path) and Path(match.replay_path).is_file()) or \
        match.status in Match.UNRECORDED
    return render(request, "webui/match.html", {
        "match": match, "seats": seats, "game_name": game_names().get(match.game, match.game), "has_replay": has_replay,
        # the viewer's first part, then the seats' views when a seat's perspective is picked (PARTS)
        "replay_url": reverse("replay_json", args=[match.pk]) + "?part=spectator",
        "seats_url": reverse("replay_json", args=[match.pk]) + "?part=seats",
        "download_url": reverse("replay_download", args=[match.pk]),
        "live_url": reverse("live_json", args=[match.pk]) if match.status in Match.UNRECORDED else "",
        "result_json": json.dumps(match.result, indent=1, sort_keys=True) if match.result else "",
        "card_texts": card_texts(match.game),
        # the seats of this user's bots: the viewer offers the replay-decide command at their steps
        "own_seats": ",".join(str(s.seat) for s in seats if s.bot_version.bot.owner_id == request.user.pk
                              and request.user.is_authenticated),
        "replay_file": f"match-{match.pk}.replay.json.gz",
        "tv": tv,
    })


def replay_json(request, match_id: int):
    match = get_object_or_404(Match, pk=match_id)
    finished = match.status == Match.FINISHED
    part = request.GET.get("part")
    if part is not None and part not in PARTS:
        raise Http404("part must be spectator or seats")
    body = replay_part_gz(request, match, part) if part else replay_gz(request, match)
    return gzipped_json_response(request, body, "private, max-age=60" if finished else "private, no-store")


def replay_download(request, match_id: int):
    match = get_object_or_404(Match, pk=match_id)
    response = HttpResponse(replay_gz(request, match), content_type="application/gzip")
    response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.replay.json.gz"'
    response["Cache-Control"] = "private, no-store"
    return response
