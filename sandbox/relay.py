"""Unix sockets between a sandboxed bot and its referee.

``RefereeSocket`` is the way from this machine to a referee, for sandboxes: the referee's own Unix
socket, or a ``UnixRelay`` to its TCP address (for a referee on another machine); ``SeatRelay`` is
what a sandbox is actually given: ``Play`` for its own seat and nothing else."""
from __future__ import annotations

import os
import socket
import threading

from .temp_folders import owned_folder, remove


class UnixRelay:
    def __init__(self, target: str) -> None:
        host, _, port = target.rpartition(":")
        self.target = (host.strip("[]"), int(port))
        self.folder = owned_folder("parlour-relay-")
        os.chmod(self.folder, 0o755)
        self.path = str(self.folder / "referee.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        os.chmod(self.path, 0o666)  # the sandboxed bot is another uid
        self.listener.listen(64)
        threading.Thread(target=self._accept, name="relay", daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                inside, _ = self.listener.accept()
            except OSError:  # closed
                return
            try:
                outside = socket.create_connection(self.target)
            except OSError:
                inside.close()
                continue
            outside.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for source, sink in ((inside, outside), (outside, inside)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.listener.close()
        remove(self.folder)


class RefereeSocket:
    """A Unix socket on this machine that reaches the referee at ``address``: its own (``unix_path``,
    or an address ``unix:PATH``), else a relay to its TCP address, started when first asked for."""

    def __init__(self, address: str, unix_path: str | None = None) -> None:
        self.address = address
        self.unix_path = unix_path
        self._relay: UnixRelay | None = None

    @property
    def path(self) -> str:
        if self.unix_path:
            return self.unix_path
        if self.address.startswith("unix:"):
            return self.address[len("unix:"):]
        if self._relay is None:
            self._relay = UnixRelay(self.address)
        return self._relay.path

    def close(self) -> None:
        if self._relay is not None:
            self._relay.close()
            self._relay = None


SEAT_RELAY_STREAMS = 100  # Play streams one sandbox may open in one match (reconnects included)


class SeatRelay:
    """The one door a sandboxed bot is given: a Unix socket serving ``Play`` and no other call,
    forwarded to the referee at ``target`` (a gRPC address, e.g. ``unix:/path``) with this seat's
    token written into the Hello here, so the bot's process never holds its token (it is on no
    command line, in no environment); a Hello with any other token is refused by the referee as
    unknown. Every other method is refused (UNIMPLEMENTED); at most two streams are open at once
    (a reconnect while the old one lingers), and ``SEAT_RELAY_STREAMS`` in all."""

    def __init__(self, target: str, seat_token: str | None = None) -> None:
        import grpc

        from parlour.v1 import referee_pb2

        self._grpc, self._pb = grpc, referee_pb2
        self.seat_token = seat_token or ""
        self.folder = owned_folder("parlour-seat-")
        os.chmod(self.folder, 0o755)
        self.path = str(self.folder / "referee.sock")
        self.channel = grpc.insecure_channel(target)
        self._play = self.channel.stream_stream("/parlour.v1.Referee/Play")  # raw bytes both ways
        self._lock = threading.Lock()
        self._opened = 0
        from concurrent.futures import ThreadPoolExecutor

        self.server = grpc.server(ThreadPoolExecutor(max_workers=2, thread_name_prefix="seat-relay"),
                                  maximum_concurrent_rpcs=2,
                                  options=[("grpc.max_receive_message_length", 256 * 1024)])
        handler = grpc.stream_stream_rpc_method_handler(self._relay_play)
        self.server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler("parlour.v1.Referee", {"Play": handler}),))
        self.server.add_insecure_port(f"unix:{self.path}")
        self.server.start()
        os.chmod(self.path, 0o666)  # the sandboxed bot is another uid

    def next_seat(self, seat_token: str) -> None:
        """A warm sandbox's next match: its Hellos carry this token from now on."""
        with self._lock:
            self.seat_token = seat_token
            self._opened = 0

    def _upstream(self, requests):
        """The bot's messages, its Hello carrying this seat's token."""
        try:
            yield from self._with_token(requests)
        except self._grpc.RpcError:  # the bot's side of the stream ended
            return

    def _with_token(self, requests):
        from google.protobuf.message import DecodeError  # here, as grpc and referee_pb2 are

        first = True
        for raw in requests:
            if first:
                first = False
                try:
                    message = self._pb.BotMessage.FromString(raw)
                except DecodeError:  # not a message: the referee refuses it with its reason
                    message = None
                if message is not None and message.WhichOneof("message") == "hello":
                    if not self.seat_token or message.hello.seat_token not in ("", self.seat_token):  # forged or stolen
                        message.hello.seat_token = "refused-by-the-seat-relay"
                    else:
                        message.hello.seat_token = self.seat_token
                    raw = message.SerializeToString()
            yield raw

    def _relay_play(self, requests, context):
        with self._lock:
            if self._opened >= SEAT_RELAY_STREAMS:
                context.abort(self._grpc.StatusCode.RESOURCE_EXHAUSTED,
                              f"more than {SEAT_RELAY_STREAMS} Play streams in one match")
            self._opened += 1
        call = self._play(self._upstream(requests))
        context.add_callback(call.cancel)
        try:
            yield from call
        except self._grpc.RpcError as exc:
            if exc.code() != self._grpc.StatusCode.CANCELLED:
                context.abort(exc.code(), exc.details() or "")

    def close(self) -> None:
        self.server.stop(None)
        self.channel.close()
        remove(self.folder)
