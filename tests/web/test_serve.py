"""`python -m webui serve` from a fresh home: migrations, collected static files, gunicorn's uvicorn
workers, and WhiteNoise sending the gzipped copy of a static file to a client that accepts gzip."""
from __future__ import annotations

import gzip
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CSS = ROOT / "webui" / "static" / "webui" / "site.css"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url: str, **headers: str):
    return urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10)


@pytest.fixture
def served(tmp_path):
    port = free_port()
    env = dict(os.environ, PARLOUR_HOME=str(tmp_path))
    server = subprocess.Popen([sys.executable, "-m", "webui", "serve", "--port", str(port), "--workers", "1"],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and server.poll() is None:
        try:
            fetch(base + "/")
            break
        except OSError:
            time.sleep(0.2)
    yield base, server, tmp_path
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def test_serve_runs_uvicorn_workers_with_compressed_static_files(served) -> None:
    base, server, home = served
    assert server.poll() is None, server.stdout.read()[-3000:]
    page = fetch(base + "/")
    assert page.status == 200
    assert "Tussie Mussie" in page.read().decode()
    assert page.headers["Server"] == "uvicorn"  # ASGI workers (webui/__main__.py)

    assert (home / "static" / "webui" / "site.css.gz").is_file()  # collected and compressed before serving
    zipped = fetch(base + "/static/webui/site.css", **{"Accept-Encoding": "gzip"})
    assert zipped.status == 200
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert zipped.headers["Content-Type"].startswith("text/css")
    assert gzip.decompress(zipped.read()) == CSS.read_bytes()

    plain = fetch(base + "/static/webui/site.css")
    assert plain.headers.get("Content-Encoding") is None
    assert plain.read() == CSS.read_bytes()
    assert fetch(base + "/static/webui/viewer.js", **{"Accept-Encoding": "gzip"}).headers["Content-Encoding"] == "gzip"


def test_an_upload_larger_than_the_limit_is_refused_before_its_body_is_read(served) -> None:
    """A request declaring a 1 GB body gets its 413 at once, though not one byte of the body was
    sent: nothing waited for it, nothing read it."""
    base, server, _ = served
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"POST /bots/upload/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 1000000000\r\n\r\n")
        answer = b""
        while b"KiB)" not in answer and (chunk := sock.recv(65536)):  # the whole refusal, then the close
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413"), head
    assert b"1000000000 bytes" in body
    small = urllib.request.Request(base + "/bots/upload/", data=b"x" * 1000, method="POST")
    try:  # a body within the limit goes on to the site (here: its CSRF check)
        urllib.request.urlopen(small, timeout=10)
    except urllib.error.HTTPError as exc:
        assert exc.code == 403, exc.code
