"""The moderator console and its actions (RULES.md §12 "Moderators"):
who may use it, CSRF on every POST, each action's effect and audit row, and
every refusal changing nothing. The live effects at a table, through real
websockets, are in ``tests/test_moderation_live.py``.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.utils import timezone, translation

from accounts.models import GemCap, Profile, RatingEntry
from games import access, chat, engine, presence, snapshots, tables
from games.models import ChatMessage, Game, Seat, Table
from games.names import display_name
from moderation import actions, hooks, roles, wordfilter
from moderation.models import AuditEntry, BlockedWord, Report, Sanction
from shop.models import CoinEntry
from tests.helpers import make_players, make_plugin, start_game
from yuanzi_site.refusals import Refused

pytestmark = pytest.mark.django_db


@pytest.fixture
def game():
    """A rated game of four running at a table."""
    return start_game(make_players(4))


def _client(user=None, csrf=False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    if user is not None:
        client.force_login(user)
    return client


GET_PAGES = ["/mod/", "/mod/tables.json", "/mod/users/", "/mod/settings/", "/mod/audit/",
             "/mod/reports/", "/mod/flags/"]


def _post_urls(table_id: int, username: str, report_id: int = 1) -> list[str]:
    return ([f"/mod/tables/{table_id}/{a}/" for a in ("close", "kick", "rename")]
            + [f"/mod/users/{username}/{a}/" for a in ("mute", "unmute", "suspend", "unsuspend",
                                                         "grant", "revoke")]
            + ["/mod/settings/", f"/mod/reports/{report_id}/"])


# --- who may use the console ------------------------------------------------------


def test_moderator_command_adds_lists_and_removes(owner, capsys):
    call_command("moderator", "add", "owner")
    assert access.is_moderator(get_user_model().objects.get(pk=owner.pk))
    owner = get_user_model().objects.get(pk=owner.pk)
    assert not owner.is_staff
    assert not owner.is_superuser
    call_command("moderator", "list")
    assert "owner" in capsys.readouterr().out.split()
    call_command("moderator", "remove", "owner")
    assert not access.is_moderator(get_user_model().objects.get(pk=owner.pk))


def test_the_group_carries_its_own_permissions(mod):
    perms = set(roles.group().permissions.filter(content_type__app_label="moderation")
                .values_list("codename", flat=True))
    assert perms == set(roles.PERMISSIONS)  # (contests adds its own: manage_arena)
    assert get_user_model().objects.get(pk=mod.pk).has_perm("moderation.use_console")


def test_the_header_links_a_moderator_alone_to_the_console(mod, owner):
    """A tester had to type /mod/: a moderator's header links to it, a player's not."""
    link = '<a href="/mod/" class="nav-mod">管理</a>'
    assert link in _client(mod).get("/").content.decode()
    assert link not in _client(owner).get("/").content.decode()
    assert link not in _client().get("/").content.decode()


def test_every_page_refuses_anonymous_visitors_and_players(mod, owner, outsider):
    table = tables.create_table(owner)
    user_page = f"/mod/users/{outsider.username}/"
    pages = [*GET_PAGES, f"/mod/tables/{table.pk}/", user_page]
    anonymous, player, moderator = _client(), _client(owner), _client(mod)
    for url in pages:
        r = anonymous.get(url)
        assert r.status_code == 302, url
        assert r["Location"].startswith("/accounts/login/"), url
        r = player.get(url)
        # the site's own 403 page, in Chinese, with the way back
        assert r.status_code == 403, url
        assert "无权访问" in r.content.decode(), url
        assert 'href="/"' in r.content.decode(), url
        assert moderator.get(url).status_code == 200, url
    # a user's page shows the coins a wager game holds (a revoke cannot take them)
    Profile.objects.filter(user=outsider).update(coins_held=200)
    assert "200 冻结" in moderator.get(user_page).content.decode()
    Profile.objects.filter(user=outsider).update(coins_held=0)  # no game holds them
    for url in _post_urls(table.pk, outsider.username):
        r = anonymous.post(url, {"reason": "x"})
        assert r.status_code == 302, url
        assert "/accounts/login/" in r["Location"], url
        assert player.post(url, {"reason": "x"}).status_code == 403, url
    assert not AuditEntry.objects.exists()
    assert Table.objects.get(pk=table.pk).closed is False


def test_an_unknown_action_is_not_found(mod, owner, outsider):
    table = tables.create_table(owner)
    moderator = _client(mod)
    for url in (f"/mod/tables/{table.pk}/explode/", f"/mod/users/{outsider.username}/explode/"):
        assert moderator.post(url, {"reason": "x"}).status_code == 404, url
    assert not AuditEntry.objects.exists()
    assert Table.objects.get(pk=table.pk).closed is False


def test_every_post_needs_csrf(mod, owner, outsider):
    table = tables.create_table(owner)
    client = _client(mod, csrf=True)
    for url in _post_urls(table.pk, outsider.username):
        assert client.post(url, {"reason": "spam", "amount": "5", "unit": "m"}
                           ).status_code == 403, url
    assert not AuditEntry.objects.exists()
    assert not Sanction.objects.exists()
    # with the token the same form works
    client.get(f"/mod/users/{outsider.username}/")
    token = client.cookies["csrftoken"].value
    r = client.post(f"/mod/users/{outsider.username}/mute/",
                    {"reason": "spam", "amount": "5", "unit": "m", "csrfmiddlewaretoken": token})
    assert r.status_code == 302
    assert Sanction.objects.filter(kind="mute").count() == 1


def test_console_lists_private_tables_marked_which_the_lobby_never_shows(mod, owner):
    from games import snapshots

    table = tables.create_table(owner, "密室", private=True)
    tables.set_spectators(table.pk, owner, False)
    assert table.pk not in {r["id"] for r in snapshots.lobby_rows()}
    text = _client(mod).get("/mod/").content.decode()
    assert "密室" in text
    assert ("禁止旁观" in text or "no spectators" in text)
    row = next(t for t in _client(mod).get("/mod/tables.json").json()["tables"]
               if t["id"] == table.pk)
    assert (row["private"], row["spectators_allowed"]) == (True, False)


def test_console_lists_tables_with_seats_spectators_and_running_time(mod, game):
    r = _client(mod).get("/mod/")
    assert r.status_code == 200
    text = r.content.decode()
    table = game.table
    assert display_name(table.name) in text  # the page's half of a given name
    assert "player0" in text
    assert "0:00:0" in text
    rows = _client(mod).get("/mod/tables.json").json()["tables"]
    row = next(t for t in rows if t["id"] == table.pk)
    assert row["status"] == "playing"
    assert row["running"].startswith("0:00:")
    assert row["spectators"] == 0 and row["moderators"] == [] if "moderators" in row else True
    assert _client(mod).get("/mod/tables.json?q=nobody-here").json()["tables"] == []
    assert _client(mod).get("/mod/tables.json?status=waiting").json()["tables"] == []


# --- actions ----------------------------------------------------------------------


def test_close_ends_the_game_with_no_changes_closes_the_table_and_audits(mod, game):
    before = {p.user_id: (p.rating_points, p.coins) for p in Profile.objects.all()}
    entries = CoinEntry.objects.count()
    r = _client(mod).post(f"/mod/tables/{game.table_id}/close/", {"reason": "刷分"})
    assert r.status_code == 302
    g = Game.objects.get(pk=game.pk)
    assert g.status == Game.OVER
    assert g.end_reason == Game.MODERATOR_CLOSE
    assert g.record["result"]["reason"] == "moderator_close"
    assert g.state["result"]["rating_changes"] == [0, 0, 0, 0]
    assert not RatingEntry.objects.filter(game=g).exists()
    assert {p.user_id: (p.rating_points, p.coins) for p in Profile.objects.all()} == before
    assert CoinEntry.objects.count() == entries
    table = Table.objects.get(pk=game.table_id)
    assert table.closed
    assert not Seat.objects.filter(table=table).exclude(user=None).exists()
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.moderator, entry.table_id, entry.reason) == (
        "close", mod, table.pk, "刷分")
    assert entry.before["game"] == game.pk
    assert entry.before["status"] == Table.PLAYING  # as closed, not after the game's end
    assert entry.after == {"closed": True}
    with pytest.raises(Refused) as e:
        actions.close_table(mod, table.pk, "again")
    assert e.value.reason == "already_closed"
    assert AuditEntry.objects.count() == 1


def test_kick_ends_the_game_and_bans_the_player_from_that_table(mod, game):
    kicked = game.seats.get(index=2).user
    actions.kick(mod, game.table_id, kicked.username, "骂人")
    g = Game.objects.get(pk=game.pk)
    assert g.end_reason == Game.MODERATOR_KICK
    assert g.state["result"]["abandoned_by"] == 2
    assert g.state["result"]["rating_changes"] == [0, 0, 0, 0]
    assert not Seat.objects.filter(user=kicked).exists()
    ban = Sanction.objects.get(kind=Sanction.TABLE_BAN)
    assert ban.table_id == game.table_id
    assert timedelta(minutes=29) < ban.until - timezone.now() <= timedelta(minutes=30)
    with pytest.raises(Refused) as e:
        tables.sit(game.table_id, kicked, 2)
    assert e.value.reason == "table_banned"
    other = tables.create_table(kicked)
    tables.sit(other.pk, kicked, 0)  # another table is fine
    tables.stand(other.pk, kicked)
    Sanction.objects.filter(pk=ban.pk).update(until=timezone.now() - timedelta(seconds=1))
    tables.sit(game.table_id, kicked, 2)  # the ban ended by itself
    entry = AuditEntry.objects.get(action="kick")
    assert entry.target_user == kicked
    assert entry.after["seated"] is False


def test_kick_from_a_waiting_table_stands_the_player_up(mod, owner, outsider):
    table = tables.create_table(owner)
    tables.sit(table.pk, outsider, 1)
    actions.kick(mod, table.pk, "outsider", "afk")
    assert not Seat.objects.filter(user=outsider).exists()
    with pytest.raises(Refused) as e:
        actions.kick(mod, table.pk, "outsider", "afk")
    assert e.value.reason == "not_seated"


def test_a_kicked_player_opening_the_table_again_is_told_why_they_may_not_sit(
        mod, owner, outsider):
    """A tester's kicked player reloaded a waiting table and saw every seat's
    坐下, the ban said only once a seat was tapped: the page's boot says it
    (``sit_refused``, shown by #sit-notice); the owner and a visitor are told
    nothing."""
    from django.test import Client

    table = tables.create_table(owner)
    tables.sit(table.pk, outsider, 1)
    actions.kick(mod, table.pk, "outsider", "afk")
    client = Client()
    client.force_login(outsider)
    boot = client.get(f"/tables/{table.pk}/").context["boot"]
    assert "入座" in (boot["sit_refused"] or ""), boot["sit_refused"]
    client.force_login(owner)
    assert client.get(f"/tables/{table.pk}/").context["boot"]["sit_refused"] is None
    assert Client().get(f"/tables/{table.pk}/").context["boot"]["sit_refused"] is None


def test_rename_overrides_a_protection_policy_and_audits(mod, owner, plug):
    table = tables.create_table(owner, "老桌")
    seen = []

    def protected(t, user, name, override):  # a 招牌 protection, as the shop would keep
        seen.append(override)
        if not override:
            raise Refused("bad_name", "protected")

    plug(make_plugin(check_rename=protected))
    with pytest.raises(Refused):
        tables.rename(table.pk, owner, "我的桌")
    actions.rename(mod, table.pk, "新桌", "不雅")
    assert seen == [False, True]
    assert Table.objects.get(pk=table.pk).name == "新桌"
    entry = AuditEntry.objects.get()
    assert entry.before == {"name": "老桌"}
    assert entry.after == {"name": "新桌"}


def test_a_console_rename_overrides_and_clears_a_sign(mod, owner, partner,
                                                     django_capture_on_commit_callbacks):
    """The shop's real 招牌 (shop.items, its rename check through the shop's
    plugin) and the console's real POST, CSRF token and all."""
    from games import events, snapshots
    from shop import items
    from shop.models import TableDecor
    from tests.test_items import give, held

    table = tables.create_table(owner, "老桌")
    tables.sit(table.pk, partner, 2)
    mine, theirs = give(owner, "sign"), give(partner, "sign", 2)
    items.use(owner, mine, "sign", "a", table_id=table.pk, name="招牌桌")
    assert snapshots.table_snapshot(table.pk)["sign"]["by"] == "owner"
    with pytest.raises(Refused) as e:  # the sign protects the name from the partner
        items.use(partner, theirs, "sign", "b", table_id=table.pk, name="抢名字")
    assert e.value.reason == "name_protected"

    client, url = _client(mod, csrf=True), f"/mod/tables/{table.pk}/rename/"
    form = {"name": "管理改名", "reason": "招牌名不雅"}
    assert client.post(url, form).status_code == 403  # no CSRF token: nothing changes
    assert snapshots.table_snapshot(table.pk)["sign"]["by"] == "owner"
    client.get(f"/mod/tables/{table.pk}/")
    form["csrfmiddlewaretoken"] = client.cookies["csrftoken"].value
    told: list[tuple] = []

    def keep(event):
        user_id, notice = event.user_id, event.notice
        told.append((user_id, notice["code"], notice["params"].get("sign_cleared")))

    events.subscribe(events.Notice, keep)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            r = client.post(url, form)
    finally:
        events.unsubscribe(events.Notice, keep)
    assert r.status_code == 302
    assert r["Location"] == f"/mod/tables/{table.pk}/"
    snap = snapshots.table_snapshot(table.pk)
    assert snap["name"] == "管理改名"
    assert snap["sign"] is None
    row = next(r for r in snapshots.lobby_rows() if r["id"] == table.pk)
    assert row["name"] == "管理改名"
    assert row["sign"] is None
    decor = TableDecor.objects.get(table=table)
    assert (decor.sign_by, decor.sign_item, decor.sign_until) == (None, "", None)
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.moderator, entry.table_id) == ("rename", mod, table.pk)
    assert entry.before["name"] == "招牌桌"
    assert entry.before["sign"]["by"] == "owner"
    assert entry.after == {"name": "管理改名", "sign": None}
    assert sorted(told) == sorted([(owner.pk, "moderator_rename", True),
                                   (partner.pk, "moderator_rename", False)])
    # the signer's protection is gone: the partner's sign now renames (and protects)
    items.use(partner, theirs, "sign", "c", table_id=table.pk, name="三号")
    snap = snapshots.table_snapshot(table.pk)
    assert snap["name"] == "三号"
    assert snap["sign"]["by"] == "partner"
    assert held(partner, "sign") == 1
    # and a rename through the seam by someone else is refused while it holds
    with pytest.raises(Refused) as e:
        tables.rename(table.pk, owner, "四号")
    assert e.value.reason == "name_protected"
    assert Table.objects.get(pk=table.pk).name == "三号"


