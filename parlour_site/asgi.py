"""The ASGI application, for ``python -m webui serve`` (gunicorn running uvicorn workers) or any other
ASGI server: the live viewers' long polls wait in the event loop (webui/views/live.py; live.json is
answered ahead of Django's handler), the pages are synchronous views that Django runs in a thread
each; a body larger than the site reads is refused before Django reads it (webui/body_limit.py)."""
import os

import django
from asgiref.sync import iscoroutinefunction
from django.core.handlers.asgi import ASGIHandler
from django.urls import Resolver404, ResolverMatch, get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour_site.settings")
django.setup(set_prefix=False)

from django.db import connections  # noqa: E402

from webui.body_limit import BodyLimit  # noqa: E402 - its settings need Django set up
from webui.views.live import serve_live  # noqa: E402


# asynchronous views that keep Django's thread per request: a person's table wakes with work to do
# (their session, the seat, the match: a few queries), which fifty people at once would otherwise
# queue in the one shared thread; a person waiting costs an idle thread, people being few beside viewers
OWN_THREAD = {"table_state"}


class Site(ASGIHandler):
    """Django's ASGI handler, but live.json answered ahead of it (webui/views/live.py), and a request
    for an asynchronous view given no thread of its own.

    Django gives each request a context whose synchronous work (the request signals' receivers, a
    synchronous view) runs in a thread made for it and kept until the request ends: a viewer's long
    poll, though it waits as a coroutine, would keep an idle thread for the whole wait. A request
    routed to an asynchronous view runs without that context instead: the little synchronous work it
    has (closing stale database connections, a match's status) runs in asgiref's one shared thread.
    """

    async def __call__(self, scope, receive, send) -> None:
        route = resolve(scope["path"]) if scope["type"] == "http" else None
        if route is not None and route.url_name == "live_json" and scope["method"] == "GET":
            await serve_live(scope, send, route.kwargs["match_id"])
        elif route is not None and iscoroutinefunction(route.func) and route.url_name not in OWN_THREAD:
            await self.handle(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)


def resolve(path: str) -> ResolverMatch | None:
    try:
        return get_resolver().resolve(path)
    except Resolver404:
        return None


def close_connections_after_each_request() -> None:
    """A synchronous request runs in a thread made for it, so a database connection kept for reuse
    (CONN_MAX_AGE) would be left open with that thread: hundreds of requests, hundreds of idle
    PostgreSQL connections ("too many clients"). Here each request closes its own."""
    for alias in connections.settings:
        connections.settings[alias]["CONN_MAX_AGE"] = 0


close_connections_after_each_request()
application = BodyLimit(Site())
