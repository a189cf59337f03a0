"""What a hostile or broken client can send, and what a busy evening does to a
connection: each answered with a reason code, the
connection kept, nothing changed; the Origin check on the whole origin;
forwarded addresses only from the configured proxy; ping/sync token buckets;
clean-up however a consumer ends; memory after many connections.

Sockets go through the real ASGI application (``yuanzi_site.asgi``) with
Channels' ``WebsocketCommunicator``; the forwarded-address test runs a real
Daphne with ``--proxy-headers``.
"""

from __future__ import annotations

import asyncio
import gc
import http.cookiejar
import json
import os
import re
import subprocess
import sys
import tempfile
import tracemalloc
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.test import Client

from games import presence
from games.adapters import consumers
from tests.helpers import make_players, start_game
from tests.servers import ROOT, ServerProcess, free_port
from yuanzi_site.asgi import application
from yuanzi_site.proxy import forwarded_address

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = (b"origin", b"http://localhost")


@pytest.fixture(autouse=True)
def _site(settings):
    settings.GAMES_SCHEDULER = "none"
    settings.GAMES_ACTION_RATE = (100_000, 5)


def _cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    name = django_settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}".encode()


async def _open(table_id: int, user=None, headers=(ORIGIN,)) -> WebsocketCommunicator:
    headers = list(headers)
    if user is not None:
        headers.append((b"cookie", await database_sync_to_async(_cookie)(user)))
    comm = WebsocketCommunicator(application, f"/ws/table/{table_id}/", headers=headers)
    connected, code = await comm.connect(timeout=5)
    assert connected, code
    assert (await comm.receive_json_from(5))["type"] == "table"
    assert (await comm.receive_json_from(5))["type"] == "chat_history"
    return comm


async def _until(comm, kind: str, timeout: float = 5) -> dict:
    for _ in range(200):
        msg = await comm.receive_json_from(timeout)
        if msg["type"] == kind:
            return msg
    raise AssertionError(f"no {kind}")


async def _still_alive(comm) -> None:
    await asyncio.sleep(1.1)  # the ping bucket refills
    await comm.send_json_to({"type": "ping"})
    assert (await _until(comm, "pong"))["type"] == "pong"


@pytest.fixture
def table(owner):
    from games import tables

    return tables.create_table(owner, "robust")


async def test_frames_a_client_should_not_send_are_bad_message_and_the_socket_stays(table):
    comm = await _open(table.pk)
    try:
        bad = [
            "[" * 1000 + "]" * 1000,                      # nested 1,000 deep
            '{"type": "ping", "x": ' + "[" * 5000 + "]" * 5000 + "}",
            json.dumps({"type": "chat", "text": "x" * 9000}),  # a frame over 8 KB
            '{"type": "ping", "n": NaN}',
            '{"type": "ping", "n": Infinity}',
            '{"type": "ping", "n": -Infinity}',
        ]
        for frame in bad:
            await comm.send_to(text_data=frame)
            msg = await _until(comm, "error")
            assert msg["reason"] == "bad_message", frame[:40]
        await _still_alive(comm)
    finally:
        await comm.disconnect()


async def test_ref_is_echoed_only_as_a_short_string_or_an_integer(table):
    comm = await _open(table.pk)
    try:
        cases = [("m-1", "m-1"), ("x" * 64, "x" * 64), (7, 7), ("x" * 65, None),
                 ({"a": 1}, None), ([1], None), (True, None), (1.5, None)]
        for ref, echoed in cases:
            await comm.send_json_to({"type": "sit", "seat": 0, "ref": ref})  # anonymous
            msg = await _until(comm, "error")
            assert msg["reason"] == "login_required"
            assert msg["ref"] == echoed, ref
    finally:
        await comm.disconnect()


def _game_with_user_to_act():
    users = make_players(4, prefix="cards")
    game = start_game(users)
    return game, users[game.state["turn"]]


async def test_cards_must_be_a_list_of_at_most_41_card_strings(settings):
    from games.models import GameEvent

    game, mover = await database_sync_to_async(_game_with_user_to_act)()
    comm = await _open(game.table_id, mover)
    try:
        await _until(comm, "game")
        hand = game.state["hands"][game.state["turn"]]
        for cards in ["7S", hand[0], {"0": hand[0]}, [1, 2], None]:
            await comm.send_json_to({"type": "play", "seq": game.seq, "cards": cards})
            msg = await _until(comm, "error")
            assert msg["reason"] == "bad_card", cards
        # real cards, more than any hand holds: not in the hand, unread
        await comm.send_json_to({"type": "play", "seq": game.seq, "cards": [hand[0]] * 42})
        assert (await _until(comm, "error"))["reason"] == "not_in_hand"
        assert not await database_sync_to_async(GameEvent.objects.filter(game=game).exists)()
        await _still_alive(comm)
    finally:
        await comm.disconnect()


@pytest.mark.parametrize(("origin", "host", "ok"), [
    (b"http://localhost", None, True),               # a configured site origin
    (b"http://127.0.0.1:8000", b"127.0.0.1:8000", True),  # the handshake's own origin
    (b"http://127.0.0.1:9999", b"127.0.0.1:8000", False),  # another port
    (b"https://localhost", b"localhost", False),       # another scheme
    (b"http://localhost:8000", None, False),
    (b"http://evil.example", b"evil.example", False),  # a host not allowed
    (None, b"127.0.0.1:8000", False),                  # no Origin
])
async def test_the_origin_check_compares_scheme_host_and_port(table, origin, host, ok):
    headers = [(b"origin", origin)] if origin else []
    if host:
        headers.append((b"host", host))
    comm = WebsocketCommunicator(application, f"/ws/table/{table.pk}/", headers=headers)
    connected, _ = await comm.connect(timeout=5)
    assert connected is ok
    await comm.disconnect()


