"""The referee's API-token verifier, backed by the arena's hashed tokens.

Start a referee with ``--token-verifier arena.fleet.token_verifier:verify``; the referee imports
nothing of the platform itself (docs/architecture.md), it is handed this callable.
"""
from __future__ import annotations

import os


def verify(token: str) -> str | None:
    """The bot id (``"bot-<pk>"``) a live token belongs to, or None."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour_site.settings")
    django.setup()
    from ..models import ApiToken

    found = (ApiToken.objects.select_related("bot")
             .filter(token_hash=ApiToken.hash(token), revoked__isnull=True, bot__active=True).first())
    return f"bot-{found.bot_id}" if found else None
