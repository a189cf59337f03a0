"""Moderator actions take effect live at the table, through real websockets
(``WebsocketCommunicator`` through ``yuanzi_site.asgi.application``, as in
``tests/test_consumers.py``): close, kick with its table ban, rename, mute and
its end, suspension closing the user's sockets; reports over the socket.
``transaction=True``: consumers reach the database from other threads and
broadcasts go out after commit.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from accounts.models import Profile, RatingEntry
from games import tables
from games.models import ChatMessage, Game, Table
from moderation import actions, reports
from moderation.models import AuditEntry, Report, Sanction
from tests import test_consumers
from tests.test_consumers import _open, _start_game

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async
# the same socket bookkeeping as tests/test_consumers.py (players, table: conftest.py)
socks = test_consumers.socks


@pytest.fixture(autouse=True)
def _site(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                   "LOCATION": f"mod-{uuid.uuid4()}"}}
    settings.GAMES_SCHEDULER = "none"


async def _seated_game(table, players, socks, watcher=None):
    for seat, user in enumerate(players):
        socks.append(await _open(table.pk, user, seat=seat))
    if watcher is not None:
        socks.append(await _open(table.pk, watcher))
    socks.append(await _open(table.pk))  # an anonymous spectator
    game = await _start_game(table, players)
    for s in socks:
        await s.until(lambda m: m["type"] == "game")
    return game


async def _seen(sock, pred):
    """A frame already received that satisfies ``pred``, else the next one that does."""
    for frame in sock.frames:
        if pred(frame):
            return frame
    return await sock.until(pred)


async def _closed(sock) -> int:
    out = await sock.comm.receive_output(timeout=5)
    while out["type"] != "websocket.close":
        out = await sock.comm.receive_output(timeout=5)
    return out["code"]


async def test_close_reaches_every_client_and_changes_nothing(table, players, outsider, mod,
                                                              socks):
    before = await db(lambda: {p.user_id: (p.rating_points, p.coins)
                               for p in Profile.objects.all()})()
    game = await _seated_game(table, players, socks, watcher=outsider)
    await db(actions.close_table)(mod, table.pk, "赌博")
    for s in socks:
        notice = await s.until(lambda m: m["type"] == "notice")
        assert notice["code"] == "moderator_close"
        assert notice["params"]["reason"] == "赌博"
        assert (await s.until(lambda m: m["type"] == "table_closed"))["id"] == table.pk
        assert await _closed(s) == 4404
    g = await db(Game.objects.get)(pk=game.pk)
    assert g.end_reason == "moderator_close"
    assert g.record["result"]["reason"] == "moderator_close"
    assert not await db(RatingEntry.objects.filter(game=g).exists)()
    after = await db(lambda: {p.user_id: (p.rating_points, p.coins)
                              for p in Profile.objects.all()})()
    assert after == before
    assert (await db(Table.objects.get)(pk=table.pk)).closed


async def test_kick_ends_the_game_live_and_the_ban_refuses_sitting(table, players, mod, socks):
    game = await _seated_game(table, players, socks)
    await db(actions.kick)(mod, table.pk, "partner", "骂人")
    kicked = socks[2]
    notice = await kicked.until(lambda m: m["type"] == "notice")
    assert notice["code"] == "moderator_kick"
    assert notice["params"]["minutes"] == 30
    over = await socks[0].until(lambda m: m["type"] == "game" and m["view"]["status"] == "over")
    assert over["view"]["result"]["reason"] == "moderator_kick"
    assert over["view"]["result"]["rating_changes"] == [0, 0, 0, 0]
    told = await _seen(socks[0], lambda m: m["type"] == "notice")
    assert told["code"] == "game_ended_by_moderator"
    await _seen(socks[0], lambda m: m["type"] == "table" and m["table"]["seats"][2]["player"]
                is None)
    await kicked.send({"type": "sit", "seat": 2})
    err = await kicked.error()
    assert err["reason"] == "table_banned"
    assert (await db(Game.objects.get)(pk=game.pk)).end_reason == "moderator_kick"


async def test_rename_shows_at_the_table(table, owner, mod, socks):
    sock = await _open(table.pk, owner)
    socks.append(sock)
    await db(actions.rename)(mod, table.pk, "新名字", "广告")
    frame = await sock.until(lambda m: m["type"] == "table" and m["table"]["name"] == "新名字")
    assert frame["table"]["name"] == "新名字"
    notice = await _seen(sock, lambda m: m["type"] == "notice")
    assert notice["code"] == "moderator_rename"


async def test_mute_is_enforced_and_lifted_by_itself(table, owner, outsider, mod, socks):
    sock = await _open(table.pk, outsider)
    listener = await _open(table.pk, owner)
    socks += [sock, listener]
    await db(actions.mute)(mod, "outsider", "5", "m", "刷屏")
    assert (await sock.until(lambda m: m["type"] == "notice"))["code"] == "muted"
    await sock.send({"type": "chat", "text": "我还能说话吗"})
    err = await sock.error()
    assert err["reason"] == "muted"
    assert not await db(ChatMessage.objects.filter(user=outsider).exists)()
    await db(lambda: Sanction.objects.filter(kind="mute").update(
        until=timezone.now() - timedelta(seconds=1)))()
    await sock.send({"type": "chat", "text": "又能说了"})
    line = await listener.until(lambda m: m["type"] == "chat")
    assert line["line"]["text"] == "又能说了"
    assert line["line"]["moderator"] is False


async def test_suspension_closes_every_socket_of_the_user(table, players, mod, socks):
    other = await db(tables.create_table)(players[0], "另一桌")
    game = await _seated_game(table, players, socks)
    elsewhere = await _open(other.pk, players[1])
    socks.append(elsewhere)
    lobby = test_consumers.WebsocketCommunicator(  # the lobby socket too
        test_consumers.application, "/ws/lobby/",
        headers=[test_consumers.ORIGIN,
                 (b"cookie", await db(test_consumers._cookie)(players[1]))])
    assert (await lobby.connect(timeout=5))[0]
    lobby = test_consumers.Sock(lobby)
    socks.append(lobby)
    assert (await lobby.recv())["type"] == "tables"
    await db(actions.suspend)(mod, "opponent", "1", "d", "外挂")
    for s in (socks[1], elsewhere, lobby):
        notice = await s.until(lambda m: m["type"] == "notice")
        assert notice["code"] == "suspended"
        assert notice["params"]["reason"] == "外挂"
        assert await _closed(s) == 4403
    over = await _seen(socks[0], lambda m: m["type"] == "game"
                       and m["view"]["status"] == "over")
    assert over["view"]["result"]["reason"] == "suspension"
    assert (await db(Game.objects.get)(pk=game.pk)).end_reason == "suspension"
    # reconnecting: the session no longer loads the user (anonymous: cannot sit)
    again = await _open(table.pk, players[1])
    socks.append(again)
    await again.send({"type": "sit", "seat": 1})
    assert (await again.error())["reason"] == "login_required"


async def test_reports_over_the_socket_and_their_outcome(table, owner, outsider, mod, socks):
    reporter = await _open(table.pk, owner)
    socks.append(reporter)
    await db(tables.sit)(table.pk, outsider, 1)
    line = await db(ChatMessage.objects.create)(table=table, user=outsider, text="滚")
    await reporter.send({"type": "report", "category": "chat_abuse", "line_id": line.pk,
                         "note": "骂人"})
    reply = await reporter.until(lambda m: m["type"] == "reported")
    report = await db(Report.objects.get)(pk=reply["id"])
    assert report.target_id == outsider.pk
    assert report.chat_line_id == line.pk
    for bad, code in (({"category": "nope", "user_id": outsider.pk}, "bad_report"),
                      ({"category": "other", "user_id": owner.pk}, "report_self"),
                      ({"category": "other", "user_id": mod.pk}, "bad_report"),
                      ({"category": "other", "user_id": outsider.pk, "note": "x" * 501},
                       "bad_report")):
        await reporter.send({"type": "report", **bad})
        assert (await reporter.error())["reason"] == code
    await db(reports.handle)(mod, report.pk, "已禁言", resolved=True)
    notice = await reporter.until(lambda m: m["type"] == "notice")
    assert notice["code"] == "report_outcome"
    assert "已禁言" not in notice["message"]
    assert await db(AuditEntry.objects.filter(action="report").count)() == 1


async def test_a_moderator_watches_a_table_with_spectators_off(players, outsider, mod, socks):
    """A private table whose owner keeps spectators out: a plain user without
    the invite is refused (socket 4404, page 404), a moderator connects as a
    spectator, gets the seat-less view, and the snapshot lists them among the
    watchers, badged."""
    from django.test import Client

    owner = players[0]
    private = await db(tables.create_table)(owner, "闭门桌", private=True)
    await db(tables.set_spectators)(private.pk, owner, False)
    game = await _start_game(private, players)
    seated = await _open(private.pk, owner, seat=0)
    socks.append(seated)

    comm = test_consumers.WebsocketCommunicator(
        test_consumers.application, f"/ws/table/{private.pk}/",
        headers=[test_consumers.ORIGIN, (b"cookie", await db(test_consumers._cookie)(outsider))])
    connected, _ = await comm.connect(timeout=5)
    assert connected  # accepted, then closed as if the table did not exist
    assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4404}
    await comm.disconnect()

    def page(user, path=f"/tables/{private.pk}/"):
        client = Client()
        client.force_login(user)
        return client.get(path).status_code

    assert await db(page)(outsider) == 404
    assert await db(page)(mod) == 200

    def console_row():  # the console lists it (the lobby never does), to be watched
        client = Client()
        client.force_login(mod)
        rows = client.get("/mod/tables.json").json()["tables"]
        return next(t for t in rows if t["id"] == private.pk)

    row = await db(console_row)()
    assert row["private"] is True
    assert row["spectators_allowed"] is False

    watcher = await _open(private.pk, mod)
    socks.append(watcher)
    greeting = watcher.frames[0]["table"]
    assert greeting["spectators_allowed"] is False
    assert greeting["watchers"]["names"] == [{"username": "laoli", "moderator": True}]
    assert greeting["moderators"] == [{"id": mod.pk, "username": "laoli"}]
    view = (await watcher.until(lambda m: m["type"] == "game"))["view"]
    assert view["game_id"] == game.pk
    assert view["seat"] is None
    assert view["hand"] is None
    # the players see the moderator among the watchers
    frame = await seated.until(lambda m: m["type"] == "table"
                               and m["table"]["watchers"]["names"])
    assert frame["table"]["watchers"]["names"] == [{"username": "laoli", "moderator": True}]
    assert frame["table"]["spectators"] == 1


async def test_each_page_reads_a_moderators_notice_in_its_own_language(table, players, mod,
                                                                        socks):
    """A notice caused by someone else (a moderator on a Chinese page here)
    reaches each page in that page's language (its language cookie), not the
    moderator's: ``games.events.spoken``, the consumer's ``in_my_language``."""
    from channels.testing import WebsocketCommunicator
    from django.conf import settings as django_settings
    from django.utils import translation

    from tests.test_consumers import ORIGIN, Sock, _cookie
    from yuanzi_site.asgi import application

    async def page(user, language: bytes):
        cookie = await db(_cookie)(user)
        comm = WebsocketCommunicator(application, f"/ws/table/{table.pk}/", headers=[
            ORIGIN, (b"cookie", cookie + b"; " + django_settings.LANGUAGE_COOKIE_NAME.encode()
                     + b"=" + language)])
        assert (await comm.connect(timeout=5))[0]
        sock = Sock(comm, None)
        socks.append(sock)
        return sock

    english, chinese = await page(players[0], b"en"), await page(players[1], b"zh-hans")

    def grant() -> None:
        with translation.override("zh-hans"):  # the moderator's own page
            for p in players[:2]:
                actions.coins(mod, p.username, 50, "活动奖励")

    await db(grant)()
    said = (await english.until(lambda m: m["type"] == "notice"))["message"]
    assert said == "A moderator gave you 50 coins: 活动奖励"
    said = (await chinese.until(lambda m: m["type"] == "notice"))["message"]
    assert said == "管理员发给你 50 金币：活动奖励"
    for s in (english, chinese):
        assert all("texts" not in f for f in s.frames)  # one language per page
