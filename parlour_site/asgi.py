"""The ASGI application, for ``python -m webui serve`` (gunicorn running uvicorn workers) or any other
ASGI server: the live viewers' long polls are asynchronous views (webui/views/live.py), the pages
synchronous ones that Django runs in a thread each; a body larger than the site reads is refused
before Django reads it (webui/body_limit.py)."""
import os

import django
from asgiref.sync import iscoroutinefunction
from django.core.handlers.asgi import ASGIHandler
from django.urls import Resolver404, get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour_site.settings")
django.setup(set_prefix=False)

from webui.body_limit import BodyLimit  # noqa: E402 - its settings need Django set up


class Site(ASGIHandler):
    """Django's ASGI handler, but a request for an asynchronous view gets no thread of its own.

    Django gives each request a context whose synchronous work (the request signals' receivers, a
    synchronous view) runs in a thread made for it and kept until the request ends: a viewer's long
    poll, though it waits as a coroutine, would keep an idle thread for the whole wait. A request
    routed to an asynchronous view runs without that context instead: the little synchronous work it
    has (closing stale database connections, a match's status) runs in asgiref's one shared thread.
    """

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and asynchronous_view(scope["path"]):
            await self.handle(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)


def asynchronous_view(path: str) -> bool:
    try:
        return iscoroutinefunction(get_resolver().resolve(path).func)
    except Resolver404:
        return False


application = BodyLimit(Site())
