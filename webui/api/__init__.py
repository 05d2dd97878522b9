"""Parlour's HTTP API, ``/api/v1/`` (docs/api.md): django-ninja endpoints over the same queries and
visibility rules as the site's pages (webui/views/), never a second copy of them. The OpenAPI
document is ``/api/v1/openapi.json``, rendered at ``/api/v1/docs``."""
from __future__ import annotations

from .site_api import api

__all__ = ["api"]
