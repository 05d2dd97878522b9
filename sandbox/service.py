"""The sandbox service: uploaded bots launched and reaped by a process that holds no platform secret.

``python -m sandbox serve --socket PATH`` listens on a Unix socket; in compose it is its own
container (no database URL, operator token, Django secret or seed key in its environment; only the
capabilities namespaces need). The worker (``ServiceSandbox``, same ``start``/``feed``/``wait``/
``close`` as ``Sandbox``) keeps one connection per sandbox; the sandbox lives as long as that
connection, so a worker that dies takes its bots with it.

Protocol: each message is a 4-byte big-endian length and that many bytes of UTF-8 JSON, in both
directions, one answer per request:

- ``{"op": "start", "spec", "referee_socket", "seat_token", "bot_root", "readable"}`` ->
  ``{"ok": true, "mode"}`` or ``{"ok": false, "error"}``
- ``{"op": "feed", "seat_token"}`` -> ``{"ok": true}``
- ``{"op": "wait", "timeout"}`` -> ``{"ok": true, "exit_code"}``
- ``{"op": "close"}`` -> ``{"ok": true, "report": {SandboxReport's fields}}``, then the service
  closes the connection.
- ``{"op": "support"}`` (alone on its connection) -> ``{"ok": true, "runs", "says"}``: whether this
  service can run uploaded bots, and how (what a worker's heartbeat reports for it).

The bot's stdio is not relayed: its only channel is the seat relay to ``referee_socket`` (a Unix
socket the worker shares with the service, e.g. a volume), which the service's ``Sandbox`` opens
as the in-process launch does; its stdin (next seat) is driven by ``feed`` and its bounded output
comes back in the report. Passing file descriptors would tie the two to one kernel and add
nothing: the referee path already carries every byte the bot plays.
"""
from __future__ import annotations

import json
import os
import socket
import struct
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Any

from . import Sandbox, SandboxReport, support
from .limits import SandboxLimits
from .settings import environment

# what the service refuses to start with: a deployment that hands it a platform secret is wrong
SECRETS = ("DATABASE_URL", "REDIS_URL", "PARLOUR_OPERATOR_TOKEN", "DJANGO_SECRET_KEY", "PARLOUR_SEED_KEY",
           "POSTGRES_PASSWORD")
HEADER = struct.Struct(">I")
MAX_MESSAGE = 1 << 20  # a request is a few paths and a token


class ServiceDown(ConnectionError):
    """The sandbox service cannot be reached or went away: a temporary platform failure, not the bot's."""


def send(sock: socket.socket, message: dict[str, Any]) -> None:
    data = json.dumps(message).encode()
    sock.sendall(HEADER.pack(len(data)) + data)


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    chunks = bytearray()
    while len(chunks) < size:
        chunk = sock.recv(size - len(chunks))
        if not chunk:
            raise ServiceDown("the sandbox service closed the connection")
        chunks += chunk
    return bytes(chunks)


def receive(sock: socket.socket) -> dict[str, Any]:
    (size,) = HEADER.unpack(_read_exactly(sock, HEADER.size))
    if size > MAX_MESSAGE:
        raise ServiceDown(f"a message of {size} bytes")
    return json.loads(_read_exactly(sock, size))


def _serve_one(conn: socket.socket) -> None:
    """One worker connection: one sandbox, killed when the connection ends whatever happened."""
    sandbox: Sandbox | None = None
    try:
        while True:
            try:
                request = receive(conn)
            except (ServiceDown, OSError, ValueError):
                return
            op = request.get("op")
            try:
                if op == "support" and sandbox is None:  # what the workers' heartbeats tell the website
                    found = support()
                    send(conn, {"ok": True, "runs": found.mode != "refused", "says": found.describe()})
                    return
                if op == "start" and sandbox is None:
                    sandbox = Sandbox(request["spec"], request.get("referee_socket"), request.get("seat_token"),
                                      bot_root=request.get("bot_root"), readable=request.get("readable", ()))
                    sandbox.start()
                    send(conn, {"ok": True, "mode": sandbox.mode, "pid": sandbox.process.pid})
                elif op == "feed" and sandbox is not None:
                    sandbox.feed(request["seat_token"])
                    send(conn, {"ok": True})
                elif op == "wait" and sandbox is not None:
                    send(conn, {"ok": True, "exit_code": sandbox.wait(request.get("timeout"))})
                elif op == "close" and sandbox is not None:
                    report, sandbox = sandbox.close(), None
                    send(conn, {"ok": True, "report": asdict(report)})
                    return
                else:
                    send(conn, {"ok": False, "error": f"unexpected {op!r}"})
            except Exception as error:  # noqa: BLE001 - the worker hears why; the service serves on
                send(conn, {"ok": False, "error": f"{type(error).__name__}: {error}"})
    finally:
        if sandbox is not None:
            sandbox.close()
        conn.close()


