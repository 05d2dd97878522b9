"""Django settings for Parlour: SQLite by default, PostgreSQL when DATABASE_URL is set.

Every environment variable of the platform's processes is declared once, with its type, default and
doc, by the referee (``referee/settings.py``), the arena (``arena/settings.py``) and the web
(``webui/settings.py``); this module reads those declarations once, makes each variable a Django
setting of the same name (code reads ``django.conf.settings.PARLOUR_...``, never ``os.environ``) and
derives Django's own settings from them. docs/settings.md lists them all.

Secrets and the database live outside the repository tree (``PARLOUR_HOME``, default
``~/.parlour``), where no uploaded bot can read them.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path

import dj_database_url

from .declared import DJANGO_DECLARATIONS, as_django_settings

BASE_DIR = Path(__file__).resolve().parent.parent
# lower-case names: Django takes only the upper-case ones as settings
declared = [declaration.from_environ() for declaration in DJANGO_DECLARATIONS]
referee, arena, web = declared
for environment in declared:
    globals().update(as_django_settings(environment))
arena.home.mkdir(parents=True, exist_ok=True)


def _secret_key() -> str:
    if web.secret_key:
        return web.secret_key
    path = arena.home / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()


def _seed_key() -> bytes:
    """``PARLOUR_SEED_KEY``, else a key made once and kept in ``PARLOUR_HOME/seed_key`` (mode 0600):
    the one-machine default's tournament and bot seeds are keyed too, never the public derivation
    anyone could search (the commands pass it to the referee they start: arena.fleet.processes)."""
    if referee.seed_key:
        return referee.seed_key
    path = arena.home / "seed_key"
    if not path.exists():
        # written whole under a name of its own, with its mode from the start, then linked into place:
        # two commands starting at once agree on the first key linked, and never read half of one
        draft = arena.home / f".seed_key.{os.getpid()}"
        with os.fdopen(os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as made:
            made.write(secrets.token_urlsafe(32))
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_text().strip().encode()


PARLOUR_SEED_KEY = _seed_key()
DEBUG = web.debug
ALLOWED_HOSTS = web.allowed_hosts

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "axes",
    "ninja",  # the HTTP API (webui/api/): its rendered docs' static files
    "arena",
    "webui",
]

# every one serves synchronous and asynchronous views alike: a synchronous-only middleware would
# put each request, a live viewer's long poll included, in a thread for as long as it lasts
# (an oversized body is refused before Django reads it: webui/body_limit.py wraps the ASGI application)
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "webui.static_files.StaticFiles",  # the static files (WhiteNoise), from the site's own process
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks
]

ROOT_URLCONF = "parlour_site.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]
WSGI_APPLICATION = "parlour_site.wsgi.application"

DATABASES = {
    "default": dj_database_url.parse(arena.database_url or f"sqlite:///{arena.home / 'parlour.sqlite3'}",
                                     conn_max_age=60)
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # several workers write at once: wait for the lock, take it at the start of a transaction (a
    # deferred one that later writes fails at once with "database is locked"), and let readers
    # read while a writer writes (WAL)
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        timeout=30, transaction_mode="IMMEDIATE",
        init_command="PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "webui.game_assets.GameAssetsFinder",  # each game's viewer renderer and styles, from its package
]
STATIC_ROOT = arena.home / "static"  # `python -m webui serve` collects the static files here first
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # collectstatic writes a gzipped copy beside each file, which WhiteNoise sends to clients that
    # accept gzip. Unhashed names (no manifest) so the site also runs before any collectstatic.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
STATIC_ROOT.mkdir(exist_ok=True)
# until the files are collected (tests, `manage.py runserver`), WhiteNoise serves the apps' own
WHITENOISE_USE_FINDERS = DEBUG or not any(STATIC_ROOT.iterdir())
# --- accounts: login throttling (django-axes) and the Content Security Policy (django-csp) ------
AUTHENTICATION_BACKENDS = [
    "webui.throttle.WebLoginThrottle",  # first: a locked-out login is refused before any password check
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = web.login_failures
AXES_COOLOFF_TIME = web.login_cooloff_hours  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]  # one account from one address
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "webui/locked.html"
# the site serves every script and style from its own static files (no inline code, no
# handler attributes): anything else is refused by the browser
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# --- the platform ---------------------------------------------------------------------------
# how long a match may take, its visibility timeout and the task's hard limit: arena.road.time_limits
# (from the time control and the decision cap; PARLOUR_MATCH_TIME_LIMIT caps it)

CELERY_BROKER_URL = arena.redis_url
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # how often workers look for unacknowledged tasks past the visibility timeout (a killed worker's)
    "unacked_restore_interval": arena.restore_interval,
    "unacked_restore_throttle": arena.restore_throttle,
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