def test_each_action_needs_its_own_permission(owner, outsider, django_user_model):
    """A group with ``use_console`` and ``sanction_users`` only: the console
    opens, mutes work, and every table or coins action is a 403 that changes
    nothing."""
    from django.contrib.auth.models import Group, Permission

    helper = django_user_model.objects.create_user(username="xiaozhang")
    group = Group.objects.create(name="chat helpers")
    group.permissions.add(*Permission.objects.filter(
        content_type__app_label="moderation", codename__in=["use_console", "sanction_users"]))
    helper.groups.add(group)
    table = tables.create_table(owner, "原桌")
    coins = Profile.objects.get(user=outsider).coins
    client = _client(helper)
    assert client.get("/mod/").status_code == 200
    refused = [(f"/mod/users/outsider/{a}/", {"amount": "500"}) for a in ("grant", "revoke")]
    refused += [(f"/mod/tables/{table.pk}/close/", {}),
                (f"/mod/tables/{table.pk}/rename/", {"name": "新名"}),
                ("/mod/settings/", {"form": "gem_cap", "value": "1200"})]
    for url, data in refused:
        r = client.post(url, {**data, "reason": "试试"})
        assert r.status_code == 403, url
        text = r.content.decode()
        assert "nothing was changed" in text or "未作任何更改" in text, text
    assert Profile.objects.get(user=outsider).coins == coins
    assert Table.objects.get(pk=table.pk).name == "原桌"
    assert not Table.objects.get(
        pk=table.pk).closed
    assert GemCap.objects.filter(pk=1, override__isnull=False).count() == 0
    assert not AuditEntry.objects.exists()
    with pytest.raises(Refused) as e:  # the same rule below the views
        actions.coins(helper, "outsider", "5", "x")
    assert e.value.reason == "not_permitted"
    # what the group does hold works, and only its forms are shown
    r = client.post("/mod/users/outsider/mute/", {"amount": "5", "unit": "m", "reason": "刷屏"})
    assert r.status_code == 302
    assert Sanction.objects.filter(kind="mute").count() == 1
    page = client.get("/mod/users/outsider/").content.decode()
    assert "/mute/" in page
    assert "/grant/" not in page
    assert "/revoke/" not in page
    page = client.get(f"/mod/tables/{table.pk}/").content.decode()
    assert "/rename/" not in page
    assert "/close/" not in page
    assert 'value="gem_cap"' not in client.get("/mod/settings/").content.decode()
    # the moderators group holds every action's permission; the helper not all
    full = django_user_model.objects.create_user(username="fullmod")
    roles.add(full)
    full = get_user_model().objects.get(pk=full.pk)
    assert all(roles.may(full, a) for a in roles.ACTION_PERMISSIONS)
    assert [a for a in roles.ACTION_PERMISSIONS if not roles.may(helper, a)] == [
        "close", "rename", "grant", "revoke", "gem_cap"]


