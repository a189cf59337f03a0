"""A graceful drain on SIGTERM (games/adapters/drain.py; docs/protocol.md close
code 1012): ``/readyz`` fails while draining, the actions in flight finish
first, then every websocket closes with 1012 and the process exits; a socket
that connects meanwhile is closed with 1012 at once. The last test sends a
real SIGTERM to a real Daphne (``manage.py runsite``) with a client connected."""

from __future__ import annotations

import asyncio
import signal

import pytest
import websockets
from django.urls import reverse

from games.adapters import drain
from tests.servers import Site


class _Socket:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def close(self, code: int | None = None) -> None:
        self.log.append(f"closed {code}")


@pytest.fixture
def fresh_drain(monkeypatch):
    monkeypatch.setattr(drain, "_draining", False)
    monkeypatch.setattr(drain, "_inflight", 0)
    monkeypatch.setattr(drain, "_open", drain.weakref.WeakSet())


async def test_the_actions_in_flight_finish_before_the_sockets_close(fresh_drain):
    log: list[str] = []
    sockets = [_Socket(log), _Socket(log)]
    for s in sockets:
        drain.opened(s)

    async def a_move() -> None:
        async with drain.action():
            await asyncio.sleep(0.3)
            log.append("move committed")

    move = asyncio.ensure_future(a_move())
    await asyncio.sleep(0)  # the move is in flight
    closed = await drain.drain(wait=10)
    await move
    assert drain.draining()
    assert closed == 2
    assert log == ["move committed", "closed 1012", "closed 1012"]


async def test_a_drain_does_not_wait_past_its_limit(fresh_drain):
    log: list[str] = []
    socket = _Socket(log)  # the server holds its sockets (the set is weak)
    drain.opened(socket)
    stuck = asyncio.Event()

    async def a_stuck_move() -> None:
        async with drain.action():
            await stuck.wait()

    move = asyncio.ensure_future(a_stuck_move())
    await asyncio.sleep(0)
    assert await drain.drain(wait=0.1) == 1
    assert log == ["closed 1012"]
    stuck.set()
    await move


@pytest.mark.django_db
def test_readyz_fails_while_draining(client, fresh_drain):
    assert client.get(reverse("readyz")).json()["checks"].get("process") is None
    drain._draining = True
    response = client.get(reverse("readyz"))
    assert response.status_code == 503
    assert response.json()["checks"]["process"] == "draining"


def test_sigterm_closes_a_real_daphnes_sockets_with_1012_and_it_exits():
    site = Site(env={"GAMES_DRAIN_SECONDS": "2"}).wait_listening()
    try:
        async def connected_then_drained() -> int | None:
            url = f"ws://127.0.0.1:{site.port}/ws/lobby/"
            async with websockets.connect(url, origin=f"http://127.0.0.1:{site.port}") as ws:
                assert '"tables"' in await asyncio.wait_for(ws.recv(), 30)
                site.proc.send_signal(signal.SIGTERM)
                try:
                    while True:  # frames already on their way may come first
                        await asyncio.wait_for(ws.recv(), 60)
                except websockets.ConnectionClosed as closed:
                    return closed.rcvd.code if closed.rcvd else None

        assert asyncio.run(connected_then_drained()) == drain.RESTART_CODE
        site.proc.wait(60)
        assert "draining" in site.output() or "SIGTERM" in site.output()
    finally:
        site.stop(show_output=False)
