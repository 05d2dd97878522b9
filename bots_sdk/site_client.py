"""A small client of a Parlour site's HTTP API (``/api/v1/``, docs/api.md) on the standard
library's urllib alone: JSON answers, a multipart upload, a replay download. Errors come back as
``SiteError`` carrying the API's own message."""
from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

TIMEOUT = 30.0  # seconds for one request


class SiteError(Exception):
    """The site refused a request (its message and HTTP status) or could not be reached (status 0)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


class SiteClient:
    def __init__(self, site: str, token: str = "") -> None:
        self.site = site.rstrip("/")
        self.token = token

    def _request(self, method: str, path: str, body: bytes | None = None, content_type: str = "") -> bytes:
        request = urllib.request.Request(f"{self.site}/api/v1{path}", data=body, method=method)
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        if content_type:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                return response.read()
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            try:
                message = json.loads(raw)["message"]
            except (ValueError, KeyError, TypeError):
                message = raw.decode(errors="replace")[:300] or exc.reason
            if exc.code == 429 and exc.headers.get("Retry-After"):
                message += f" (retry after {exc.headers['Retry-After']} s)"
            raise SiteError(str(message), exc.code) from None
        except (urllib.error.URLError, OSError) as exc:
            raise SiteError(f"cannot reach {self.site}: {getattr(exc, 'reason', exc)}") from None

    def get(self, path: str, **query: Any) -> Any:
        query = {k: v for k, v in query.items() if v is not None}
        suffix = "?" + urllib.parse.urlencode(query) if query else ""
        return json.loads(self._request("GET", path + suffix))

    def post_json(self, path: str, body: dict) -> Any:
        return json.loads(self._request("POST", path, json.dumps(body).encode(), "application/json"))

    def download(self, path: str) -> bytes:
        return self._request("GET", path)

    def upload(self, path: str, fields: dict[str, str], file: Path) -> Any:
        """POST ``fields`` and ``file`` as multipart/form-data (the site's upload form)."""
        boundary = "parlour-" + secrets.token_hex(12)
        parts = []
        for name, value in fields.items():
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{file.name}"\r\n'
                     f"Content-Type: application/octet-stream\r\n\r\n".encode() + file.read_bytes() + b"\r\n")
        parts.append(f"--{boundary}--\r\n".encode())
        return json.loads(self._request("POST", path, b"".join(parts), f"multipart/form-data; boundary={boundary}"))
