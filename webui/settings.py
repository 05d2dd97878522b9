"""The web's settings: every environment variable the site's own code reads, declared once with its
type, default and one line of doc (docs/settings.md is generated from it).

The web is a Django process: ``parlour_site/settings.py`` reads this declaration once, derives
Django's own settings from it (secret key, debug, allowed hosts, login throttling) and makes each
variable a Django setting of the same name, so views read ``django.conf.settings.PARLOUR_...``
(tests override one with pytest-django's ``settings`` fixture).
"""
from __future__ import annotations

import environ


def _hosts(value: str | list[str]) -> list[str]:
    return value.split(",") if isinstance(value, str) else value


@environ.config(prefix="PARLOUR")
class WebEnvironment:
    """The web (`python -m webui serve`: gunicorn running uvicorn workers serving the Django site)."""

    secret_key: str = environ.var("", name="DJANGO_SECRET_KEY",
                                  help="Django's secret key (unset: one made once and kept in PARLOUR_HOME/secret_key)")
    debug: bool = environ.bool_var(False, name="DJANGO_DEBUG", help="Django's debug pages (never in production)")
    allowed_hosts: list[str] = environ.var("127.0.0.1,localhost,testserver", converter=_hosts,
                                           name="DJANGO_ALLOWED_HOSTS",
                                           help="comma-separated host names the site answers to")
    public_referee: str = environ.var("localhost:50051", help="the referee address remote bots are told to use "
                                                              "(`make demo` sets its own)")
    upload_limit: int = environ.var(256 * 1024, converter=int, help="bytes of an uploaded bot's file or zip")
    uploads_per_hour: int = environ.var(10, converter=int, help="bot uploads per account per hour")
    challenges_per_hour: int = environ.var(20, converter=int, help="challenges per account per hour")
    api_rate: str = environ.var("120/min", help="HTTP API requests per access token (per address without one), "
                                                "as count/period (s, min, h): beyond it the API answers 429")
    live_wait: float = environ.var(2.0, converter=float,
                                   help="seconds a live viewer's long poll waits for the next frames")
    login_failures: int = environ.var(5, converter=int,
                                      help="failed logins of one account from one address before a lock-out")
    login_cooloff_hours: float = environ.var(0.25, converter=float, help="hours a lock-out lasts")
    web_workers: int = environ.var(2, converter=int, help="web worker processes (each an event loop: "
                                                          "live viewers wait in it, pages run in threads)")
