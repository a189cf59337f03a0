"""Over a real Daphne (``manage.py runsite`` as a child, its own SQLite file)
with a real websocket client: what a browser sees of the handshake, and of a
frame too long for the consumer or for Daphne itself."""

from __future__ import annotations

import asyncio
import json
import shlex
from typing import Any

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


#: Daphne's own limit on an incoming message and frame (its
#: ``--websocket-max-message-size`` / ``--websocket-max-frame-size`` default,
#: bytes), which runsite and deploy/Procfile keep; docs/protocol.md names it
TRANSPORT_LIMIT = 1024 * 1024


def test_a_frame_over_8192_characters_is_bad_message_until_daphnes_limit(site):
    """docs/protocol.md: a frame over 8,192 characters is answered
    ``bad_message`` on an open connection, up to 1,048,576 bytes; a longer one
    never reaches the consumer: Daphne drops the connection without a close
    frame (1006 in a browser)."""
    made = site.manage("shell", "-c", (
        "from django.contrib.auth.models import User; from games import tables; "
        "print(tables.create_table(User.objects.create_user('framer'), 'frames').pk)"))
    table_id = int(made.split()[-1])

    async def talk() -> Any:
        url = f"ws://127.0.0.1:{site.port}/ws/table/{table_id}/"
        async with websockets.connect(url, origin=f"http://127.0.0.1:{site.port}",
                                      max_size=None) as ws:
            async def next_of(kind: str) -> dict[str, Any]:
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if frame["type"] == kind:
                        return frame

            await next_of("chat_history")
            # ASCII text: as many bytes as characters
            for size in (8_193, 100_000, TRANSPORT_LIMIT):
                await ws.send("x" * size)
                assert (await next_of("error"))["reason"] == "bad_message", size
            await ws.send(json.dumps({"type": "ping"}))
            await next_of("pong")  # still open
            # three bytes a character: 349,526 characters, over the limit in bytes
            await ws.send("原" * (TRANSPORT_LIMIT // 3 + 1))

            async def drain() -> None:
                while True:
                    await asyncio.wait_for(ws.recv(), 10)

            with pytest.raises(websockets.ConnectionClosed) as closed:
                await drain()
            return closed.value.rcvd

    assert asyncio.run(talk()) is None  # no close frame from the server: 1006


def test_every_way_of_starting_daphne_keeps_its_message_limit():
    """The limit docs/protocol.md states is Daphne's default: no way the site
    starts Daphne (``manage.py runsite``, deploy/Procfile, docs/deploy.md's
    command lines and unit) sets another."""
    from daphne.cli import CommandLineInterface

    from tests.servers import ROOT

    parser = CommandLineInterface().parser
    text = "\n".join((ROOT / path).read_text() for path in ("deploy/Procfile", "docs/deploy.md"))
    assert "websocket-max" not in text
    assert "websocket_max" not in text
    commands = [shlex.split(line.split("bin/daphne", 1)[1].split(";")[0])
                for line in text.splitlines() if "bin/daphne -e" in line]
    assert len(commands) >= 3
    for argv in [*commands, ["yuanzi_site.asgi:application"]]:
        args = parser.parse_args(argv)
        assert args.websocket_max_message_size == TRANSPORT_LIMIT, argv
        assert args.websocket_max_frame_size == TRANSPORT_LIMIT, argv
    runsite = (ROOT / "games" / "management" / "commands" / "runsite.py").read_text()
    assert "websocket-max" not in runsite
    assert "websocket_max" not in runsite
    assert "1,048,576 bytes" in (ROOT / "docs" / "protocol.md").read_text()
