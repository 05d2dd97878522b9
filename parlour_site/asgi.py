"""The ASGI application, for an ASGI server (the site's views are synchronous; WSGI is the default)."""
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour_site.settings")
application = get_asgi_application()
