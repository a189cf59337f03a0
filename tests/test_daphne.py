"""Over a real Daphne (``manage.py runsite`` as a child, its own SQLite file)
with a real websocket client: what a browser sees of the handshake."""

from __future__ import annotations

import asyncio

import pytest
import websockets

from tests.servers import Site


@pytest.fixture(scope="module")
def site():
    running = Site().wait_listening()
    yield running
    running.stop(show_output=False)


def test_a_missing_table_is_accepted_then_closed_with_4404(site):
    # a close before accept would be an HTTP 403 handshake refusal (code 1006 in a
    # browser), and the page would reconnect forever instead of saying "closed"
    async def connect() -> int | None:
        url = f"ws://127.0.0.1:{site.port}/ws/table/999999/"
        async with websockets.connect(url, origin=f"http://127.0.0.1:{site.port}") as ws:
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 10)
            return closed.value.rcvd.code if closed.value.rcvd else None

    assert asyncio.run(connect()) == 4404


def test_a_foreign_origin_is_still_refused_at_the_handshake(site):
    async def connect() -> None:
        url = f"ws://127.0.0.1:{site.port}/ws/table/1/"
        async with websockets.connect(url, origin="http://evil.example"):
            pass

    with pytest.raises(websockets.InvalidStatus) as refused:
        asyncio.run(connect())
    assert refused.value.response.status_code == 403