def test_mute_refuses_chat_until_it_ends(mod, owner, outsider):
    table = tables.create_table(owner)
    actions.mute(mod, "outsider", "10", "m", "刷屏")
    with pytest.raises(Refused) as e:
        chat.chat(table.pk, outsider, "hello")
    assert e.value.reason == "muted"
    chat.chat(table.pk, owner, "others still talk")
    Sanction.objects.filter(kind="mute").update(until=timezone.now() - timedelta(seconds=1))
    chat.chat(table.pk, outsider, "back")
    assert AuditEntry.objects.get().after["muted_until"]


def test_suspension_vacates_the_seat_and_blocks_log_in(mod, game, client):
    from tests.conftest import PASSWORD

    user = game.seats.get(index=1).user
    user.set_password(PASSWORD)
    user.save()
    actions.suspend(mod, user.username, "2", "h", "外挂")
    g = Game.objects.get(pk=game.pk)
    assert g.end_reason == Game.SUSPENSION
    assert g.state["result"]["rating_changes"] == [0] * 4
    assert not Seat.objects.filter(user=user).exists()
    assert not client.login(username=user.username, password=PASSWORD)
    r = client.post("/accounts/login/", {"login": user.username, "password": PASSWORD},
                    follow=True)
    assert "_auth_user_id" not in client.session
    assert r.context["user"].is_anonymous
    assert len(list(r.context["messages"])) == 1
    with pytest.raises(Refused) as e:
        tables.sit(tables.create_table(mod).pk, user, 0)
    assert e.value.reason == "suspended"
    actions.lift(mod, user.username, Sanction.SUSPENSION, "申诉成功")
    assert client.login(username=user.username, password=PASSWORD)
    assert [a.action for a in AuditEntry.objects.order_by("pk")] == ["suspend", "unsuspend"]


