"""A graceful drain on SIGTERM, for rolling restarts (docs/deploy.md "Rolling
restarts"; docs/protocol.md close code 1012).

When a Daphne process is told to stop (SIGTERM: systemd, honcho, a deploy),
instead of Twisted's immediate stop it:

1. starts draining: ``/readyz`` answers 503 (``"draining"``), so the load
   balancer sends it nothing new, and a websocket that still connects is
   accepted and closed at once with 1012;
2. lets the actions in flight finish (each websocket message being handled:
   a move is committed and announced, never cut off), waiting up to
   ``GAMES_DRAIN_SECONDS``;
3. closes every open websocket with **1012** ("service restart"): the page
   reconnects after a random 0.5–5 s, to the other process, and gets its
   current view (nothing lives in a process's memory);
4. then stops the reactor. A second SIGTERM stops it at once.

:func:`install` (from ``yuanzi_site.asgi``) takes over the reactor's SIGTERM
handler where Twisted's reactor is the server (Daphne, ``manage.py
runsite``); under a test client nothing changes.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Protocol

from django.conf import settings

log = logging.getLogger(__name__)

#: the close code of a drain (RFC 6455 1012, "service restart"): the page reconnects
RESTART_CODE = 1012


class _Closable(Protocol):
    async def close(self, code: int | None = None) -> None: ...


_open: weakref.WeakSet[Any] = weakref.WeakSet()
_inflight = 0
_draining = False


def draining() -> bool:
    """Is this process draining (``/readyz`` 503, new sockets closed 1012)?"""
    return _draining


def open_sockets() -> int:
    """How many websockets this process holds now."""
    return len(_open)


def opened(socket: _Closable) -> None:
    """A websocket of this process was accepted (closed with 1012 on a drain)."""
    _open.add(socket)


def closed(socket: _Closable) -> None:
    """That websocket ended."""
    _open.discard(socket)


@asynccontextmanager
async def action() -> AsyncIterator[None]:
    """Around the handling of one websocket message: a drain waits for it."""
    global _inflight
    _inflight += 1
    try:
        yield
    finally:
        _inflight -= 1


async def drain(wait: float | None = None) -> int:
    """Drain this process (steps 1–3 of the module docstring).

    :param wait: seconds to let in-flight actions finish (default
        ``GAMES_DRAIN_SECONDS``).
    :returns: how many websockets it closed.
    """
    global _draining
    _draining = True
    deadline = time.monotonic() + (settings.GAMES_DRAIN_SECONDS if wait is None else wait)
    while _inflight and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    if _inflight:
        log.warning("drain: %s actions still running after the wait", _inflight)
    sockets = list(_open)
    await asyncio.gather(*(s.close(code=RESTART_CODE) for s in sockets),
                         return_exceptions=True)
    await asyncio.sleep(0.2)  # let the close frames go out before the reactor stops
    log.info("drain: closed %s websockets with %s", len(sockets), RESTART_CODE)
    return len(sockets)


def _allow_restart_code() -> None:
    """Let Daphne send the 1012 close frame: autobahn's ``sendClose`` takes
    only 1000 and 3000–4999 from a server, though RFC 6455 and IANA register
    1012 (service restart) for exactly this; it is sent the way ``sendClose``
    sends a valid code (``sendCloseFrame``)."""
    from daphne import ws_protocol

    protocol = ws_protocol.WebSocketProtocol
    if getattr(protocol.serverClose, "restart_code", False):
        return
    plain = protocol.serverClose

    def server_close(self: Any, code: int | None = None) -> None:
        if code == RESTART_CODE:
            self.sendCloseFrame(code=RESTART_CODE, isReply=False)
        else:
            plain(self, code)

    server_close.restart_code = True  # type: ignore[attr-defined]
    protocol.serverClose = server_close


def install() -> None:
    """Drain on SIGTERM instead of stopping at once, where Twisted's reactor is
    already the server's (Daphne imported it before the application)."""
    reactor = sys.modules.get("twisted.internet.reactor")
    if reactor is None:
        return
    _allow_restart_code()
    stopping = False

    def stop_after_drain() -> None:
        task = asyncio.ensure_future(drain())
        task.add_done_callback(lambda _t: reactor.stop())
        _tasks.add(task)

    def sig_term(number: int, frame: Any = None) -> None:
        nonlocal stopping
        if stopping:  # a second SIGTERM: now
            reactor.callFromThread(reactor.stop)
            return
        stopping = True
        log.info("SIGTERM: draining (GAMES_DRAIN_SECONDS=%s)", settings.GAMES_DRAIN_SECONDS)
        reactor.callFromThread(stop_after_drain)

    # read by the reactor when it installs its signal handlers (at run)
    reactor.sigTerm = sig_term  # type: ignore[attr-defined]  # the installed reactor, seen as a module


_tasks: set[asyncio.Task[int]] = set()  # the event loop keeps only weak references
