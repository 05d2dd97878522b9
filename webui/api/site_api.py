"""The ``NinjaAPI`` object: its auth (webui.api.auth), throttle, routers and error bodies — every
error is JSON with a ``message`` a person can act on (``{"message": ..., "errors": [...]}`` for
invalid input)."""
from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import HttpError, Throttled, ValidationError

from . import bots, challenges, games, ladders, matches, tournaments
from .auth import TokenAuth, TokenThrottle

api = NinjaAPI(title="Parlour API", version="1", urls_namespace="api_v1", auth=TokenAuth(),
               throttle=[TokenThrottle()], openapi_url="/openapi.json", docs_url="/docs",
               description="Bots, versions and their check reports, ladders, tournaments, matches and their "
                           "replays. Send a personal access token (the site's **Access tokens** page) as "
                           "`Authorization: Bearer <token>`; without one you see what the site's pages show "
                           "anyone. Every error is a JSON body with a `message`.")
for module in (games, bots, ladders, tournaments, matches, challenges):
    api.add_router("", module.router)


def message(request: HttpRequest, text: str, status: int, **extra) -> HttpResponse:
    return api.create_response(request, {"message": text, **extra}, status=status)


@api.exception_handler(HttpError)
def http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    if isinstance(exc, Throttled):
        return message(request, "too many requests for this token (PARLOUR_API_RATE): retry after the seconds "
                                "the Retry-After header says", 429)
    return message(request, exc.message, exc.status_code)


@api.exception_handler(ValidationError)
def invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    where = "; ".join(f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}" for e in exc.errors)
    return message(request, f"invalid request: {where}", 422, errors=exc.errors)


@api.exception_handler(Http404)
def not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return message(request, str(exc) or "not found", 404)


@api.exception_handler(PermissionDenied)
def refused(request: HttpRequest, exc: PermissionDenied) -> HttpResponse:
    return message(request, str(exc) or "not allowed", 403)