def test_a_suspended_session_is_told_why_and_until_when_on_its_next_page(mod, outsider):
    """Suspended with no socket open, the next page logs them out
    saying so (not a silent log-out); the page after says nothing more."""
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(outsider)
    actions.suspend(mod, "outsider", "2", "d", "刷屏广告")
    page = client.get("/")
    said = [str(m) for m in page.context["messages"]]
    assert page.context["user"].is_anonymous
    assert "_auth_user_id" not in client.session
    until = hooks.until_text(hooks.active(outsider.pk, Sanction.SUSPENSION))
    assert said == [f"你的账号已被封禁至 {until}：刷屏广告"]
    assert "刷屏广告" in page.content.decode()
    assert not list(client.get("/").context["messages"])
    other = Client(HTTP_ACCEPT_LANGUAGE="en")
    other.force_login(outsider)
    actions.lift(mod, "outsider", Sanction.SUSPENSION, "申诉成功")
    actions.suspend(mod, "outsider", "", "forever", "永久")
    assert [str(m) for m in other.get("/rules/").context["messages"]] == [
        "Your account is suspended for good: 永久"]


def test_suspension_for_good(mod, outsider):
    actions.suspend(mod, "outsider", "", "forever", "永久")
    assert Sanction.objects.get().until is None
    assert AuditEntry.objects.get().after["suspended_until"] == "forever"


def test_coins_move_through_the_ledger_and_a_revoke_beyond_the_balance_is_refused(mod,
                                                                                   outsider):
    start = Profile.objects.get(user=outsider).coins
    actions.coins(mod, "outsider", "500", "补偿")
    actions.coins(mod, "outsider", "200", "误发", revoke=True)
    assert Profile.objects.get(user=outsider).coins == start + 300
    rows = list(CoinEntry.objects.filter(user=outsider, reason="grant").order_by("pk")
                .values_list("amount", "other_id", "note"))
    assert rows == [(500, mod.pk, "补偿"), (-200, mod.pk, "误发")]
    with pytest.raises(Refused) as e:
        actions.coins(mod, "outsider", str(start + 301), "too much", revoke=True)
    assert e.value.reason == "revoke_exceeds_balance"
    assert Profile.objects.get(user=outsider).coins == start + 300
    a = AuditEntry.objects.order_by("pk").first()
    assert (a.action, a.before, a.after) == ("grant", {"coins": start}, {"coins": start + 500})


def test_gem_cap_override_set_and_cleared(mod):
    actions.set_gem_cap(mod, "1200", "赛季")
    assert GemCap.objects.get(pk=1).cap == 1200
    actions.set_gem_cap(mod, "", "恢复")
    assert GemCap.objects.get(pk=1).override is None
    for bad in ("-1", "1.5", "abc"):
        with pytest.raises(Refused) as e:
            actions.set_gem_cap(mod, bad, "x")
        assert e.value.reason == "bad_gem_cap"
    assert [a.after for a in AuditEntry.objects.order_by("pk")] == [
        {"override": 1200}, {"override": None}]


# --- refusals ---------------------------------------------------------------------


