"""The static files, from the site's own process: WhiteNoise (the gzipped copies ``python -m webui
serve`` collects), as a middleware that also serves asynchronous views as they are. WhiteNoise's own
is synchronous only, and one synchronous middleware puts every request, a live viewer's long poll
included, in a thread of its own for as long as it lasts (webui/views/live.py)."""
from __future__ import annotations

from collections.abc import Callable

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponse
from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFiles(WhiteNoiseMiddleware):
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable, **options) -> None:
        super().__init__(get_response, **options)
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest):
        if iscoroutinefunction(self):
            return self.acall(request)
        return super().__call__(request)

    async def acall(self, request: HttpRequest) -> HttpResponse:
        static_file = self.find_file(request.path_info) if self.autorefresh else self.files.get(request.path_info)
        if static_file is None:
            return await self.get_response(request)
        return self.whole(static_file, request)

    @staticmethod
    def whole(static_file, request: HttpRequest) -> HttpResponse:
        """WhiteNoise's answer with the file read whole: small files (the site's scripts and styles,
        gzipped), where streaming a synchronous file under ASGI would cost a thread and a warning."""
        found = static_file.get_response(request.method, request.META)
        if found.file is None:
            body = b""
        else:
            with found.file:
                body = found.file.read()
        response = HttpResponse(body, status=int(found.status))
        del response["Content-Type"]
        for key, value in found.headers:
            response[key] = value
        return response