def serve(path: str) -> None:
    """Serve until killed: a thread per connection (a connection is one sandbox, mostly waiting)."""
    held = sorted(set(SECRETS) & set(os.environ))  # names only: no setting is read here
    if held:
        raise SystemExit(f"the sandbox service holds no platform secret: remove {', '.join(held)} from its environment")
    Path(path).unlink(missing_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    os.chmod(path, 0o660)  # the worker's group, not the bots (uid nobody) nor anyone else
    server.listen(128)
    while True:
        conn, _ = server.accept()
        threading.Thread(target=_serve_one, args=(conn,), daemon=True).start()


class ServiceSandbox:
    """A ``Sandbox`` run by the sandbox service at ``service_path``; same calls, same report."""

    def __init__(self, service_path: str, spec: str | None, referee_socket: str | None,
                 seat_token: str | None = None, bot_root: str | None = None, readable: tuple[str, ...] = ()) -> None:
        self.service_path = service_path
        self.request = {"op": "start", "spec": spec, "referee_socket": referee_socket, "seat_token": seat_token,
                        "bot_root": bot_root, "readable": [str(p) for p in readable]}
        self.mode = "full"
        self.name = f"service-{os.getpid()}-{id(self):x}"
        self.limits = SandboxLimits.declared()  # the service's own may differ; for the report's wording
        self.cgroup = None  # the service's to reap: it kills the sandbox when this connection ends
        self.process = self  # poll() and pid, as the worker asks a local sandbox's process
        self.pid = 0
        self.sock: socket.socket | None = None

    def _call(self, message: dict[str, Any]) -> dict[str, Any]:
        try:
            if self.sock is None:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(self.service_path)
            send(self.sock, message)
            answer = receive(self.sock)
        except OSError as error:
            raise ServiceDown(f"sandbox service at {self.service_path}: {error}") from error
        if not answer.get("ok"):
            raise RuntimeError(f"sandbox service: {answer.get('error')}")
        return answer

    def start(self) -> None:
        answer = self._call(self.request)
        self.mode, self.pid = answer["mode"], answer["pid"]

    def poll(self) -> int | None:
        try:
            return self.wait(0)
        except ServiceDown:
            return -1  # gone with the service

    def feed(self, seat_token: str) -> None:
        self._call({"op": "feed", "seat_token": seat_token})

    def wait(self, timeout: float | None = None) -> int | None:
        return self._call({"op": "wait", "timeout": timeout})["exit_code"]

    def close(self) -> SandboxReport:
        try:
            return SandboxReport(**self._call({"op": "close"})["report"])
        except ServiceDown as error:  # its bots died with it (their launcher's death signal)
            return SandboxReport(exit_code=None, output=f"the sandbox service went away: {error}", mode=self.mode)
        finally:
            if self.sock is not None:
                self.sock.close()


def service_support(service_path: str, timeout: float = 5.0) -> tuple[bool, str]:
    """Whether the sandbox service can run uploaded bots, and a line saying how (or why not: it
    cannot be reached)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(service_path)
            send(sock, {"op": "support"})
            answer = receive(sock)
        return bool(answer["runs"]), f"{answer['says']} (the sandbox service)"
    except (OSError, ServiceDown, ValueError, KeyError) as error:
        return False, f"uploads closed: the sandbox service at {service_path} cannot be reached ({error})"


def make_sandbox(spec: str | None, referee_socket: str | None, seat_token: str | None = None,
                 bot_root: str | None = None, readable: tuple[str, ...] = ()) -> Sandbox | ServiceSandbox:
    """A sandbox in the sandbox service when ``PARLOUR_SANDBOX_SERVICE`` names one, else in this process."""
    service = environment().service
    if service:
        return ServiceSandbox(service, spec, referee_socket, seat_token, bot_root, tuple(readable))
    return Sandbox(spec, referee_socket, seat_token, bot_root=bot_root, readable=readable)
