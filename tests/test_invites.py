"""Invites to a table (RULES.md §12): the grant they give (a private table
opens to the invitee only, until two minutes pass or the game starts), every
refusal of ``POST /api/tables/<id>/invite`` and ``/api/invites/<id>/…``
(docs/api.md), the silence of a block, the friend-online notice, the lobby's
friends panel and the pages' Open Graph preview."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import inbox
from accounts.models import Notification, Profile
from games import events, presence, tables
from games.models import Seat, Table
from shop import ledger, wagers
from shop.models import CoinEntry
from social import blocks, friends, invites, lists, online
from social.models import SocialSettings, TableInvite
from tests.helpers import listening, make_players

pytestmark = pytest.mark.django_db


def _client(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


def _invite(client: Client, table_id: int, username: str):
    r = client.post(reverse("api_invite", args=[table_id]), {"username": username},
                    HTTP_ACCEPT="application/json")
    return r.status_code, r.json()


def _answer(client: Client, invite_id: int, action: str):
    name = "api_invite_accept" if action == "accept" else "api_invite_decline"
    r = client.post(reverse(name, args=[invite_id]), HTTP_ACCEPT="application/json")
    return r.status_code, r.json()


def _befriend(a, b) -> None:
    friends.request(a, b)
    friends.accept(b, a)


def _private(owner) -> Table:
    table, unseated = tables.open_table(owner, "好友桌", private=True)
    assert unseated is None
    return table


def _opens(client: Client, table: Table) -> bool:
    return client.get(reverse("table", args=[table.pk])).status_code == 200


def _rows() -> list:
    return sorted(TableInvite.objects.values_list("from_user_id", "to_user_id", "status"))


def _refused(client: Client, table_id: int, username: str, reason: str) -> None:
    before, notes = _rows(), Notification.objects.count()
    status, body = _invite(client, table_id, username)
    assert (status, body["ok"], body["reason"]) == (400, False, reason)
    assert _rows() == before
    assert Notification.objects.count() == notes


# --- the invite and its grant ---------------------------------------------------------------


def test_an_invite_notifies_and_accepting_opens_a_private_table_and_seats(
        owner, partner, django_capture_on_commit_callbacks):
    table = _private(owner)
    guest = _client(partner)
    assert not _opens(guest, table)  # a private table, no token: as if it did not exist
    with listening(events.UserFrame) as frames, \
            django_capture_on_commit_callbacks(execute=True):
        status, body = _invite(_client(owner), table.pk, "partner")
    assert (status, body["ok"]) == (200, True)
    note = Notification.objects.get(user=partner)
    made = TableInvite.objects.get()
    assert note.kind == "table_invite"
    assert note.link == f"/invites/{made.pk}/"
    assert note.params["from"] == "owner"
    assert note.params["table"] == "好友桌"
    assert note.params["wager"] == 0
    assert note.params["min_finish_rate"] == 0
    assert [f.frame["notification"]["kind"] for f in frames if f.user_id == partner.pk] \
        == ["table_invite"]
    assert not _opens(guest, table)  # not before it is accepted
    status, body = _answer(guest, made.pk, "accept")
    assert (status, body["seated"], body["url"]) == (200, True, f"/tables/{table.pk}/")
    assert Seat.objects.get(user=partner).table_id == table.pk
    boot = guest.get(reverse("table", args=[table.pk])).context["boot"]["table"]
    assert boot["room_code"] == table.room_code  # seated: theirs to see, as any player's
    Seat.objects.filter(user=partner).update(user=None)  # stood up: the grant still opens it
    page = guest.get(reverse("table", args=[table.pk]))
    assert page.context["boot"]["table"]["room_code"] is None  # the owner's to share
    assert table.invite_token not in page.content.decode()


def test_a_seated_player_invites_too_but_not_a_stranger_to_the_table(owner, partner, rival,
                                                                       outsider):
    table = _private(owner)
    tables.sit(table.pk, partner, 1)
    assert _invite(_client(partner), table.pk, "rival")[0] == 200
    _refused(_client(outsider), table.pk, "rival", "not_seated")


def test_accepting_with_no_free_seat_lets_them_watch(owner, outsider):
    table = _private(owner)
    fill = make_players(3, prefix="f")
    for i, u in enumerate(fill, start=1):
        tables.sit(table.pk, u, i)
    invites.invite(owner, table.pk, outsider)
    found, seated = invites.accept(outsider, TableInvite.objects.get().pk)
    assert seated is False
    assert found.status == TableInvite.ACCEPTED
    assert _opens(_client(outsider), table)


def test_accepting_moves_from_a_waiting_seat_but_not_from_a_running_game(owner, partner):
    table = _private(owner)
    other = tables.create_table(partner, "别桌")
    tables.sit(other.pk, partner, 0)
    invites.invite(owner, table.pk, partner)
    invites.accept(partner, TableInvite.objects.get().pk)
    assert list(Seat.objects.filter(user=partner).values_list("table_id", flat=True)) == [table.pk]

    busy = make_players(4, prefix="busy")
    running = tables.create_table(busy[0], "忙桌")
    for i, u in enumerate(busy):
        tables.sit(running.pk, u, i)
    for u in busy:
        tables.set_ready(running.pk, u, True)
    invites.invite(owner, table.pk, busy[1])
    pending = TableInvite.objects.get(to_user=busy[1])
    status, body = _answer(_client(busy[1]), pending.pk, "accept")
    assert (status, body["reason"]) == (400, "seated_elsewhere")
    assert body["params"] == {"table_id": running.pk}
    # the invite page's form (no JavaScript): the refusal links back to the game
    page = _client(busy[1]).post(reverse("api_invite_accept", args=[pending.pk]), follow=True)
    assert page.redirect_chain[-1][0] == f"/invites/{pending.pk}/"
    assert f'<a href="/tables/{running.pk}/">' in page.content.decode()
    pending.refresh_from_db()
    assert pending.status == TableInvite.PENDING
    assert Seat.objects.get(user=busy[1]).table_id == running.pk


def test_opening_the_invite_page_reads_its_notification(owner, partner,
                                                       django_capture_on_commit_callbacks):
    """The inbox badge counts an invite no more once its page is opened (a
    tester's badge stayed at 1); the other unread ones stay unread."""
    table = _private(owner)
    invites.invite(owner, table.pk, partner)
    made = TableInvite.objects.get()
    inbox.post(partner.pk, "table_invite", {"from": "x", "table": "y", "table_id": 1,
                                            "invite_id": 0, "wager": 0}, "/elsewhere/")
    assert inbox.unread_count(partner.pk) == 2
    with listening(events.UserFrame) as frames, \
            django_capture_on_commit_callbacks(execute=True):
        assert _client(partner).get(f"/invites/{made.pk}/").status_code == 200
    assert inbox.unread_count(partner.pk) == 1
    assert Notification.objects.get(user=partner, link=f"/invites/{made.pk}/").read_at is not None
    assert [f.frame for f in frames if f.user_id == partner.pk] == [{"type": "unread", "unread": 1}]
    with listening(events.UserFrame) as frames, \
            django_capture_on_commit_callbacks(execute=True):  # again: nothing left, nothing sent
        _client(partner).get(f"/invites/{made.pk}/")
    assert frames == []


# --- cannot_invite, for each cause ----------------------------------------------------------


def test_cannot_invite_someone_the_owner_blocks(owner, partner, rival):
    table = _private(owner)
    tables.sit(table.pk, rival, 1)
    blocks.block(owner, partner)
    _refused(_client(rival), table.pk, "partner", "cannot_invite")


def test_cannot_invite_someone_who_cannot_afford_the_wager(owner, partner):
    table = tables.create_table(owner, "赌桌")
    with transaction.atomic():
        ledger.credit(owner, 2_000_000, CoinEntry.Reason.GRANT, note="test")
    tables.sit(table.pk, owner, 0)
    wagers.set_wager(table.pk, owner, 10240)
    assert Profile.objects.get(user=partner).coins < wagers.needed(10240)
    _status, body = _invite(_client(owner), table.pk, "partner")
    assert body["reason"] == "cannot_invite"
    assert "coin" not in body["message"].lower()  # never says why


def test_cannot_invite_a_stranger_who_turned_invites_from_strangers_off(owner, partner, rival):
    table = _private(owner)
    invites.change_settings(partner, {"invites_from_anyone": False})
    _refused(_client(owner), table.pk, "partner", "cannot_invite")
    _befriend(owner, partner)  # a friend still may
    assert _invite(_client(owner), table.pk, "partner")[0] == 200
    assert SocialSettings.objects.get(user=partner).invites_from_anyone is False
    assert _invite(_client(owner), table.pk, "rival")[0] == 200  # the default: on


def test_cannot_invite_someone_already_seated_there_or_yourself(owner, partner):
    table = _private(owner)
    tables.sit(table.pk, partner, 1)
    _refused(_client(owner), table.pk, "partner", "cannot_invite")
    _refused(_client(owner), table.pk, "owner", "friend_self")


def test_an_invite_to_someone_who_blocks_you_looks_sent_and_is_never_delivered(
        owner, partner, django_capture_on_commit_callbacks):
    table = _private(owner)
    blocks.block(partner, owner)
    with listening(events.UserFrame) as frames, \
            django_capture_on_commit_callbacks(execute=True):
        status, body = _invite(_client(owner), table.pk, "partner")
    assert (status, body["ok"]) == (200, True)  # as any other
    made = TableInvite.objects.get()
    assert made.silent
    assert not Notification.objects.filter(user=partner).exists()
    assert not [f for f in frames if f.user_id == partner.pk]
    guest = _client(partner)
    assert _answer(guest, made.pk, "accept")[1]["reason"] == "no_invite"
    assert guest.get(reverse("invite", args=[made.pk])).status_code == 404
    assert not _opens(guest, table)
    # and again: it looks pending, like any other
    assert _invite(_client(owner), table.pk, "partner")[1]["reason"] == "already_invited"


# --- limits and expiry ----------------------------------------------------------------------


def test_one_pending_invite_per_person_and_table(owner, partner):
    table = _private(owner)
    assert _invite(_client(owner), table.pk, "partner")[0] == 200
    _refused(_client(owner), table.pk, "partner", "already_invited")
    TableInvite.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert _invite(_client(owner), table.pk, "partner")[0] == 200  # the old one expired


def test_twenty_invites_in_ten_minutes(owner):
    table = _private(owner)
    guests = make_players(21, prefix="g")
    client = _client(owner)
    for g in guests[:20]:
        assert _invite(client, table.pk, g.username)[0] == 200
    _refused(client, table.pk, guests[20].username, "rate_limited")
    TableInvite.objects.update(created_at=timezone.now() - timedelta(minutes=11))
    assert _invite(client, table.pk, guests[20].username)[0] == 200


def test_an_expired_invite_opens_nothing(owner, partner):
    table = _private(owner)
    invites.invite(owner, table.pk, partner)
    made = TableInvite.objects.get()
    TableInvite.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    guest = _client(partner)
    assert _answer(guest, made.pk, "accept")[1]["reason"] == "invite_expired"
    assert not Seat.objects.filter(user=partner).exists()
    # accepted, then two minutes pass: the table is shut again
    TableInvite.objects.update(status=TableInvite.PENDING,
                               expires_at=timezone.now() + timedelta(minutes=2))
    Seat.objects.filter(table=table).exclude(user=owner).update(user=None)
    fill = make_players(3, prefix="f")
    for i, u in enumerate(fill, start=1):
        tables.sit(table.pk, u, i)
    invites.accept(partner, made.pk)
    assert _opens(guest, table)
    TableInvite.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert not _opens(guest, table)


def test_the_game_starting_expires_the_invite(owner, partner):
    table = _private(owner)
    fill = make_players(3, prefix="f")
    for i, u in enumerate(fill, start=1):
        tables.sit(table.pk, u, i)
    invites.invite(owner, table.pk, partner)
    late = TableInvite.objects.get()
    invites.invite(fill[0], table.pk, make_players(1, prefix="x")[0])
    accepted = TableInvite.objects.exclude(pk=late.pk).get()
    invites.accept(accepted.to_user, accepted.pk)
    for u in [owner, *fill]:
        tables.set_ready(table.pk, u, True)
    assert Table.objects.get(pk=table.pk).status == Table.PLAYING
    assert set(TableInvite.objects.values_list("status", flat=True)) == {TableInvite.EXPIRED}
    assert not _opens(_client(accepted.to_user), table)
    assert _answer(_client(partner), late.pk, "accept")[1]["reason"] == "invite_expired"


def test_declining_and_answering_someone_elses_invite(owner, partner, rival):
    table = _private(owner)
    invites.invite(owner, table.pk, partner)
    made = TableInvite.objects.get()
    assert _answer(_client(rival), made.pk, "accept")[1]["reason"] == "no_invite"
    assert _client(rival).get(reverse("invite", args=[made.pk])).status_code == 404
    page = _client(partner).get(reverse("invite", args=[made.pk]))
    assert page.status_code == 200
    assert "好友桌" in page.content.decode()
    assert _answer(_client(partner), made.pk, "decline")[0] == 200
    assert _answer(_client(partner), made.pk, "accept")[1]["reason"] == "invite_expired"
    assert not _opens(_client(partner), table)


def test_an_anonymous_invite_is_401_and_an_unknown_name_404(owner):
    table = _private(owner)
    r = Client().post(reverse("api_invite", args=[table.pk]), {"username": "owner"})
    assert r.status_code == 401
    assert _invite(_client(owner), table.pk, "nobody")[0] == 404


# --- where a friend is ----------------------------------------------------------------------


def test_a_friend_at_a_private_table_shows_once_you_hold_an_invite(owner, partner, rival):
    table = _private(owner)
    _befriend(partner, owner)
    presence.touch_presence("chan-o", table.pk, owner)
    where = lists.friends(partner, 1, {}).rows
    assert where[0]["table"] == {"id": None, "name": None, "private": True}
    invites.invite(owner, table.pk, partner)
    invites.accept(partner, TableInvite.objects.get().pk)
    Seat.objects.filter(user=partner).update(user=None)
    row = lists.friends(partner, 1, {}).rows[0]
    assert row["online"]
    assert row["table"]["id"] == table.pk
    assert row["table"]["seated"]


# --- a friend comes online ------------------------------------------------------------------


def test_a_friend_online_notice_once_a_session_and_only_when_asked(
        owner, partner, rival, django_capture_on_commit_callbacks):
    _befriend(owner, partner)
    _befriend(owner, rival)
    invites.change_settings(partner, {"online_notices": True})
    presence.touch_person("chan-p", partner)
    presence.touch_person("chan-r", rival)  # online, but did not ask
    with listening(events.Notice) as heard, django_capture_on_commit_callbacks(execute=True):
        assert online.came_online(owner) == [partner.pk]
        assert online.came_online(owner) == []  # a reconnect: nobody told again
    assert [(n.user_id, n.notice["code"], n.notice["params"]) for n in heard] == [
        (partner.pk, "friend_online", {"name": "owner"})]


# --- pages ----------------------------------------------------------------------------------


def test_the_lobby_has_the_friends_panel_for_a_person(owner):
    page = _client(owner).get(reverse("lobby")).content.decode()
    assert 'id="friends-panel"' in page
    assert 'id="friends-panel"' not in Client().get(reverse("lobby")).content.decode()


def test_a_table_page_previews_and_a_private_one_says_only_friends_room(owner):
    public = tables.create_table(owner, "公开桌")
    page = Client().get(reverse("table", args=[public.pk])).content.decode()
    assert 'property="og:title"' in page
    assert "公开桌" in page
    assert 'property="og:image"' in page
    assert "og.png" in page
    assert "已坐 0/4，押宝 0 金币" in page  # seats taken and the wager, in the description
    private = _private(owner)
    html = Client().get(reverse("table", args=[private.pk]) + f"?invite={private.invite_token}"
                        ).content.decode()
    head = html.split("</head>")[0]
    assert "好友房" in head
    assert "好友桌" not in head
    assert private.room_code not in head
    from django.contrib.staticfiles import finders

    assert Path(finders.find("img/og.png")).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_profile_shows_the_friend_state_and_adds(owner, partner):
    client = _client(owner)
    page = client.get(reverse("profile", args=["partner"])).content.decode()
    assert 'data-state="none"' in page
    assert "/api/friends/partner/request" in page
    client.post(reverse("api_friend_action", args=["partner", "request"]),
                {"next": reverse("profile", args=["partner"])})
    page = client.get(reverse("profile", args=["partner"])).content.decode()
    assert 'data-state="outgoing"' in page
    assert 'id="profile-friend"' not in client.get(reverse("profile_self")).content.decode()


def test_the_settings_form_on_the_friends_page(owner):
    client = _client(owner)
    page = client.get(reverse("friends")).content.decode()
    assert 'id="setting-invites" checked' in page
    assert 'id="setting-online">' in page
    r = client.post(reverse("api_social_settings"),
                    {"invites_from_anyone": ["0"], "online_notices": ["0", "1"],
                     "next": reverse("friends")})
    assert r.status_code == 302
    mine = SocialSettings.objects.get(user=owner)
    assert (mine.invites_from_anyone, mine.online_notices) == (False, True)
    r = client.get(reverse("api_social_settings"), HTTP_ACCEPT="application/json")
    assert r.json() == {"ok": True, "invites_from_anyone": False, "online_notices": True}


def test_the_table_page_has_the_invite_box_and_its_module(owner):
    table = _private(owner)
    page = _client(owner).get(reverse("table", args=[table.pk])).content.decode()
    assert 'id="table-invite"' in page
    assert f"/api/tables/{table.pk}/invite" in page
    assert "social/table.js" in page


def test_a_new_block_ends_the_pending_invites_between_the_two(owner, partner):
    _befriend(owner, partner)
    table = _private(owner)
    status, body = _invite(_client(owner), table.pk, "partner")
    assert (status, body["ok"]) == (200, True)
    made = TableInvite.objects.get()
    blocks.block(partner, owner)  # RULES.md §12: a block ends invites
    made.refresh_from_db()
    assert made.status == TableInvite.EXPIRED
    assert _answer(_client(partner), made.pk, "accept")[1]["ok"] is False
    assert not _opens(_client(partner), table)


def test_an_invites_words_name_the_wager_and_minimum_only_when_set():
    from django.utils import translation

    from accounts import inbox

    plain = {"from": "laowang", "table": "桌 7", "wager": 0, "min_finish_rate": 0}
    both = {**plain, "wager": 40, "min_finish_rate": 90}
    with translation.override("en"):
        assert inbox.render("table_invite", plain) == (
            "laowang invites you to the table “桌 7”: join within two minutes.")
        assert "wager 40 coins, finish rate at least 90%" in inbox.render("table_invite", both)
    with translation.override("zh-hans"):
        assert "押宝" not in inbox.render("table_invite", plain)
        assert "（押宝 40 金币，完成率至少 90%）" in inbox.render("table_invite", both)