@pytest.mark.parametrize(("call", "code"), [
    (lambda m, t: actions.mute(m, "nobody", "5", "m", "x"), "no_user"),
    (lambda m, t: actions.mute(m, "laoli", "5", "m", "x"), "self_target"),
    (lambda m, t: actions.mute(m, "othermod", "5", "m", "x"), "protected_target"),
    (lambda m, t: actions.mute(m, "root", "5", "m", "x"), "protected_target"),
    (lambda m, t: actions.mute(m, "outsider", "5", "m", ""), "no_reason"),
    (lambda m, t: actions.mute(m, "outsider", "5", "m", "   "), "no_reason"),
    (lambda m, t: actions.mute(m, "outsider", "5", "m", "x" * 501), "reason_too_long"),
    (lambda m, t: actions.mute(m, "outsider", "0", "m", "x"), "bad_length"),
    (lambda m, t: actions.mute(m, "outsider", "-5", "m", "x"), "bad_length"),
    (lambda m, t: actions.mute(m, "outsider", "31", "d", "x"), "bad_length"),
    (lambda m, t: actions.mute(m, "outsider", "ten", "m", "x"), "bad_length"),
    (lambda m, t: actions.mute(m, "outsider", "5", "forever", "x"), "bad_length"),
    (lambda m, t: actions.suspend(m, "outsider", "59", "m", "x"), "bad_length"),
    (lambda m, t: actions.suspend(m, "outsider", "366", "d", "x"), "bad_length"),
    (lambda m, t: actions.kick(m, t.pk, "outsider", "x"), "not_seated"),
    (lambda m, t: actions.kick(m, 99999, "outsider", "x"), "no_table"),
    (lambda m, t: actions.close_table(m, 99999, "x"), "no_table"),
    (lambda m, t: actions.rename(m, t.pk, "", "x"), "bad_name"),
    (lambda m, t: actions.coins(m, "outsider", "0", "x"), "bad_coin_amount"),
    (lambda m, t: actions.coins(m, "outsider", "abc", "x"), "bad_coin_amount"),
    (lambda m, t: actions.lift(m, "outsider", "mute", "x"), "not_sanctioned"),
])
def test_refusals_change_nothing(mod, owner, outsider, django_user_model, call, code):
    other = django_user_model.objects.create_user(username="othermod")
    roles.add(other)
    django_user_model.objects.create_superuser(username="root", password="x")
    table = tables.create_table(owner, "原桌")
    coins = Profile.objects.get(user=outsider).coins
    with pytest.raises(Refused) as e:
        call(mod, table)
    assert e.value.reason == code
    assert not AuditEntry.objects.exists()
    assert not Sanction.objects.exists()
    assert Profile.objects.get(user=outsider).coins == coins
    assert Table.objects.get(pk=table.pk).name == "原桌"


def test_no_action_on_a_table_where_the_moderator_sits(mod, django_user_model):
    players = make_players(3)
    game = start_game([mod, *players])
    for call in (lambda: actions.close_table(mod, game.table_id, "x"),
                 lambda: actions.kick(mod, game.table_id, players[0].username, "x"),
                 lambda: actions.rename(mod, game.table_id, "新", "x"),
                 lambda: actions.suspend(mod, players[0].username, "1", "d", "x")):
        with pytest.raises(Refused) as e:
            call()
        assert e.value.reason == "moderator_seated"
    assert Game.objects.get(pk=game.pk).status == Game.PLAYING
    assert not AuditEntry.objects.exists()


def test_a_refusal_through_the_console_shows_its_message(mod, outsider):
    r = _client(mod).post("/mod/users/outsider/mute/", {"amount": "5", "unit": "m",
                                                        "reason": ""}, follow=True)
    assert (r.status_code == 200 and "Give a reason" in r.content.decode()) or \
        "请填写理由" in r.content.decode()
    assert not Sanction.objects.exists()


def test_a_negative_length_is_refused_as_out_of_range_naming_the_range(mod, outsider):
    """A tester's mute of "-5" minutes read 时长须为整数 (it is a whole
    number): a negative length is out of range, and the message says the range
    as the form shows it; a non-number is still 须为整数."""
    client = _client(mod)
    for amount, unit, action, said in (
            ("-5", "m", "mute", "时长超出允许范围（1 分钟到 30 天）。"),
            (" -5 ", "d", "mute", "时长超出允许范围（1 分钟到 30 天）。"),
            ("0", "m", "mute", "时长超出允许范围（1 分钟到 30 天）。"),
            ("31", "d", "mute", "时长超出允许范围（1 分钟到 30 天）。"),
            ("-1", "h", "suspend", "时长超出允许范围（1 小时到 365 天，或永久）。"),
            ("ten", "m", "mute", "时长须为整数。"),
            ("-", "m", "mute", "时长须为整数。"),
            ("--5", "m", "mute", "时长须为整数。")):
        page = client.post(f"/mod/users/outsider/{action}/", {
            "amount": amount, "unit": unit, "reason": "刷屏"},
            follow=True, HTTP_ACCEPT_LANGUAGE="zh-hans")
        assert [str(m) for m in page.context["messages"]] == [said], amount
    with translation.override("en"), pytest.raises(Refused) as e:
        actions.parse_length(-5, "m", actions.MUTE_RANGE)  # JSON's number alike
    assert e.value.reason == "bad_length"
    assert str(e.value) == "That length is out of range (1 minute to 30 days)."
    assert not Sanction.objects.exists()
    assert not AuditEntry.objects.exists()


# --- the audit log ----------------------------------------------------------------


def test_audit_log_is_append_only_and_searchable(mod, owner, outsider):
    table = tables.create_table(owner, "查询桌")
    actions.mute(mod, "outsider", "5", "m", "a")
    actions.rename(mod, table.pk, "查询桌二", "b")
    entry = AuditEntry.objects.first()
    entry.reason = "changed"
    with pytest.raises(PermissionError):
        entry.save()
    with pytest.raises(PermissionError):
        entry.delete()
    with pytest.raises(PermissionError):
        AuditEntry.objects.all().delete()
    with pytest.raises(PermissionError):
        AuditEntry.objects.update(reason="x")
    c = _client(mod)
    assert "outsider" in c.get("/mod/audit/?user=outsid").content.decode()
    page = c.get(f"/mod/audit/?table={table.pk}").content.decode()
    assert "查询桌二" in page
    assert ">禁言<" not in page
    # actions by their names, states as key: value pairs (not raw dicts)
    assert ">改桌名<" in page
    assert "name: 查询桌二" in page
    assert "{&#x27;" not in page
    assert c.get("/mod/audit/?moderator=laoli").context["page"].paginator.count == 2
    assert c.get("/mod/audit/?moderator=zzz").context["page"].paginator.count == 0


