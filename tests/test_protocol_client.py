"""What a protocol client written from docs/protocol.md found:
numbers in ASCII digits only, JSON too deep on every endpoint, malformed
table routes, refusals logged in one line, a frame flood dropped unread.

Sockets go through the real ASGI application (``yuanzi_site.asgi``) with
Channels' ``WebsocketCommunicator``; HTTP through Django's test client.
The storm and the Redis restart are in ``tests/test_production_stack.py``;
suspensions closing the lobby socket in ``tests/test_moderation_live.py``.
"""

from __future__ import annotations

import logging

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from games import tables, wire
from games.adapters import consumers
from games.plugins import SocketMessage
from shop.models import Item
from tests.helpers import make_plugin
from tests.test_robustness import ORIGIN, _open, _until
from yuanzi_site.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

STRANGE_DIGITS = ["²", "٣", "１", "３００", "-1", "1_0", "1e3", "0x1f", " ", ""]


@pytest.fixture(autouse=True)
def _site(settings):
    settings.GAMES_SCHEDULER = "none"


@pytest.fixture(autouse=True)
def _catalogue(db):
    import importlib

    from django.apps import apps

    importlib.import_module("shop.migrations.0004_catalogue_data").add_items(apps, None)


def _json_client(user) -> Client:
    client = Client(HTTP_ACCEPT="application/json")
    client.force_login(user)
    return client


# docs/protocol.md "Input rules": a number is a JSON integer or text of ASCII
# digits only, 0 or more, at most 18 digits; anything else is no number
# ("\u0661" is the Arabic-Indic digit one)
NOT_NUMBERS: list[object] = [
    "１", "\u0661", "٣", "²", " 1", "1 ", " 7 ", "\t1", "1\n", "-1", "+1", "1.0", "1e0", "",
    "9" * 19, True, False, -1, 1.0, None, [1], {"n": 1}, 10**18, 10**30,
]


def test_whole_reads_ascii_digits_only():
    assert [wire.whole(v) for v in ("0", "42", "007", 5, "9" * 18, 10**18 - 1)] == [
        0, 42, 7, 5, 10**18 - 1, 10**18 - 1]
    assert [wire.whole(v) for v in STRANGE_DIGITS] == [None] * len(STRANGE_DIGITS)
    assert [wire.whole(v) for v in NOT_NUMBERS] == [None] * len(NOT_NUMBERS)
    assert wire.whole("9" * 8000) is None
    assert wire.whole(None) is None


@pytest.fixture
def _generous(settings):
    # dozens of refused messages in a row, under no rate limit
    settings.GAMES_ACTION_RATE = (100_000, 5)
    settings.GAMES_CHAT_RATE = (100_000, 10)


def _seats(frame: dict) -> list[tuple[str | None, bool]]:
    return [((s["player"] or {}).get("username"), s["bot"]) for s in frame["table"]["seats"]]


async def _table_frame(comm, want) -> dict:
    """The next ``table`` frame whose seats are ``want``."""
    for _ in range(50):
        frame = await _until(comm, "table")
        if _seats(frame) == want:
            return frame
    raise AssertionError(f"no table frame with seats {want}")


@pytest.mark.usefixtures("_generous")
async def test_a_seat_is_a_json_integer_or_ascii_digit_text(owner):
    table = await database_sync_to_async(tables.create_table)(owner, "seats")
    comm = await _open(table.pk, owner)
    try:
        for kind in ("sit", "add_bot", "remove_bot"):
            for bad in NOT_NUMBERS:
                await comm.send_json_to({"type": kind, "seat": bad})
                assert (await _until(comm, "error"))["reason"] == "bad_seat", (kind, bad)
        await comm.send_json_to({"type": "sit", "seat": "1"})
        await _table_frame(comm, [(None, False), ("owner", False), (None, False), (None, False)])
        await comm.send_json_to({"type": "add_bot", "seat": "02"})
        await _table_frame(comm, [(None, False), ("owner", False), (None, True), (None, False)])
        await comm.send_json_to({"type": "remove_bot", "seat": "2"})
        await _table_frame(comm, [(None, False), ("owner", False), (None, False), (None, False)])
        await comm.send_json_to({"type": "sit", "seat": "4"})  # a number, but no seat
        assert (await _until(comm, "error"))["reason"] == "bad_seat"
    finally:
        await comm.disconnect()


