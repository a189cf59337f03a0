"""快速开始 and 好友房 on the server: which table quick start picks,
who may open a private table, the spectators switch, the lobby, the timeout
notice. The browser side is in tests/test_browser_page.py."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.test import Client

from games import access, events, play, presence, queries, snapshots, tables
from games.models import Seat, Table
from tests.helpers import force_due, make_players, make_plugin, start_game
from yuanzi_site.refusals import Refused

pytestmark = pytest.mark.django_db


def _filled(table: Table, users=(), bots=()) -> Table:
    for i, u in zip(range(4), users, strict=False):
        tables.sit(table.pk, u, i)
        presence.touch_person(f"chan-{u.pk}", u)  # online: quick start skips absent players
    for i in bots:
        tables.add_bot(table.pk, table.owner, i)
    return table


def test_quick_start_takes_the_table_with_most_people_then_the_oldest():
    a, b, b2, b3, c, d, me = make_players(7, "q")
    older = _filled(tables.create_table(a), [a])                  # 1 person
    fuller = _filled(tables.create_table(b), [b, b2, b3])         # 3 people
    _filled(tables.create_table(c, private=True), [c], bots=[1, 2])  # private: never
    same = _filled(tables.create_table(d), [d])                   # 1 person, younger
    table, alone = tables.quick_start(me)
    assert (table.pk, alone) == (fuller.pk, False)
    assert Seat.objects.get(user=me).table_id == fuller.pk
    # the next one goes to the fullest left: a tie goes to the older
    e, = make_players(1, "qe")
    assert tables.quick_start(e)[0].pk == older.pk
    assert same.pk != older.pk


def test_quick_start_never_picks_a_table_with_a_bot():
    """快速开始 once seated a player at someone else's finished bot table.
    Bots count for nothing: a table with two bots and one person loses to a
    table with one person and no bot, and a table whose practice game is over
    is never chosen."""
    a, b, c, me = make_players(4, "qb")
    practice = _filled(tables.create_table(a), [a], bots=[1, 2])   # 1 person + 2 bots
    finished = start_game([b, make_players(1, "qbx")[0]], bots=[1, 3])
    play.escape(finished.pk, b)  # a practice game, over: its table waits again
    finished.table.refresh_from_db()
    assert finished.table.status == Table.WAITING
    plain = _filled(tables.create_table(c), [c])                    # 1 person, no bot
    assert [t.pk for t in queries.quick_start_tables()] == [plain.pk]
    assert tables.quick_start(me)[0].pk == plain.pk
    other, = make_players(1, "qbo")
    assert tables.quick_start(other)[0].pk == plain.pk
    assert not Seat.objects.filter(table__in=[practice, finished.table],
                                   user__in=[me, other]).exists()


def test_quick_start_never_seats_you_at_a_wager_table():
    """A tester's quick start put a new account at a 10-coin table: a bet is
    made by choosing the table, so the fuller wager table loses to a plain one."""
    from shop import wagers

    a, b, b2, me = make_players(4, "qw")
    bet = _filled(tables.create_table(a), [a, b])                 # 2 people, a wager
    wagers.set_wager(bet.pk, a, 10)
    plain = _filled(tables.create_table(b2), [b2])                # 1 person, no wager
    assert tables.quick_start(me)[0].pk == plain.pk
    assert not Seat.objects.filter(table=bet, user=me).exists()


def test_quick_start_moves_you_from_a_waiting_table_and_refuses_in_a_game():
    a, me = make_players(2, "m")
    best = _filled(tables.create_table(a), [a])
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
    assert alone
    assert table.pk != own.pk
    assert table.owner_id == me.pk


def test_quick_start_skips_a_table_a_seat_policy_refuses(plug):
    a, b, me = make_players(3, "pol")
    refused = _filled(tables.create_table(a), [a, make_players(1, "pol2")[0]])
    ok = _filled(tables.create_table(b), [b])

    def policy(table, user, moment):
        if moment == "sit" and table.pk == refused.pk:
            raise Refused("not_owner", "not for you")

    plug(make_plugin(check_seat=policy))
    assert tables.quick_start(me)[0].pk == ok.pk


def test_a_private_table_opens_only_with_its_invite_or_from_inside(django_user_model):
    owner, guest, seated, mod = make_players(4, "pv")
    table = tables.create_table(owner, "好友房", private=True)
    assert len(table.room_code) == 6
    assert table.room_code.isdigit()
    assert len(table.invite_token) >= 20
    tables.sit(table.pk, seated, 1)
    Group.objects.get_or_create(name="moderators")[0].user_set.add(mod)
    assert not access.may_open(table, guest, None)
    assert not access.may_open(table, guest, "wrong")
    assert access.may_open(table, guest, table.invite_token)
    assert all(access.may_open(table, u, None) for u in (owner, seated, mod))
    assert table.pk not in {r["id"] for r in snapshots.lobby_rows()}
    assert access.by_code(table.room_code).pk == table.pk
    assert access.by_code("12345") is None
    assert access.by_code("abcdef") is None

    client = Client()
    client.force_login(guest)
    assert client.get(f"/tables/{table.pk}/").status_code == 404
    assert client.get(f"/tables/{table.pk}/?invite=nope").status_code == 404
    assert client.get(f"/tables/{table.pk}/?invite={table.invite_token}").status_code == 200
    assert client.get(f"/tables/{table.pk}/").status_code == 200  # remembered

    # spectators off keeps the game from a standing guest, not the table
    # (tests/test_friend_room.py)
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
    # the limit counts per clock minute: start early in one, so all 11 tries share it
    if time.time() % 60 > 50:
        time.sleep(60.5 - time.time() % 60)
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

    def listen(event):
        user_id, notice = event.user_id, event.notice
        sent.append((user_id, notice))

    events.subscribe(events.Notice, listen)
    try:
        force_due(game)
        with django_capture_on_commit_callbacks(execute=True):
            assert play.run_due(game.pk)
    finally:
        events.unsubscribe(events.Notice, listen)
    (uid, notice), = [s for s in sent if s[1]["code"] == "turn_timeout"]
    assert uid == players[seat].pk
    params = notice["params"]
    assert params["action"] == "play"
    assert len(params["cards"]) == 1
    assert params["auto"] is False
    assert "auto-play" in notice["message"] or "托管" in notice["message"]


def test_a_quick_phrase_is_said_by_index_through_the_chat():
    from games import phrases
    from games.models import ChatMessage

    me, = make_players(1, "ph")
    table = tables.create_table(me)
    phrases.say(table.pk, me, 1)
    assert ChatMessage.objects.get(table=table).text == phrases.phrases()[1]
    # ASCII-digit text is a number (docs/protocol.md "Input rules"), "１" is not
    for bad in (-1, len(phrases.phrases()), "１", " 1", True, None, 1.0):
        with pytest.raises(Refused) as e:
            phrases.say(table.pk, me, bad)
        assert e.value.reason == "bad_message"
    assert ChatMessage.objects.filter(table=table).count() == 1


# --- the creator seated and 和机器人练习 ---------------------------------------------------


def test_the_creator_of_a_table_is_seated_on_creation():
    me, friend = make_players(2, "cr")
    first, why = tables.open_table(me, "一号")
    assert why is None
    assert Seat.objects.get(user=me).table_id == first.pk
    assert Seat.objects.get(user=me).index == 0
    tables.sit(first.pk, friend, 1)
    # a second table moves them from the first, which keeps the friend
    second, why = tables.open_table(me, "二号", private=True)
    assert why is None
    assert Seat.objects.get(user=me).table_id == second.pk
    assert list(Seat.objects.filter(table=first, user__isnull=False)
                .values_list("user_id", flat=True)) == [friend.pk]


def test_opening_a_table_is_refused_while_you_play_and_changes_nothing():
    """开桌 during a running game opened a table without its creator, an
    orphan in the lobby: it is refused as 快速开始 and 练习 are
    (``seated_elsewhere``, naming the game's table), and nothing is created."""
    players = make_players(4, "busy")
    game = start_game(players)
    before = Table.objects.count()
    with pytest.raises(Refused) as e:
        tables.open_table(players[2], "等我")
    assert e.value.reason == "seated_elsewhere"
    assert e.value.params == {"table_id": game.table_id}
    assert Table.objects.count() == before
    assert not Table.objects.filter(name="等我").exists()
    assert Seat.objects.get(user=players[2]).table_id == game.table_id  # still playing there
    client = Client()
    client.force_login(players[2])
    page = client.post("/tables/new/", {"name": "等我"}, follow=True)
    assert page.redirect_chain[-1][0] == "/"
    html = page.content.decode()
    assert "请先打完这局" in html
    assert f'<a href="/tables/{game.table_id}/">' in html
    assert Table.objects.count() == before


def test_the_empty_table_limit_counts_the_table_the_creator_leaves(settings):
    settings.GAMES_MAX_IDLE_TABLES = 1
    me, = make_players(1, "lim")
    first, _ = tables.open_table(me, "一号")
    # sitting at 二号 would leave 一号 empty: that is the one empty table allowed,
    # so 一号 closes unless someone else is looking at it
    presence.touch_presence("c1", first.pk, None)
    with pytest.raises(Refused) as e:
        tables.open_table(me, "二号")
    assert e.value.reason == "too_many_tables"
    assert Table.objects.filter(owner=me).count() == 1
    assert Seat.objects.get(user=me).table.name == "一号"
    presence.clear()
    tables.open_table(me, "二号")
    assert Table.objects.get(pk=first.pk).closed
    assert Seat.objects.get(user=me).table.name == "二号"


@pytest.mark.parametrize("level", ["beginner", "expert"])
def test_practice_gives_a_started_game_with_three_bots_of_the_level(level):
    me, = make_players(1, "pr" + level)
    waiting = tables.create_table(me)
    tables.sit(waiting.pk, me, 0)
    table = tables.practice(me, level)
    assert table.status == Table.PLAYING
    assert table.name == f"练习桌 {table.pk} · Practice {table.pk}"  # bilingual: read by all
    seats = list(Seat.objects.filter(table=table).order_by("index"))
    assert seats[0].user_id == me.pk
    assert [(s.is_bot, s.bot_policy) for s in seats[1:]] == [(True, level)] * 3
    game = table.current_game
    assert game.practice
    assert game.state["bots"] == [None, level, level, level]
    assert not Seat.objects.filter(table=waiting, user=me).exists()  # moved, one seat


def test_practice_is_refused_while_you_play_and_changes_nothing():
    players = make_players(4, "prb")
    start_game(players)
    before = Table.objects.count()
    with pytest.raises(Refused) as e:
        tables.practice(players[1], "normal")
    assert e.value.reason == "seated_elsewhere"
    with pytest.raises(Refused) as e:
        tables.practice(make_players(1, "prx")[0], "grandmaster")
    assert e.value.reason == "bad_bot"
    assert Table.objects.count() == before


def test_a_refused_practice_links_back_to_the_running_game():
    """A tester refused 和机器人练习 while playing had to find their game: the
    lobby's message links to it (``params.table_id`` of ``seated_elsewhere``)."""
    players = make_players(4, "prl")
    game = start_game(players)
    client = Client()
    client.force_login(players[1])
    for url in ("/tables/practice/", "/tables/quick/"):
        page = client.post(url, {"bot": "normal"}, follow=True).content.decode()
        assert f'<a href="/tables/{game.table_id}/">' in page, url
        assert "请先打完这局" in page, url  # a rated game is finished, not left
    with pytest.raises(Refused) as e:
        tables.practice(players[1], "normal")
    assert e.value.params == {"table_id": game.table_id}


def test_the_lobby_buttons_open_a_seated_table_and_a_practice_game():
    me, = make_players(1, "web")
    client = Client()
    client.force_login(me)
    response = client.post("/tables/new/", {"name": "网页桌"})
    table = Table.objects.get(name="网页桌")
    assert response["Location"] == f"/tables/{table.pk}/"
    assert Seat.objects.get(user=me).table_id == table.pk
    response = client.post("/tables/practice/", {"bot": "expert"})
    game = Seat.objects.get(user=me).table.current_game
    assert response["Location"] == f"/tables/{game.table_id}/"
    assert game.state["bots"][1:] == ["expert"] * 3
    # while that game runs no other table opens: the lobby says how to leave it
    page = client.post("/tables/new/", {"name": "下一桌"}, follow=True)
    assert page.redirect_chain[-1][0] == "/"
    assert "练习桌" in page.content.decode()
    assert "打练习局：回到那里点离开即可（不罚）" in page.content.decode()
    assert not Table.objects.filter(name="下一桌").exists()
    page = client.post("/tables/practice/", {"bot": "normal"}, follow=True)
    assert page.redirect_chain[-1][0] == "/"
    # a practice game is not "finished first": it is left at no cost, or left
    # for you once its page has been closed a while (games.deserted)
    assert "打练习局：回到那里点离开即可（不罚）" in page.content.decode()
    assert "两分钟内会自动为你离开" in page.content.decode()
    assert "请先打完这局" not in page.content.decode()
    english = client.post("/tables/practice/", {"bot": "normal"}, follow=True,
                          HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "go back there and press Leave (no penalty)" in english
    assert client.get("/tables/practice/").status_code == 405


def test_a_room_code_typed_in_full_width_digits_opens_the_table():
    """A Chinese input method in full-width mode types ６３７６４８: the same
    code (QA: it said no table has it)."""
    owner, = make_players(1, "fw")
    private = tables.create_table(owner, private=True)
    wide = "".join(chr(ord(d) - ord("0") + ord("０")) for d in private.room_code)
    client = Client()
    client.force_login(make_players(1, "fwfriend")[0])
    answer = client.post("/tables/join/", {"code": wide})
    assert answer.status_code == 302
    assert answer["Location"] == f"/tables/{private.pk}/"
    # typed as the page spaces it out (a tester: "459 240" was refused)
    code = private.room_code
    spaced = client.post("/tables/join/", {"code": f" {code[:3]} {code[3:]}\u3000"})
    assert spaced["Location"] == f"/tables/{private.pk}/"