# --- the chat filter ----------------------------------------------------------------


def test_the_filter_masks_words_but_never_the_games_vocabulary():
    words = ["笨蛋", "原子", "刀子", "科"]
    assert wordfilter.masked("你这个笨蛋", words) == "你这个＊＊"
    assert wordfilter.masked("原子弹来了", words) == "原子弹来了"
    assert wordfilter.masked("一刀子", words) == "一刀＊"
    assert wordfilter.masked("我是科员", words) == "我是科员"  # a level title
    assert wordfilter.masked("BadWord", ["badword"]) == "＊＊＊＊＊＊＊"


def test_chat_is_stored_raw_and_sent_masked_and_names_are_filtered(mod, owner, client):
    BlockedWord.objects.create(word="笨蛋")
    wordfilter.forget()
    table = tables.create_table(owner)
    msg = chat.chat(table.pk, owner, "你是笨蛋")
    assert msg.text == "你是笨蛋"
    from games import queries

    assert queries.chat_history(table.pk)[-1]["text"] == "你是＊＊"
    assert "你是笨蛋" in _client(mod).get(f"/mod/tables/{table.pk}/").content.decode()
    for call in (lambda: tables.create_table(owner, "笨蛋桌"),
                 lambda: actions.rename(mod, table.pk, "大笨蛋", "x")):
        with pytest.raises(Refused) as e:
            call()
        assert e.value.reason == "blocked_word"
    r = client.post("/accounts/signup/", {"username": "笨蛋王", "password1": "Qw3rty!x9",
                                          "password2": "Qw3rty!x9"})
    assert r.status_code == 200
    assert not get_user_model().objects.filter(
        username="笨蛋王").exists()


def test_moderators_are_badged_in_chat_and_snapshots(mod, owner):
    from games import snapshots

    table = tables.create_table(owner)
    tables.sit(table.pk, mod, 0)
    chat.chat(table.pk, mod, "大家好")
    chat.chat(table.pk, owner, "你好")
    from games import queries

    assert [line["moderator"] for line in queries.chat_history(table.pk)] == [True, False]
    assert snapshots.table_snapshot(table.pk)["moderators"] == [
        {"id": mod.pk, "username": "laoli"}]


def test_engine_is_untouched_by_moderation():
    assert "moderation" not in engine.__dict__


def test_the_admin_registers_every_model_with_money_and_ratings_read_only(django_user_model):
    from django.apps import apps
    from django.contrib import admin

    ours = ("games", "accounts", "shop", "moderation", "social", "contests")
    missing = [m.__name__ for m in apps.get_models()
               if m._meta.app_label in ours
               and m not in admin.site._registry]
    assert not missing, missing
    root = django_user_model.objects.create_superuser(username="root", password="x")
    client = _client(root)
    for model, ma in admin.site._registry.items():
        if model._meta.app_label not in ours:
            continue
        url = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        assert client.get(url).status_code == 200, url
        assert ma.list_display != ("__str__",), model
    from accounts.admin import ProfileAdmin

    assert {"coins", "rating_points"} <= set(ProfileAdmin.readonly_fields)


def test_blocked_words_are_edited_in_the_console_and_audited(mod, owner):
    c = _client(mod)
    c.post("/mod/settings/", {"form": "add", "word": "Spam", "reason": "广告"})
    assert list(BlockedWord.objects.values_list("word", flat=True)) == ["spam"]
    table = tables.create_table(owner)
    assert chat.chat(table.pk, owner, "buy SPAM now").text == "buy SPAM now"
    from games import queries

    assert queries.chat_history(table.pk)[-1]["text"] == "buy ＊＊＊＊ now"
    c.post("/mod/settings/", {"form": "remove", "word": "spam", "reason": "误伤"})
    assert not BlockedWord.objects.exists()
    assert queries.chat_history(table.pk)[-1]["text"] == "buy SPAM now"
    c.post("/mod/settings/", {"form": "add", "word": "x", "reason": ""})  # no reason: refused
    assert not BlockedWord.objects.exists()
    rows = list(AuditEntry.objects.order_by("pk").values_list("action", "after"))
    assert rows == [("words", {"words": ["spam"]}), ("words", {"words": []})]


def test_unmute_is_audited_and_ends_the_mute(mod, owner, outsider):
    table = tables.create_table(owner)
    actions.mute(mod, "outsider", "1", "d", "a")
    actions.lift(mod, "outsider", Sanction.MUTE, "b")
    chat.chat(table.pk, outsider, "free")
    assert [a.action for a in AuditEntry.objects.order_by("pk")] == ["mute", "unmute"]
    assert "mute_until" in AuditEntry.objects.get(action="unmute").before


def _shown(page: str) -> str:
    """A page without its scripts: every page carries JSON there (the import
    map, the header's strings), which no moderator reads."""
    return re.sub(r"<script\b.*?</script>", "", page, flags=re.S)


