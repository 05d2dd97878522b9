"""Who calls the HTTP API: the holder of a personal access token (``Authorization: Bearer plt_…``,
arena.models.AccessToken), or a visitor without one, who sees what the site's pages show anyone.

A token that is unknown or revoked is refused with 401 at once, whatever the endpoint; a token
used beyond its scopes gets 403. Requests are throttled per token (per address for visitors).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.utils import timezone
from ninja.errors import AuthenticationError, AuthorizationError
from ninja.security import HttpBearer
from ninja.throttling import SimpleRateThrottle

from arena.models import AccessToken

LAST_USED_EVERY = timedelta(minutes=1)  # a token's "last used" is written at most this often


@dataclass(frozen=True)
class Caller:
    """The token (None: a visitor) and the user it acts as (``AnonymousUser`` for a visitor)."""

    user: object
    token: AccessToken | None = None

    def __str__(self) -> str:  # the throttle's key
        return f"token-{self.token.pk}" if self.token else "visitor"

    def require(self, scope: str) -> None:
        """Refuse the request unless the caller holds a token with ``scope``."""
        if self.token is None:
            raise AuthenticationError(401, f"this needs an access token with the {scope!r} scope: create one on "
                                           "the site (Access tokens) and send it as 'Authorization: Bearer <token>'")
        if scope not in self.token.scopes:
            raise AuthorizationError(403, f"this token lacks the {scope!r} scope (it has: "
                                          f"{', '.join(self.token.scopes) or 'none'}): create a token with it")


class TokenAuth(HttpBearer):
    """ninja's auth for every endpoint: a live token, or no Authorization header at all (a visitor)."""

    def __call__(self, request: HttpRequest) -> Caller | None:
        if not request.headers.get(self.header):
            found = Caller(AnonymousUser())
        else:
            found = super().__call__(request)
            if found is None:
                raise AuthenticationError(401, "the Authorization header must be 'Bearer <token>'")
        # the shared page code (the replay's visibility) asks request.user: the token's owner, never
        # a session cookie (the API takes no cookie, so it needs no CSRF token)
        request.user = found.user
        return found

    def authenticate(self, request: HttpRequest, token: str) -> Caller:
        found = AccessToken.holder(token.strip())
        if found is None:
            raise AuthenticationError(401, "this access token is unknown or revoked: create a new one on the site "
                                           "(Access tokens)")
        now = timezone.now()
        if found.last_used is None or now - found.last_used > LAST_USED_EVERY:
            AccessToken.objects.filter(pk=found.pk).update(last_used=now)
        return Caller(found.owner, found)


def caller(request: HttpRequest) -> Caller:
    return request.auth  # set by TokenAuth before any endpoint runs


class TokenThrottle(SimpleRateThrottle):
    """``PARLOUR_API_RATE`` requests per token, or per address for visitors; in the site's cache."""

    scope = "api"

    def __init__(self) -> None:
        super().__init__(settings.PARLOUR_API_RATE)

    def allow_request(self, request: HttpRequest) -> bool:
        self.rate = settings.PARLOUR_API_RATE  # read per request: the tests change it
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request)

    def get_cache_key(self, request: HttpRequest) -> str:
        who = getattr(request, "auth", None)
        ident = str(who) if who is not None and who.token is not None else f"address-{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}
