"""A Unix socket that relays every connection to a referee's TCP address: how a sandboxed bot, which
has no network, reaches a referee on another machine."""
from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
from pathlib import Path


class UnixRelay:
    def __init__(self, target: str) -> None:
        host, _, port = target.rpartition(":")
        self.target = (host.strip("[]"), int(port))
        self.folder = Path(tempfile.mkdtemp(prefix="parlour-relay-"))
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
        shutil.rmtree(self.folder, ignore_errors=True)
