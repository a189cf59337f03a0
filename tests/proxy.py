"""A TCP proxy on 127.0.0.1 for browser tests: the browser talks to the site
through it, and :meth:`TcpProxy.cut` drops every open connection at once, as a
network failure would, from outside the page (a browser's offline switch may
leave an open websocket untouched). New connections pass again at once.
:meth:`TcpProxy.stall` is the silent kind of failure: bytes vanish and no
close arrives, until :meth:`TcpProxy.restore`.
"""

from __future__ import annotations

import contextlib
import socket
import threading


class TcpProxy:
    """Forwards ``127.0.0.1:port`` to ``127.0.0.1:target_port``, byte for byte."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closed = False
        self._stalled = False
        threading.Thread(target=self._accept, daemon=True, name="proxy-accept").start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._stalled:  # the line is down: nothing gets through
                client.close()
                continue
            try:
                server = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open |= {client, server}
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                if not self._stalled:  # stalled: bytes vanish, as on a dead line
                    dst.sendall(data)
        except OSError:
            pass
        finally:
            self._drop(src, dst)

    def _drop(self, *socks: socket.socket) -> None:
        for s in socks:
            with self._lock:
                self._open.discard(s)
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def cut(self) -> int:
        """Close every connection open now; returns how many sockets were closed."""
        with self._lock:
            socks = list(self._open)
        self._drop(*socks)
        return len(socks)

    def stall(self) -> None:
        """A silent outage: open connections stay open but carry nothing (no
        close ever reaches the page), and new ones are refused."""
        self._stalled = True

    def restore(self) -> None:
        """The line is back: the stalled connections are dropped (their streams
        lost bytes) and new ones pass again."""
        self._stalled = False
        self.cut()

    def close(self) -> None:
        self._closed = True
        self._listener.close()
        self.cut()