async def test_ping_and_sync_are_limited_per_connection_only(table):
    flood = await _open(table.pk)
    calm = await _open(table.pk)
    try:
        for _ in range(20):
            await flood.send_json_to({"type": "ping"})
            await flood.send_json_to({"type": "sync"})
        await calm.send_json_to({"type": "ping"})  # another connection: not slowed
        assert (await _until(calm, "pong"))["type"] == "pong"
        answers = []
        while not await flood.receive_nothing(0.3):
            answers.append((await flood.receive_json_from())["type"])
        assert answers.count("pong") + answers.count("game") == 5  # the burst
        await _still_alive(flood)
    finally:
        await flood.disconnect()
        await calm.disconnect()


async def test_the_disconnect_clean_up_runs_even_when_a_handler_crashes(table, monkeypatch):
    def crash(*args, **kwargs):
        raise RuntimeError("a bug in a handler")

    comm = await _open(table.pk)
    assert len(await database_sync_to_async(presence.live)(table.pk)) == 1
    monkeypatch.setattr(consumers, "_handle", crash)
    await comm.send_json_to({"type": "sit", "seat": 0})
    with pytest.raises(RuntimeError):
        await comm.wait(5)
    # no ghost presence: the table shows nobody connected
    assert await database_sync_to_async(presence.live)(table.pk) == []


async def test_memory_returns_after_a_thousand_connections(table, settings):
    """1,000 connect/close cycles in process: traced memory comes back to within
    5 MB of where it started (~279 kB per connection were once kept).
    The embedded stack's layer, whatever the environment: that is where it leaked."""
    from yuanzi_site.settings_layers import memory_channel_layer

    settings.CHANNEL_LAYERS = {"default": memory_channel_layer()}
    for _ in range(20):  # warm caches, imports, the session backend
        comm = await _open(table.pk)
        await comm.disconnect()
    await asyncio.sleep(0.5)  # the debounced snapshot
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        objects = len(gc.get_objects())
        for _ in range(1000):
            comm = await _open(table.pk)
            await comm.disconnect()
        await asyncio.sleep(0.5)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    grown = len(gc.get_objects()) - objects
    print(f"traced memory {before / 1e6:.2f} → {after / 1e6:.2f} MB; gc objects +{grown}")
    assert after - before < 5_000_000
    assert presence.live(table.pk) == []


# --- forwarded addresses ----------------------------------------------------------------


def test_forwarded_addresses_count_only_from_a_trusted_proxy(settings):
    headers = {b"X-Forwarded-For": [b"6.6.6.6, 203.0.113.9"]}
    settings.TRUSTED_PROXIES = []
    assert forwarded_address(headers, original_addr=["127.0.0.1", 5000])[0] == ["127.0.0.1", 5000]
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    # from the proxy: the entry it wrote (the rightmost), never the client's own
    assert forwarded_address(headers, original_addr=["127.0.0.1", 5000])[0] == ["203.0.113.9", 0]
    assert forwarded_address(headers, original_addr=["10.0.0.8", 1])[0] == ["10.0.0.8", 1]


def test_the_documented_nginx_config_overwrites_x_forwarded_for():
    deploy = (ROOT / "docs" / "deploy.md").read_text()
    assert "$proxy_add_x_forwarded_for" not in deploy
    assert len(re.findall(r"proxy_set_header X-Forwarded-For \$remote_addr;", deploy)) == 2
    assert "TRUSTED_PROXIES" in deploy


class _Daphne(ServerProcess):
    name = "daphne-proxy-headers"

    def __init__(self, env: dict[str, str]) -> None:
        self.port = free_port()
        self._spawn([sys.executable, "-m", "daphne", "--proxy-headers", "-b", "127.0.0.1",
                     "-p", str(self.port), "yuanzi_site.asgi:application"], env)


def _signup(base: str, i: int, forwarded: str) -> int:
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(base + "/accounts/signup/", timeout=10).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    data = urllib.parse.urlencode({
        "csrfmiddlewaretoken": token, "username": f"forged{i}",
        "password1": "atom-Jiaxing-2026!", "password2": "atom-Jiaxing-2026!",
    }).encode()
    request = urllib.request.Request(base + "/accounts/signup/", data=data, headers={
        "X-Forwarded-For": forwarded, "Referer": base + "/accounts/signup/"})
    try:
        return opener.open(request, timeout=10).status
    except urllib.error.HTTPError as e:
        return e.code


def test_forged_x_forwarded_for_does_not_pass_the_signup_limit_of_daphne_proxy_headers():
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        env.update(SQLITE_PATH=str(Path(tmp) / "xff.sqlite3"), SIGNUP_RATE_LIMIT="3/m/ip",
                   DJANGO_SETTINGS_MODULE="yuanzi_site.settings", PYTHONUNBUFFERED="1")
        env.pop("TRUSTED_PROXIES", None)
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env,
                       check=True)
        daphne = _Daphne(env).wait_listening()
        try:
            base = f"http://127.0.0.1:{daphne.port}"
            codes = [_signup(base, i, f"198.51.100.{i}") for i in range(6)]
        finally:
            daphne.stop(show_output=False)
    # three sign-ups a minute from 127.0.0.1, whatever addresses the header claims
    assert 429 not in codes[:3], codes
    assert codes[3:] == [429, 429, 429], codes
