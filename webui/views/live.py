"""Running matches followed by long polling: ``GET /matches/<id>/live.json?from=N`` answers the
public frames from step N on as soon as there are any, else after at most ``PARLOUR_LIVE_WAIT`` seconds
an empty list, from the frames the arena keeps in Redis (``arena/road/live_frames.py``).

A waiting viewer is a coroutine in the worker's event loop (``python -m webui serve`` runs uvicorn
workers), not a thread: the viewers waiting in one process share one Redis subscription
(``arena.road.live_frames.await_frames``), so a thousand viewers wait while the pages (synchronous
views, each run in a thread of its own by Django's ASGI handler) answer as usual. live.json, read
once a frame by every viewer, is answered ahead of Django's handler (``serve_live``, routed by
parlour_site/asgi.py): the same answer as the Django view ``live_json`` (the one for a test client or
a WSGI server), without the middleware a public JSON answer does not need. The API's live endpoint
(webui/api/matches.py) is an asynchronous view sharing ``live_body``. Long polling rather than
Server-Sent Events: it passes every proxy as plain requests, and a viewer who left holds nothing
past its last poll.

The match's status is read from the database at most once a second per process, whatever the
number of its viewers (``Statuses``), and again when the match's end is announced.
"""
from __future__ import annotations

import asyncio
import logging
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connection
from django.http import Http404, HttpResponse

from arena.models import Match
from arena.road.live_frames import await_frames

log = logging.getLogger("parlour.web")

STATUS_SECONDS = 1.0  # how stale a running match's status may be (the end is announced, so read at once)


def read_status(match_id: int) -> str | None:
    """The match's status, or None when there is no such match; the database connection is let go
    at once, not held while the viewer waits."""
    try:
        return Match.objects.filter(pk=match_id).values_list("status", flat=True).first()
    finally:
        if not connection.in_atomic_block:  # (a test's transaction keeps its connection)
            connection.close()


class Statuses:
    """Each match's status, read once per ``STATUS_SECONDS`` in this process for all its viewers:
    the first viewer to find it stale reads it, the others wait for that read."""

    def __init__(self) -> None:
        self.held: dict[int, tuple[float, asyncio.Future]] = {}

    async def get(self, match_id: int, fresh: bool = False) -> str | None:
        loop = asyncio.get_running_loop()
        held = self.held.get(match_id)
        if not fresh and held and held[0] > loop.time() and held[1].get_loop() is loop:
            await asyncio.wait([held[1]])  # not shield: this viewer leaving must not cancel the read
            if not held[1].cancelled():
                return held[1].result()
        return await self.read(match_id, loop)

    async def read(self, match_id: int, loop: asyncio.AbstractEventLoop) -> str | None:
        if len(self.held) > 10_000:  # matches long over
            self.held = {m: h for m, h in self.held.items() if h[0] > loop.time()}
        future = loop.create_future()
        self.held[match_id] = (loop.time() + STATUS_SECONDS, future)
        try:
            status = await sync_to_async(read_status)(match_id)
        except BaseException:
            self.held.pop(match_id, None)
            future.cancel()  # the viewers waiting for it read it themselves
            raise
        future.set_result(status)
        return status


statuses = Statuses()


async def live_body(match_id: int, start: int) -> bytes:
    """``{"status", "first", "frames"}`` as JSON: the frames from step ``start`` on, waiting up to
    ``PARLOUR_LIVE_WAIT`` seconds for some while the match plays (the live page's, the API's)."""
    status = await statuses.get(match_id)
    if status is None:
        raise Http404("no such match")
    first, frames = start, []
    if status in Match.UNRECORDED:
        try:
            first, frames, ended = await await_frames(match_id, start, settings.PARLOUR_LIVE_WAIT)
        except Exception as exc:  # noqa: BLE001 - Redis down: the page keeps asking, the match goes on
            log.warning("match %s: no live frames (%s)", match_id, exc)
            ended = False
        if ended:
            status = await statuses.get(match_id, fresh=True) or status
    # the frames as kept (JSON), spliced in unparsed
    return b'{"status":"%s","first":%d,"frames":[%s]}' % (status.encode(), first, b",".join(frames))


def start_step(query: str) -> int:
    """The ``from`` of a query string (Http404 when it is not a step number)."""
    try:
        return max(0, int(parse_qs(query).get("from", ["0"])[-1]))
    except ValueError:
        raise Http404("from must be a step number") from None


async def serve_live(scope: dict, send, match_id: int) -> None:
    """live.json as an ASGI endpoint, ahead of Django's handler (parlour_site/asgi.py): the same
    answer as ``live_json`` without the middleware, the request signals and their thread hops, which
    cost a page's worth for a public JSON answer read once a frame by every viewer (25 times the
    time of the answer itself, measured)."""
    try:
        status, body = 200, await live_body(match_id, start_step(scope["query_string"].decode("latin-1")))
    except Http404 as exc:
        status, body = 404, str(exc).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json" if status == 200 else b"text/plain"),
                            (b"content-length", b"%d" % len(body)), (b"cache-control", b"no-store"),
                            (b"x-content-type-options", b"nosniff")]})
    await send({"type": "http.response.body", "body": body})


def live_response(body: bytes) -> HttpResponse:
    response = HttpResponse(body, content_type="application/json")
    response["Cache-Control"] = "no-store"
    return response


async def live_json(request, match_id: int) -> HttpResponse:
    """A running match's public frames from step ``from`` on (long polling): ``{"status", "first",
    "frames"}``, ``first`` being the step of the first frame returned. Once the match is recorded,
    ``status`` says so and the whole replay is at ``replay.json``."""
    return live_response(await live_body(match_id, start_step(request.META.get("QUERY_STRING", ""))))