def test_the_console_shows_words_beijing_times_seat_names_and_item_names(mod, owner):
    """The audit log's before/after reads ``key: value`` with times in
    Beijing time and items by name (no raw JSON, no UTC ISO); the table page
    names seats 北东南西 and dates chat in Beijing time; a user's recent games
    say 负 in the Chinese console, not ``loss``."""
    from shop import items
    from tests.test_items import give
    from tests.test_wagers import finish_with, finished_state

    table = tables.create_table(owner, "老桌")
    tables.sit(table.pk, owner, 2)
    items.use(owner, give(owner, "gold_sign"), "gold_sign", "k", table_id=table.pk, name="金桌")
    chat.chat(table.pk, owner, "你好👍")
    actions.rename(mod, table.pk, "新桌", "不雅")
    until = AuditEntry.objects.get().before["sign"]["until"]
    beijing = timezone.localtime(timezone.datetime.fromisoformat(until)).strftime("%Y-%m-%d %H:%M")
    client = _client(mod)
    page = _shown(client.get(f"/mod/tables/{table.pk}/").content.decode())
    assert "金字招牌" in page
    assert beijing in page
    assert "gold_sign" not in page
    assert until not in page
    assert '{"' not in page
    assert '<li data-seat="2">南： ' in page
    assert '<li data-seat="0">北： ' in page
    said = ChatMessage.objects.get(table=table).created_at
    assert f'<small class="at">{timezone.localtime(said):%Y-%m-%d %H:%M}</small>' in page
    assert timezone.localtime(said).utcoffset() == timedelta(hours=8)
    assert ('你好<span class="emoji"><img class="emoji-img" '
            'src="/static/icons/thumbs_up.svg"') in page
    audit = _shown(client.get("/mod/audit/").content.decode())
    assert "金字招牌" in audit
    assert "gold_sign" not in audit
    assert '{"' not in audit

    four = make_players(4, "lost")
    finish_with(start_game(four), finished_state("1"))  # seats 0 and 2 lose
    page = client.get(f"/mod/users/{four[0].username}/").content.decode()
    assert '<span class="result">负</span>' in page
    assert ">loss<" not in page


def test_the_admin_audits_a_price_change_and_cannot_edit_sanctions(django_user_model, owner):
    """Money invariants need an audit trail: a catalogue price edited in the
    admin writes an audit row (action ``price``, before → after) in the same
    transaction; sanctions, reports and blocked words are read only there (the
    console, which audits, is where they change)."""
    from django.contrib import admin

    from shop.models import Item

    root = django_user_model.objects.create_superuser(username="root", password="x")
    client = _client(root)
    item = Item.objects.get(code="sign")
    url = f"/admin/shop/item/{item.pk}/change/"
    form = client.get(url).context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None and k in form.fields}
    data["price"] = item.price + 5
    response = client.post(url, data)
    assert response.status_code == 302, response.content[:500]
    assert Item.objects.get(pk=item.pk).price == item.price + 5
    entry = AuditEntry.objects.get(action=AuditEntry.PRICE)
    assert (entry.moderator_name, entry.before, entry.after) == (
        "root", {"price": item.price}, {"price": item.price + 5})

    for model in (Sanction, Report, BlockedWord):
        ma = admin.site._registry[model]
        request = type("R", (), {"user": root})()
        assert not ma.has_add_permission(request), model
        assert not ma.has_change_permission(request), model
        assert not ma.has_delete_permission(request), model
    assert client.post("/admin/moderation/blockedword/add/", {"word": "x"}).status_code == 403
    assert not BlockedWord.objects.exists()


# --- who is a moderator: one test for the whole site ------------------------------------


def test_a_superuser_is_a_moderator_at_a_private_table_and_over_a_protected_sign(
        django_user_model, owner, partner):
    """``games.access.is_moderator`` is the one test: the moderators group or a
    superuser (who holds every permission the group carries). A superuser
    outside the group opens a private table without its invite and renames a
    table over another player's 招牌, clearing it, as a moderator does."""
    from shop import items
    from tests.test_items import give

    boss = django_user_model.objects.create_superuser("boss", password="pw-boss-123")
    assert not boss.groups.exists()
    assert access.is_moderator(boss)
    assert not access.is_moderator(owner)
    assert access.moderator_ids([boss.pk, owner.pk, None]) == {boss.pk}
    private = tables.create_table(owner, "好友房", private=True)
    assert access.open_table(private.pk, boss, None) is not None
    assert access.open_table(private.pk, partner, None) is None  # no invite, not inside

    table = tables.create_table(owner, "老桌")
    tables.sit(table.pk, partner, 2)
    items.use(partner, give(partner, "sign"), "sign", "p", table_id=table.pk, name="招牌桌")
    result = items.use(boss, give(boss, "sign"), "sign", "b", table_id=table.pk, name="管理桌")
    assert (result["name"], result["protected_until"]) == ("管理桌", None)
    snap = snapshots.table_snapshot(table.pk)
    assert snap["name"] == "管理桌"
    assert snap["sign"] is None


def test_a_kicked_owner_hands_the_table_over_and_their_view_says_until_when(mod):
    """RULES.md §12: a kicked owner's controls pass to the player in the
    lowest seat still there; the kicked player's view of the game the kick
    ended names the ban (``stood_reason``), a reload's stand-up banner."""
    from games import seatview

    players = make_players(4, "kown")
    game = start_game(players)
    table = Table.objects.get(pk=game.table_id)
    Table.objects.filter(pk=table.pk).update(owner=players[0])
    here = [(f"kown-{u.pk}", u) for u in players[1:]]  # the others stay at the table
    for channel, u in here:
        presence.touch_presence(channel, table.pk, u)
    try:
        actions.kick(mod, table.pk, players[0].username, "挂机")
    finally:
        for channel, u in here:
            presence.drop_presence(channel, table.pk, u)
    assert Table.objects.get(pk=table.pk).owner == players[1]
    g = Game.objects.get(pk=game.pk)
    view = seatview.view_for(g, 0)
    ban = Sanction.objects.get(kind=Sanction.TABLE_BAN, user=players[0])
    assert view["stood_reason"]["zh-hans"] == hooks.ban_text(ban)  # the test's language
    assert view["stood_reason"]["en"].startswith("A moderator removed you from this table")
    assert "stood_reason" not in seatview.view_for(g, 1)
    Sanction.objects.filter(pk=ban.pk).update(until=timezone.now() - timedelta(seconds=1))
    assert "stood_reason" not in seatview.view_for(g, 0)
    # a kick of someone who does not own the table leaves the owner be
    actions.kick(mod, table.pk, players[3].username, "x")
    assert Table.objects.get(pk=table.pk).owner == players[1]


