"""快速开始 and 好友房 on the server (issue 13): which table quick start picks,
who may open a private table, the spectators switch, the lobby, the timeout
notice. The browser side is in tests/test_browser_page.py."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.test import Client

from games import access, lifecycle, play, snapshots, tables
from games.errors import Refused
from games.models import Seat, Table
from tests.helpers import force_due, make_players, start_game

pytestmark = pytest.mark.django_db


def _filled(table: Table, users=(), bots=()) -> Table:
    for i, u in zip(range(4), users, strict=False):
        tables.sit(table.pk, u, i)
    for i in bots:
        tables.add_bot(table.pk, table.owner, i)
    return table


def test_quick_start_takes_the_fullest_then_oldest_public_table():
    a, b, c, d, me = make_players(5, "q")
    older = _filled(tables.create_table(a), [a])                  # 1 filled
    fuller = _filled(tables.create_table(b), [b], bots=[1, 2])    # 3 filled (practice)
    _filled(tables.create_table(c, private=True), [c], bots=[1, 2])  # private: never
    same = _filled(tables.create_table(d), [d])                   # 1 filled, younger
    table, alone = tables.quick_start(me)
    assert (table.pk, alone) == (fuller.pk, False)
    assert Seat.objects.get(user=me).table_id == fuller.pk
    # the next one moves from nothing to the fullest left: a tie goes to the older
    e, = make_players(1, "qe")
    assert tables.quick_start(e)[0].pk == older.pk
    assert same.pk != older.pk


def test_quick_start_moves_you_from_a_waiting_table_and_refuses_in_a_game():
    a, me = make_players(2, "m")
    best = _filled(tables.create_table(a), [a], bots=[1])
    mine = tables.create_table(me)
    tables.sit(mine.pk, me, 0)
    assert tables.quick_start(me)[0].pk == best.pk
    assert not Seat.objects.filter(table=mine, user=me).exists()
    players = make_players(4, "g")
    start_game(players)
    with pytest.raises(Refused) as e:
        tables.quick_start(players[1])
    assert e.value.reason == "seated_elsewhere"


def test_quick_start_alone_reuses_your_empty_table_or_opens_one():
    me, = make_players(1, "alone")
    own = tables.create_table(me)
    table, alone = tables.quick_start(me)
    assert (table.pk, alone) == (own.pk, True)
    Seat.objects.filter(user=me).update(user=None)
    Table.objects.filter(pk=own.pk).update(closed=True)
    table, alone = tables.quick_start(me)
    assert alone and table.pk != own.pk and table.owner_id == me.pk


def test_quick_start_skips_a_table_a_seat_policy_refuses():
    a, b, me = make_players(3, "pol")
    refused = _filled(tables.create_table(a), [a], bots=[1, 2])
    ok = _filled(tables.create_table(b), [b])

    def policy(table, user, moment):
        if moment == "sit" and table.pk == refused.pk:
            raise Refused("not_owner", "not for you")

    lifecycle.seat_policy(policy, 50)
    try:
        assert tables.quick_start(me)[0].pk == ok.pk
    finally:
        lifecycle.SEAT_POLICIES.remove(policy)


def test_a_private_table_opens_only_with_its_invite_or_from_inside(django_user_model):
    owner, guest, seated, mod = make_players(4, "pv")
    table = tables.create_table(owner, "好友房", private=True)
    assert len(table.room_code) == 6 and table.room_code.isdigit()
    assert len(table.invite_token) >= 20
    tables.sit(table.pk, seated, 1)
    Group.objects.get_or_create(name="moderators")[0].user_set.add(mod)
    assert not access.may_open(table, guest, None)
    assert not access.may_open(table, guest, "wrong")
    assert access.may_open(table, guest, table.invite_token)
    assert all(access.may_open(table, u, None) for u in (owner, seated, mod))
    assert table.pk not in {r["id"] for r in snapshots.lobby_rows()}
    assert access.by_code(table.room_code).pk == table.pk
    assert access.by_code("12345") is None and access.by_code("abcdef") is None

    client = Client()
    client.force_login(guest)
    assert client.get(f"/tables/{table.pk}/").status_code == 404
    assert client.get(f"/tables/{table.pk}/?invite=nope").status_code == 404
    assert client.get(f"/tables/{table.pk}/?invite={table.invite_token}").status_code == 200
    assert client.get(f"/tables/{table.pk}/").status_code == 200  # remembered

    # spectators off keeps the game from a standing guest, not the table
    # (issue 16: tests/test_friend_room.py)
    tables.set_spectators(table.pk, owner, False)
    table.refresh_from_db()
    assert access.may_open(table, guest, table.invite_token)
    assert not access.may_open(table, guest, None)
    assert access.may_open(table, seated, None)


def test_only_the_owner_between_games_changes_the_spectators_switch():
    owner, other = make_players(2, "sw")
    private = tables.create_table(owner, private=True)
    public = tables.create_table(other)
    for table, user, reason in ((private, other, "not_owner"), (public, other, "not_private")):
        with pytest.raises(Refused) as e:
            tables.set_spectators(table.pk, user, False)
        assert e.value.reason == reason
    players = make_players(3, "sp")
    for i, u in enumerate([owner, *players]):
        tables.sit(private.pk, u, i)
    for u in [owner, *players]:
        tables.set_ready(private.pk, u)
    with pytest.raises(Refused) as e:
        tables.set_spectators(private.pk, owner, False)
    assert e.value.reason == "game_running"
    assert Table.objects.get(pk=private.pk).spectators_allowed


def test_room_codes_are_rate_limited():
    me, = make_players(1, "rl")
    # a shared cache (Redis in CI) may hold an earlier run's count for this id
    cache.delete(f"rl:code:{me.pk}:{int(time.time() // 60)}")
    client = Client()
    client.force_login(me)
    answers = [client.post("/tables/join/", {"code": "000001"}, follow=True) for _ in range(11)]
    texts = [a.content.decode() for a in answers]
    assert all("房间号" in t or "room code" in t for t in texts)
    assert "试得太多" in texts[-1] or "Too many" in texts[-1]
    assert not any("试得太多" in t or "Too many" in t for t in texts[:10])


def test_a_single_timeout_sends_a_turn_timeout_notice(django_capture_on_commit_callbacks):
    players = make_players(4, "to")
    game = start_game(players)
    seat = game.state["turn"]
    sent = []

    def listen(user_id, notice):
        sent.append((user_id, notice))

    lifecycle.subscribe("notice", listen)
    try:
        force_due(game)
        with django_capture_on_commit_callbacks(execute=True):
            assert play.run_due(game.pk)
    finally:
        lifecycle._SUBSCRIBERS["notice"].remove(listen)
    (uid, notice), = [s for s in sent if s[1]["code"] == "turn_timeout"]
    assert uid == players[seat].pk
    params = notice["params"]
    assert params["action"] == "play" and len(params["cards"]) == 1 and params["auto"] is False
    assert "auto-play" in notice["message"] or "托管" in notice["message"]


def test_a_quick_phrase_is_said_by_index_through_the_chat():
    from games import phrases
    from games.models import ChatMessage

    me, = make_players(1, "ph")
    table = tables.create_table(me)
    phrases.say(table.pk, me, 1)
    assert ChatMessage.objects.get(table=table).text == phrases.phrases()[1]
    for bad in (-1, len(phrases.phrases()), "1", True, None, 1.0):
        with pytest.raises(Refused) as e:
            phrases.say(table.pk, me, bad)
        assert e.value.reason == "bad_message"
    assert ChatMessage.objects.filter(table=table).count() == 1
