"""The WSGI application, for gunicorn (``python -m webui serve``) or any other WSGI server."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour_site.settings")
application = get_wsgi_application()
