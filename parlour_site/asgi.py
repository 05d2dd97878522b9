"""The ASGI application, for ``python -m webui serve`` (gunicorn running uvicorn workers) or any other
ASGI server: the live viewers' long polls are asynchronous views (webui/views/live.py), the pages
synchronous ones that Django runs in a thread each; a body larger than the site reads is refused
before Django reads it (webui/body_limit.py)."""
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour_site.settings")
application = get_asgi_application()

from webui.body_limit import BodyLimit  # noqa: E402 - after Django is set up by the line above

application = BodyLimit(application)
