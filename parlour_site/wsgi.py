"""The WSGI application, for a WSGI server; ``python -m webui serve`` serves the ASGI one (parlour_site.asgi),
where a live viewer's long poll holds no thread."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour_site.settings")
application = get_wsgi_application()