@pytest.mark.usefixtures("_generous")
async def test_seq_and_a_phrase_index_are_json_integers_or_ascii_digit_text(players):
    from games.models import ChatMessage, Game
    from tests.helpers import start_game

    game = await database_sync_to_async(start_game)(players)
    turn = game.state["turn"]
    comm = await _open(game.table_id, players[turn])
    try:
        for bad in NOT_NUMBERS:
            await comm.send_json_to({"type": "pass", "seq": bad})
            assert (await _until(comm, "error"))["reason"] == "bad_message", bad
            await comm.send_json_to({"type": "phrase", "index": bad})
            assert (await _until(comm, "error"))["reason"] == "bad_message", bad
        await comm.send_json_to({"type": "pass", "seq": "1"})  # read as 1: not reached yet
        assert (await _until(comm, "error"))["reason"] == "stale"
        await comm.send_json_to({"type": "play", "seq": "0",
                                 "cards": [game.state["hands"][turn][0]]})
        while (await _until(comm, "game"))["view"]["seq"] != 1:
            pass
        await comm.send_json_to({"type": "phrase", "index": "0"})
        assert (await _until(comm, "chat"))["line"]["text"]
    finally:
        await comm.disconnect()
    assert (await database_sync_to_async(Game.objects.get)(pk=game.pk)).seq == 1
    lines = ChatMessage.objects.filter(table_id=game.table_id)
    assert await database_sync_to_async(lines.count)() == 1


def test_shop_numbers_take_ascii_digits_only(owner):
    client = _json_client(owner)
    price = Item.objects.get(code="timer").price
    for text in STRANGE_DIGITS:
        r = client.post("/shop/buy/", {"item": "timer", "quantity": text, "price": price})
        assert (r.status_code, r.json()["reason"]) == (400, "bad_quantity"), text
    for text in ["²", "٣", "３００", "abc"]:
        r = client.post("/shop/buy/", {"item": "timer", "quantity": "1", "price": text})
        assert (r.status_code, r.json()["reason"]) == (400, "bad_message"), text
    r = client.post("/shop/buy/", {"item": "recorder", "quantity": "1",
                                   "price": Item.objects.get(code="recorder").price})
    assert r.status_code == 200
    assert r.json()["ok"]
    slot = client.get("/api/me").json()["inventory"][0]["slot"]
    for text in ["²", "٣", "１", "３００"]:
        for body in ({"slot": slot, "item": "recorder", "key": f"k{text}", "game": text},):
            r = client.post("/shop/use/", body, content_type="application/json")
            assert (r.status_code, r.json()["reason"]) == (400, "no_game"), text
            r = client.post("/shop/use/", body)  # as a form
            assert (r.status_code, r.json()["reason"]) == (400, "no_game"), text


def test_moderator_numbers_and_lobby_filters_take_ascii_digits_only(mod, outsider):
    client = Client()
    client.force_login(mod)
    for text in ["²", "３００", "٣"]:
        r = client.post("/mod/users/outsider/grant/", {"amount": text, "reason": "补偿"})
        assert r.status_code in (200, 302, 400, 403), text
        r = client.post("/mod/users/outsider/mute/", {"amount": text, "unit": "h",
                                                      "reason": "刷屏"})
        assert r.status_code in (200, 302, 400, 403), text
        r = client.get(f"/mod/audit/?table={text}")
        assert r.status_code == 200, text
        assert client.get(f"/?wager={text}").status_code == 200
    from moderation.models import AuditEntry, Sanction
    assert not AuditEntry.objects.exists()
    assert not Sanction.objects.exists()


def test_json_bodies_too_deep_or_malformed_are_400_bad_message(owner):
    client = _json_client(owner)
    bodies = ["[" * 100_000, "{" * 100_000, '{"slot": 0,', "\xff\xfe", '{"a": NaN}', "[]", '"x"']
    for path in ("/shop/use/", "/shop/swap/"):
        for body in bodies:
            r = client.post(path, body.encode("latin-1") if body == "\xff\xfe" else body,
                            content_type="application/json")
            assert (r.status_code, r.json()["reason"]) == (400, "bad_message"), (path, body[:9])