def test_a_kicked_owner_with_nobody_to_take_over_closes_the_table(mod):
    """A tester kicked a practice table's owner (three bots beside him): the
    page kept his owner's controls (bots, wager, a paid rename) at a table he
    was barred from. With nobody seated to take it over, the table closes."""
    me, = make_players(1, "kalone")
    table = tables.practice(me, "normal")
    actions.kick(mod, table.pk, me.username, "挂机")
    table = Table.objects.get(pk=table.pk)
    assert table.closed
    assert not Seat.objects.filter(table=table).exclude(user=None).exists()
    assert not Seat.objects.filter(table=table, is_bot=True).exists()
    assert Sanction.objects.filter(kind=Sanction.TABLE_BAN, user=me, table=table).exists()


# --- the console's forms and labels (a tester's defects) --------------------------------


def test_the_rename_box_takes_the_40_a_table_name_may_have_and_says_so(mod, owner):
    """A tester's rename kept the first 30 characters and said 桌子已改名: the
    box allows what ``games.tables.clean_name`` does and counts near the end
    (static/js/forms.js ``data-count``); a longer name posted anyway is
    refused with clean_name's words, never cut."""
    table = tables.create_table(owner, "老桌")
    client = _client(mod)
    page = client.get(f"/mod/tables/{table.pk}/").content.decode()
    box = re.search(r'<input[^>]*name="name"[^>]*>', page).group(0)
    assert f'maxlength="{tables.NAME_MAX_LENGTH}"' in box
    assert "data-count" in box
    assert 'type="text"' in box  # styled as the site's text boxes
    url = f"/mod/tables/{table.pk}/rename/"
    forty = "名" * tables.NAME_MAX_LENGTH
    r = client.post(url, {"name": forty + "字", "reason": "太长"}, follow=True)
    assert [str(m) for m in r.context["messages"]] == [
        "桌名须为 1 到 40 个字符，且不能含控制字符。"]
    assert Table.objects.get(pk=table.pk).name == "老桌"
    r = client.post(url, {"name": forty, "reason": "改"}, follow=True)
    assert [str(m) for m in r.context["messages"]] == ["桌子已改名。"]
    assert Table.objects.get(pk=table.pk).name == forty


@pytest.mark.parametrize("page", ["table", "user", "settings"])
def test_every_console_label_puts_its_words_above_its_own_field(mod, owner, outsider, page):
    """The 理由 words sat at the bottom-left of their box (text beside an
    inline textarea): every label of a console form holds its words in
    ``.mod-label`` (a line of its own, static/css/moderation.css) and then
    its field."""
    table = tables.create_table(owner, "布局桌")
    url = {"table": f"/mod/tables/{table.pk}/", "user": "/mod/users/outsider/",
           "settings": "/mod/settings/"}[page]
    html = _client(mod).get(url).content.decode()
    forms = re.findall(r'<form[^>]*class="mod-action".*?</form>', html, re.S)
    labels = [label for f in forms for label in re.findall(r"<label>.*?</label>", f, re.S)]
    assert labels
    for label in labels:
        assert re.match(r'<label><span class="mod-label">[^<]+</span>\s*<(input|textarea)',
                        label), label
    css = (Path(__file__).resolve().parent.parent / "static" / "css" / "moderation.css")
    assert ".mod-action .mod-label { flex-basis: 100%; }" in css.read_text()


def test_an_arena_table_is_labelled_arena_not_friends_room(
        mod, owner, django_capture_on_commit_callbacks):
    """An arena's tables are private (nobody else joins them) but are no
    好友房: the console says 比赛 and the arena's name, server-rendered and
    in /mod/tables.json (static/js/mod_console.js redraws from it)."""
    from tests.test_arena import _four_seated

    _arena, _users, seating = _four_seated(mod, "mcar", django_capture_on_commit_callbacks)
    friends = tables.create_table(owner, "好友桌", private=True)
    html = _client(mod).get("/mod/").content.decode()
    rows = dict(re.findall(r'<a href="/mod/tables/(\d+)/">.*?</a>(.*?)</td>', html, re.S))
    assert "比赛 · 周三擂台" in rows[str(seating.table_id)]
    assert "好友房" not in rows[str(seating.table_id)]
    assert "好友房" in rows[str(friends.pk)]
    assert "比赛" not in rows[str(friends.pk)]
    listed = {t["id"]: t for t in _client(mod).get("/mod/tables.json").json()["tables"]}
    assert listed[seating.table_id]["arena"]["name"] == "周三擂台"
    assert "arena" not in listed[friends.pk]
    script = (Path(__file__).resolve().parent.parent / "static" / "js" / "mod_console.js")
    assert "if (t.arena)" in script.read_text()


@pytest.mark.django_db(transaction=True)
async def test_the_async_path_loads_a_user_and_refuses_a_suspended_one():
    """Under Daphne allauth's middleware loads the user on the event loop
    (``request.auser()``): /accounts/ answered a signed-in tester with an HTTP
    500 (SynchronousOnlyOperation in the suspension check). Now it redirects,
    and the async loaders refuse a suspended account as the sync ones do."""
    from asgiref.sync import sync_to_async
    from django.test import AsyncClient

    from moderation.backends import AuthenticationBackend, ModelBackend

    mod_user, user = await sync_to_async(make_players)(2, "async")
    await sync_to_async(roles.add)(mod_user)
    user.set_password("secret-pass-1")
    await user.asave()
    client = AsyncClient()
    await client.aforce_login(user)
    r = await client.get("/accounts/")
    assert r.status_code == 302, r.status_code
    for backend in (ModelBackend(), AuthenticationBackend()):
        assert await backend.aget_user(user.pk) == user
        assert await backend.aauthenticate(None, username=user.username,
                                           password="secret-pass-1") == user
    await sync_to_async(actions.suspend)(mod_user, user.username, "2", "d", "刷屏")
    for backend in (ModelBackend(), AuthenticationBackend()):
        assert await backend.aget_user(user.pk) is None
        assert await backend.aauthenticate(None, username=user.username,
                                           password="secret-pass-1") is None
    r = await client.get("/accounts/")
    assert r.status_code == 302
