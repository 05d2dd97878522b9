"""The Django project of the Parlour platform: settings, the root URLs and the WSGI/ASGI entry points.
Its apps are ``arena`` (tournaments, ladders, matches) and ``webui`` (the website's pages)."""
