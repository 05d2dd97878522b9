"""No request body larger than the site ever needs is read: a request whose ``Content-Length``
passes ``PARLOUR_UPLOAD_LIMIT`` (an uploaded bot, the largest body the site takes) plus room for
the form's other fields is answered 413 before any of its body is read, before the session, the
CSRF check or the view. A body without a length (chunked) Django reads as empty."""
from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

FORM_ROOM = 64 * 1024  # the multipart boundaries and the upload form's other fields


def body_limit() -> int:
    return settings.PARLOUR_UPLOAD_LIMIT + FORM_ROOM


class BodyLimit:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        declared = request.META.get("CONTENT_LENGTH") or "0"
        try:
            length = int(declared)
        except ValueError:
            return HttpResponse("a Content-Length that is not a number\n", status=400, content_type="text/plain")
        if length > body_limit():
            # no Content-Length on it (the middleware that would add one is inside this one): gunicorn
            # closes the connection after it, rather than draining the unread body to reuse it
            return HttpResponse(f"the request's body is {length} bytes, more than the {body_limit()} this "
                                f"site reads (an uploaded bot may be {settings.PARLOUR_UPLOAD_LIMIT // 1024} KiB)\n",
                                status=413, content_type="text/plain")
        return self.get_response(request)
