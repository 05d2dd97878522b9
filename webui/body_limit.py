"""No request body larger than the site ever needs is read: a request whose ``Content-Length``
passes ``PARLOUR_UPLOAD_LIMIT`` (an uploaded bot, the largest body the site takes) plus room for
the form's other fields is answered 413 before any of its body is read. It wraps the ASGI
application (parlour_site/asgi.py), not Django's middleware: Django's ASGI handler reads the whole
body before the first middleware runs. A body without a length (chunked) is read as it comes."""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings

FORM_ROOM = 64 * 1024  # the multipart boundaries and the upload form's other fields

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]


def body_limit() -> int:
    return settings.PARLOUR_UPLOAD_LIMIT + FORM_ROOM


def refusal(declared: bytes) -> tuple[int, str] | None:
    """(status, text) for a declared body length the site does not read; None when it may."""
    try:
        length = int(declared)
    except ValueError:
        return 400, "a Content-Length that is not a number\n"
    if length > body_limit():
        return 413, (f"the request's body is {length} bytes, more than the {body_limit()} this site reads "
                     f"(an uploaded bot may be {settings.PARLOUR_UPLOAD_LIMIT // 1024} KiB)\n")
    return None


class BodyLimit:
    """The ASGI application ``app`` behind the limit."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            declared = dict(scope["headers"]).get(b"content-length", b"0")
            refused = refusal(declared)
            if refused is not None:
                status, text = refused
                # and the connection closed: its unread body is never drained to reuse it
                await send({"type": "http.response.start", "status": status,
                            "headers": [(b"content-type", b"text/plain"), (b"connection", b"close")]})
                await send({"type": "http.response.body", "body": text.encode()})
                return
        await self.app(scope, receive, send)
