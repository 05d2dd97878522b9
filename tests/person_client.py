"""A signed-in person's browser session as a plain HTTP client (the standard library's): cookies,
the CSRF token, forms and JSON, for the tests of people at the table and bench/people_load.py."""
from __future__ import annotations

import http.cookiejar
import json
import urllib.error
import urllib.parse
import urllib.request


class Person:
    """One signed-in person's browser session: cookies, the CSRF token, JSON in and out."""

    def __init__(self, url: str, name: str, password: str) -> None:
        self.url = url
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        self.get("/accounts/login/")
        self.post_form("/accounts/login/", {"username": name, "password": password})
        assert "sessionid" in self.cookie_names(), f"{name} could not sign in"

    def cookie_names(self) -> set[str]:
        return {c.name for c in self.cookies}

    def csrf(self) -> str:
        return next(c.value for c in self.cookies if c.name == "csrftoken")

    def get(self, path: str) -> bytes:
        with self.opener.open(self.url + path, timeout=30) as response:
            return response.read()

    def post_form(self, path: str, fields: dict) -> str:
        data = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": self.csrf()}, doseq=True).encode()
        request = urllib.request.Request(self.url + path, data=data, headers={"Referer": self.url + path})
        with self.opener.open(request, timeout=30) as response:
            return response.geturl()

    def status(self, path: str) -> int:
        """A GET's status code (an error's included)."""
        try:
            with self.opener.open(self.url + path, timeout=30) as response:
                return response.status
        except urllib.error.HTTPError as refused:
            return refused.code

    def post_json(self, path: str, body: dict) -> tuple[int, dict]:
        return self.post_raw(path, json.dumps(body).encode())

    def post_raw(self, path: str, data: bytes) -> tuple[int, dict]:
        """POST ``data`` as JSON: the status code and the JSON answer (an error's included)."""
        request = urllib.request.Request(self.url + path, data=data, headers={
            "Content-Type": "application/json", "X-CSRFToken": self.csrf(), "Referer": self.url + path})
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as refused:
            return refused.code, json.loads(refused.read())
