"""Login throttling: django-axes counts failed logins per account and address and refuses more
after ``AXES_FAILURE_LIMIT`` until the cool-off ends (parlour_site/settings.py).

Only logins through the site are throttled: a login with no request (a management command,
Django's test client) has no address to count, and is left to the next backend.
"""
from __future__ import annotations

from axes.backends import AxesStandaloneBackend


class WebLoginThrottle(AxesStandaloneBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