async def test_a_frame_nested_100_000_deep_is_bad_message_and_the_socket_stays(owner):
    table = await database_sync_to_async(tables.create_table)(owner, "deep")
    comm = await _open(table.pk)
    try:
        await comm.send_to(text_data="[" * 100_000)  # over MAX_FRAME: refused unread
        assert (await _until(comm, "error"))["reason"] == "bad_message"
        await comm.send_to(text_data="[" * 4000)  # within it: nested too deeply
        assert (await _until(comm, "error"))["reason"] == "bad_message"
        await comm.send_json_to({"type": "ping"})
        assert (await _until(comm, "pong"))["type"] == "pong"
    finally:
        await comm.disconnect()


@pytest.mark.parametrize("path", ["/ws/table/-1/", "/ws/table/" + "9" * 8000 + "/",
                                  "/ws/table/abc/", "/ws/table/²/", "/ws/table/1/x/",
                                  "/ws/nothing/"])
async def test_a_malformed_route_is_accepted_and_closed_4404_in_one_short_line(path, caplog):
    comm = WebsocketCommunicator(application, path, headers=[ORIGIN])
    with caplog.at_level(logging.INFO):
        connected, _ = await comm.connect(timeout=5)
        assert connected
        assert await comm.receive_output(timeout=5) == {"type": "websocket.close",
                                                        "code": 4404}
    await comm.disconnect()
    lines = [r for r in caplog.records if r.name == "games.adapters.consumers"]
    assert len(lines) == 1
    assert len(lines[0].getMessage()) < 120
    assert not lines[0].exc_info
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_expected_refusals_log_one_line_without_a_traceback(owner, caplog):
    client = Client()
    client.force_login(owner)
    with caplog.at_level(logging.WARNING, logger="django.request"):
        assert client.get("/mod/").status_code == 403
        assert client.get("/tables/" + "9" * 8000 + "/").status_code == 404
        assert client.get("/tables/999999/").status_code == 404
    records = [r for r in caplog.records if r.name == "django.request"]
    assert records
    assert all(r.exc_info is None for r in records)
    assert all(len(r.getMessage()) < 300 for r in records)
    assert "Forbidden" in records[0].getMessage()


@pytest.fixture
def counted(plug):
    """A socket message type whose handler counts its calls (no rate limit of its own)."""
    calls = []

    def handler(ctx, msg):
        calls.append(msg["n"])
        return {"type": "counted", "n": msg["n"]}

    plug(make_plugin(socket_messages=lambda: {
        "count_me": SocketMessage(handler, rate=None, login=False)}))
    return calls


async def test_a_flood_is_dropped_before_any_work_and_counted(owner, counted, settings):
    """Frames beyond the connection's budget (the sum of the per-type limits)
    are dropped unread: the handler is never called for them, the counter
    rises by exactly as many, every other frame is answered."""
    settings.GAMES_ACTION_RATE, settings.GAMES_CHAT_RATE = (20, 5), (5, 10)
    settings.GAMES_PING_RATE, settings.GAMES_PING_BURST = 2.0, 5
    assert consumers.frame_budget() == (6.5, 30)
    table = await database_sync_to_async(tables.create_table)(owner, "flood")
    comm = await _open(table.pk)
    before = consumers.dropped_frames
    sent = 300
    try:
        for n in range(sent):
            await comm.send_json_to({"type": "count_me", "n": n})
        answered = []
        # each frame is either dropped (counted) or answered, in order
        while len(answered) + consumers.dropped_frames - before < sent:
            if not await comm.receive_nothing(0.1):
                msg = await comm.receive_json_from(5)
                if msg["type"] == "counted":
                    answered.append(msg["n"])
        dropped = consumers.dropped_frames - before
    finally:
        await comm.disconnect()
    assert dropped > 0
    assert len(counted) + dropped == sent
    assert answered == counted  # the handler saw exactly the frames answered
    assert counted[:30] == list(range(30))  # the burst went through, in order
