"""消息, the notification centre: what posts one (friends, coins received, a
moderator's action on you or your report), each in the transaction of its
cause; the header's unread badge; the page /notifications/ and the JSON API
(docs/api.md "Notifications"); the live frames (docs/protocol.md "The
per-user channel"); the 90-day purge.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import context_processors, inbox
from accounts.models import Notification
from games import events, play, tables
from moderation import actions, reports
from social import blocks, friends
from tests import helpers
from tests import test_items as ti
from tests import test_wagers as tw
from yuanzi_site.refusals import Refused

pytestmark = pytest.mark.django_db

_catalogue = ti._catalogue  # the shop's catalogue rows (the 定时器)


#: what a game's end may also keep, tested with contests (tests/test_contests_progress.py)
CONTESTS = ("achievement_", "task_done")


def ours():
    """Notifications other than the contests' ones a game's end may add."""
    q = Notification.objects.all()
    for prefix in CONTESTS:
        q = q.exclude(kind__startswith=prefix)
    return q


def kinds(user) -> list[str]:
    """``user``'s notification kinds (the contests' left out), newest first."""
    return list(ours().filter(user=user).order_by("-created_at", "-id")
                .values_list("kind", flat=True))


def many(user, n: int, *, read: bool = False) -> None:
    """``n`` friend-request notifications for ``user``, one a second apart, oldest first."""
    now = timezone.now()
    Notification.objects.bulk_create(
        Notification(user=user, kind="friend_request", params={"name": f"p{i}"},
                     link="/friends/", read_at=now if read else None)
        for i in range(n))
    # created_at is auto_now_add: spread the rows out so "newest first" is checkable
    for i, pk in enumerate(Notification.objects.filter(user=user).order_by("id")
                           .values_list("pk", flat=True)[:60]):
        Notification.objects.filter(pk=pk).update(created_at=now - timedelta(seconds=10_000 - i))


# --- what posts one ------------------------------------------------------------------------


def test_a_friend_request_and_its_acceptance_tell_the_other(owner, outsider):
    friends.request(owner, outsider)
    n = ours().get(user=outsider)
    assert (n.kind, n.params, n.link, n.read_at) == (
        "friend_request", {"name": "owner"}, "/friends/", None)
    assert kinds(owner) == []  # the sender is not told they asked
    friends.request(owner, outsider)  # asking again changes nothing
    assert kinds(outsider) == ["friend_request"]
    friends.accept(outsider, owner)
    assert kinds(owner) == ["friend_accepted"]
    assert ours().get(user=owner).params == {"name": "outsider"}


def test_asking_back_accepts_and_tells_the_first_asker(owner, outsider):
    friends.request(owner, outsider)
    assert friends.request(outsider, owner) == "friends"
    assert kinds(owner) == ["friend_accepted"]
    assert kinds(outsider) == ["friend_request"]


def unread(user) -> list[tuple[str, dict]]:
    """``user``'s unread notifications (the contests' left out): kind and params, oldest first."""
    return [(n.kind, n.params) for n in ours().filter(user=user, read_at__isnull=True)
            .order_by("created_at", "id")]


@pytest.mark.parametrize("answer", ["accept", "decline", "ask back", "withdrawn"])
def test_answering_a_request_marks_its_notice_read(owner, outsider, partner, answer,
                                                   django_capture_on_commit_callbacks):
    friends.request(owner, outsider)
    friends.request(partner, outsider)  # another request, at the same link, stays unread
    assert inbox.unread_count(outsider.pk) == 2
    with helpers.listening(events.UserFrame) as heard, \
            django_capture_on_commit_callbacks(execute=True):
        if answer == "accept":
            friends.accept(outsider, owner)
        elif answer == "decline":
            friends.decline(outsider, owner)
        elif answer == "withdrawn":  # the sender takes it back: nothing left to answer
            friends.cancel(owner, outsider)
        else:
            assert friends.request(outsider, owner) == "friends"
    assert unread(outsider) == [("friend_request", {"name": "partner"})]
    read = ours().get(user=outsider, params={"name": "owner"})
    assert read.read_at is not None
    assert [e.frame for e in heard if e.user_id == outsider.pk] == [
        {"type": "unread", "unread": 1}]  # the badge follows at once
    assert inbox.unread_count(owner.pk) == (1 if answer in ("accept", "ask back") else 0)


def test_a_silent_request_to_a_blocker_tells_nobody(owner, outsider):
    blocks.block(outsider, owner)
    assert friends.request(owner, outsider) == "outgoing"
    assert kinds(outsider) == []
    assert kinds(owner) == []


def test_a_notification_rolls_back_with_its_cause(owner, outsider):
    def cause() -> None:
        with transaction.atomic():
            friends.request(owner, outsider)
            seen.extend(kinds(outsider))
            raise RuntimeError("the cause fails after the post")

    seen: list[str] = []
    with helpers.listening(events.UserFrame) as heard, pytest.raises(RuntimeError):
        cause()
    assert seen == ["friend_request"]  # it was there inside the transaction
    assert kinds(outsider) == []
    assert heard == []  # and no frame went out


def test_the_frame_leaves_after_the_commit_with_the_unread_count(
        owner, outsider, django_capture_on_commit_callbacks):
    inbox.post(outsider.pk, "friend_request", {"name": "earlier"})
    with helpers.listening(events.UserFrame) as heard, \
            django_capture_on_commit_callbacks(execute=True):
        friends.request(owner, outsider)
        assert heard == []  # nothing before the commit
    frame = next(e.frame for e in heard if e.frame["type"] == "notification")
    assert heard[0].user_id == outsider.pk
    assert frame["unread"] == 2
    assert frame["quiet"] is False  # no notice said it: the page toasts it
    n = frame["notification"]
    assert n["text"] == {"zh-hans": "owner 请求加你为好友。",
                         "en": "owner asks to be your friend."}
    assert (n["kind"], n["link"], n["read"]) == ("friend_request", "/friends/", False)


def test_an_unregistered_kind_is_a_programming_error(owner):
    with pytest.raises(ValueError, match="unregistered"):
        inbox.post(owner.pk, "no_such_kind")


def test_a_wager_settlement_is_kept_for_winners_and_losers(django_capture_on_commit_callbacks):
    """wager_won for the two who gained (quiet: their notice is the toast),
    wager_lost for the two who paid (a tester's losers had nothing in 消息)."""
    four = helpers.make_players(4, "nw")
    for user in four:
        tw.set_coins(user, 5000)
    game = tw.start(tw.wager_table(four, 40), four)
    with helpers.listening(events.UserFrame) as heard, \
            django_capture_on_commit_callbacks(execute=True):
        tw.finish_with(game, tw.finished_state("0"))  # North and South win
    changes = tw.GameWager.objects.get(game=game).coin_changes
    for user, change in zip(four, changes, strict=True):
        if change > 0:
            n = ours().get(user=user)
            assert (n.kind, n.params, n.link) == ("wager_won", {"coins": change},
                                                  f"/games/{game.pk}/")
        else:
            n = ours().get(user=user)
            assert (n.kind, n.params, n.link) == ("wager_lost", {"coins": -change},
                                                  f"/games/{game.pk}/")
            assert inbox.render(n.kind, n.params) == f"押宝结算：你输了 {-change} 金币"
    frames = [e.frame for e in heard if e.frame["type"] == "notification"
              and e.frame["notification"]["kind"].startswith("wager_")]
    assert sorted((f["notification"]["kind"], f["quiet"]) for f in frames) == [
        ("wager_lost", False), ("wager_lost", False),  # no notice told them: the toast
        ("wager_won", True), ("wager_won", True)]  # the wager_won notice is their toast


def test_an_escapers_payment_is_kept_for_the_three_paid_and_the_escaper(
        django_capture_on_commit_callbacks):
    four = helpers.make_players(4, "ne")
    game = tw.start(tw.wager_table(four, 10), four)
    with helpers.listening(events.UserFrame) as heard, \
            django_capture_on_commit_callbacks(execute=True):
        play.escape(game.pk, four[2])  # 200 coins to the other three (tests/test_wagers.py)
    own = ours().get(user=four[2])
    assert (own.kind, own.params, own.link, own.read_at) == (
        "escape_fined", {"coins": 200}, f"/games/{game.pk}/", None)
    assert inbox.render(own.kind, own.params) == "你逃跑了，赔了 200 金币"
    frame = next(e.frame for e in heard if e.user_id == four[2].pk
                 and e.frame["type"] == "notification")
    assert frame["quiet"] is False  # no notice told the escaper: the page toasts it
    assert frame["notification"]["text"]["en"] == "You left the game: you paid 200 coins."
    for user, coins in ((four[0], 67), (four[1], 67), (four[3], 66)):
        n = ours().get(user=user)
        assert (n.kind, n.params, n.link) == (
            "escape_paid", {"coins": coins, "name": four[2].username}, f"/games/{game.pk}/")


def test_the_escapers_notice_rolls_back_with_the_game_end(plug):
    """It is kept in the escape's transaction: a later game-end hook failing
    keeps neither the coins nor anyone's notice."""
    four = helpers.make_players(4, "nr")
    game = tw.start(tw.wager_table(four, 10), four)

    def broken(end):
        raise RuntimeError("a later hook's bug")

    plug(helpers.make_plugin(on_game_end=broken))
    with pytest.raises(Refused) as refused:
        play.escape(game.pk, four[2])
    assert refused.value.reason == "game_end_failed"
    assert [kinds(u) for u in four] == [[], [], [], []]


def test_an_escaper_who_paid_nothing_is_told_nothing():
    four = helpers.make_players(4, "nz")
    game = tw.start(tw.wager_table(four, 10), four)
    tw.without_holds(game)
    tw.set_coins(four[3], 0)
    play.escape(game.pk, four[3])
    assert kinds(four[3]) == []


def test_a_timers_compensation_is_kept_for_each_receiver(players):
    game = helpers.start_game(players)
    owner = ti._arm_for_turn(game)
    helpers.force_due(game)
    assert play.sweep_due() == 1  # the turn ran out: the timer fires
    for user in players:
        if user == owner:  # what it cost, in the owner's words
            assert kinds(user) == ["timer_fired"]
            continue
        n = ours().get(user=user)
        assert (n.kind, n.params, n.link) == (
            "timer_paid", {"name": owner.username, "coins": 90}, f"/tables/{game.table_id}/")


def test_a_moderators_grant_and_revoke(mod, outsider):
    actions.coins(mod, "outsider", "500", "补偿")
    actions.coins(mod, "outsider", "200", "多发了", revoke=True)
    rows = Notification.objects.filter(user=outsider).order_by("id")
    assert [(n.kind, n.params) for n in rows] == [
        ("coins_granted", {"amount": 500, "reason": "补偿"}),
        ("coins_revoked", {"amount": 200, "reason": "多发了"})]
    assert inbox.render(rows[0].kind, rows[0].params) == "管理员发给你 500 金币：补偿"


def test_a_refused_moderator_action_keeps_nothing(mod, outsider):
    with pytest.raises(actions.Refused):
        actions.coins(mod, "outsider", "999999", "太多", revoke=True)
    assert kinds(outsider) == []


def test_moderators_actions_on_a_person(mod, owner, outsider):
    table = tables.create_table(owner)
    tables.sit(table.pk, outsider, 1)
    actions.kick(mod, table.pk, "outsider", "挂机")
    actions.mute(mod, "outsider", "10", "m", "刷屏")
    actions.lift(mod, "outsider", "mute", "误会")
    actions.suspend(mod, "outsider", "2", "h", "外挂")
    actions.lift(mod, "outsider", "suspension", "申诉成功")
    actions.suspend(mod, "outsider", "", "forever", "永久")
    assert kinds(outsider)[::-1] == ["moderator_kick", "muted", "unmuted", "suspended",
                                     "unsuspended", "suspended_forever"]
    kick = ours().get(user=outsider, kind="moderator_kick")
    assert kick.link == f"/tables/{table.pk}/"
    assert kick.params["reason"] == "挂机"
    muted = ours().get(user=outsider, kind="muted")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", muted.params["until"])
    assert kinds(mod) == []
    assert kinds(owner) == []


def test_a_report_handled_tells_the_reporter(mod, owner, outsider):
    table = tables.create_table(owner)
    tables.sit(table.pk, outsider, 1)
    first = reports.create_report(owner, table.pk, category="stalling", user_id=outsider.pk)
    reports.handle(mod, first.pk, "处理了", resolved=True)
    # (filed once the first is handled: an open one refuses a repeat for a minute)
    second = reports.create_report(owner, table.pk, category="other", user_id=outsider.pk)
    reports.handle(mod, second.pk, "没问题", resolved=False)
    assert kinds(owner)[::-1] == ["report_resolved", "report_dismissed"]
    assert kinds(outsider) == []  # the reported player is not told by the report


def test_every_kind_reads_in_both_languages():
    from django.utils import translation

    params = {"name": "n", "coins": 1, "amount": 1, "reason": "r", "table": "t",
              "minutes": 1, "until": "u"}
    for kind in ("friend_request", "friend_accepted", "timer_paid", "wager_won", "wager_lost",
                 "escape_paid", "escape_fined", "moderator_kick", "muted", "unmuted", "suspended",
                 "suspended_forever", "unsuspended", "coins_granted", "coins_revoked",
                 "report_resolved", "report_dismissed"):
        assert kind in inbox.KINDS
        with translation.override("en"):
            en = inbox.render(kind, params)
        with translation.override("zh-hans"):
            zh = inbox.render(kind, params)
        assert en != zh, kind
        assert re.search(r"[\u4e00-\u9fff]", zh), kind
        assert "%(" not in en + zh, kind


# --- the header's badge ----------------------------------------------------------------------


def test_the_badge_counts_unread_in_the_one_query_of_the_header(owner, client):
    many(owner, 3)
    many(owner, 2, read=True)
    request = RequestFactory().get("/")
    request.user = owner
    with CaptureQueriesContext(connection) as queries:
        context = context_processors.me(request)
    assert len(queries) == 1
    assert context["me_unread"] == 3
    client.force_login(owner)
    html = client.get("/rules/").content.decode()
    assert re.search(r'<span id="inbox-badge" class="inbox-badge" data-unread="3">', html)
    assert 'href="/notifications/"' in html


def test_no_badge_at_nought_nor_for_a_visitor(owner, client):
    client.force_login(owner)
    html = client.get("/rules/").content.decode()
    assert 'data-unread="0" hidden' in html
    assert "inbox-badge" not in Client().get("/rules/").content.decode()


# --- the page ---------------------------------------------------------------------------------


def test_the_page_lists_newest_first_and_reads_nothing_by_itself(owner, client):
    many(owner, 3)
    client.force_login(owner)
    html = client.get("/notifications/").content.decode()
    assert html.index("p2 请求加你为好友") < html.index("p1 请求") < html.index("p0 请求")
    assert html.count('class="inbox-row unread"') == 3
    assert "全部标为已读" in html
    assert inbox.unread_count(owner.pk) == 3  # opening the page read nothing
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    html = client.get("/notifications/").content.decode()
    assert "p2 asks to be your friend." in html
    assert "Mark all as read" in html


def test_the_page_sends_a_visitor_to_log_in():
    answer = Client().get("/notifications/")
    assert answer.status_code == 302
    assert "/accounts/login/" in answer["Location"]


def test_ten_thousand_rows_page_by_fifty_in_constant_queries(owner, client,
                                                             django_assert_max_num_queries):
    many(owner, 10_000)
    client.force_login(owner)
    client.get("/notifications/")  # the session and caches warm
    with CaptureQueriesContext(connection) as first:
        html = client.get("/notifications/").content.decode()
    assert html.count('class="inbox-row') == 50
    assert 'rel="next"' in html
    with django_assert_max_num_queries(len(first)):
        last = client.get("/notifications/?page=200").content.decode()
    assert last.count('class="inbox-row') == 50
    assert 'rel="next"' not in last
    with django_assert_max_num_queries(len(first)):
        api = client.get("/api/notifications?page=100").json()
    assert len(api["notifications"]) == 50
    assert api["next"].endswith("page=101")
    assert api["unread"] == 10_000


# --- the JSON API ----------------------------------------------------------------------------


def test_the_api_lists_unread_with_next(owner, outsider, client):
    many(owner, 60)
    ids = list(Notification.objects.filter(user=owner).order_by("-created_at", "-id")
               .values_list("pk", flat=True))
    Notification.objects.filter(pk__in=ids[:5]).update(read_at=timezone.now())
    many(outsider, 2)
    client.force_login(owner)
    page = client.get("/api/notifications?unread=1", HTTP_ACCEPT="application/json").json()
    assert [n["id"] for n in page["notifications"]] == ids[5:55]
    assert page["unread"] == 55
    assert page["next"] == "/api/notifications?unread=1&page=2"
    row = page["notifications"][0]
    assert set(row) == {"id", "kind", "params", "link", "created_at", "read", "text"}
    assert row["read"] is False
    second = client.get(page["next"]).json()
    assert [n["id"] for n in second["notifications"]] == ids[55:]
    assert second["next"] is None
    everything = client.get("/api/notifications").json()
    assert everything["notifications"][0]["id"] == ids[0]
    assert everything["notifications"][0]["read"] is True


def test_mark_read_by_ids_and_all(owner, outsider, django_capture_on_commit_callbacks):
    many(owner, 4)
    many(outsider, 1)
    mine = list(Notification.objects.filter(user=owner).values_list("pk", flat=True))
    theirs = ours().get(user=outsider).pk
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    client.get("/notifications/")
    token = client.cookies["csrftoken"].value
    post = lambda body: client.post(  # noqa: E731
        "/api/notifications/read", json.dumps(body), content_type="application/json",
        HTTP_ACCEPT="application/json", HTTP_X_CSRFTOKEN=token)
    with helpers.listening(events.UserFrame) as heard, \
            django_capture_on_commit_callbacks(execute=True):
        answer = post({"ids": [mine[0], mine[1], theirs]})
    assert answer.json() == {"ok": True, "unread": 2}
    assert [e.frame for e in heard] == [{"type": "unread", "unread": 2}]  # every badge agrees
    assert inbox.unread_count(outsider.pk) == 1  # another's id changed nothing
    assert post({"all": True}).json() == {"ok": True, "unread": 0}
    assert inbox.unread_count(owner.pk) == 0


@pytest.mark.parametrize("body", [{}, {"ids": []}, {"ids": "1"}, {"ids": [True]},
                                  {"ids": [1.5]}, {"ids": list(range(1, 52))},
                                  {"all": "yes"}])
def test_bad_read_requests_are_refused_and_change_nothing(owner, client, body):
    many(owner, 2)
    client.force_login(owner)
    answer = client.post("/api/notifications/read", json.dumps(body),
                         content_type="application/json", HTTP_ACCEPT="application/json")
    assert answer.status_code == 400
    assert answer.json()["reason"] == "bad_notifications"
    assert inbox.unread_count(owner.pk) == 2


@pytest.mark.parametrize("body", ["[1, 2]", '"all"', "5", "null", "true", '{"ids": [1]',
                                  '{"all": NaN}', "[" * 100_000, "{" * 100_000, "\xff"])
def test_a_read_body_that_is_no_json_object_is_bad_message(owner, client, body):
    # docs/protocol.md "Input rules": a JSON body malformed, not an object or
    # nested too deeply is 400 bad_message (docs/api.md), never a 500
    many(owner, 2)
    client.force_login(owner)
    answer = client.post("/api/notifications/read", body.encode("latin-1"),
                         content_type="application/json", HTTP_ACCEPT="application/json")
    assert (answer.status_code, answer.json()["reason"]) == (400, "bad_message")
    assert answer.json()["message"]
    assert inbox.unread_count(owner.pk) == 2


def test_the_read_api_needs_csrf_a_session_and_post(owner, client):
    many(owner, 1)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(owner)
    assert strict.post("/api/notifications/read", json.dumps({"all": True}),
                       content_type="application/json").status_code == 403
    anonymous = Client().post("/api/notifications/read", json.dumps({"all": True}),
                              content_type="application/json", HTTP_ACCEPT="application/json")
    assert (anonymous.status_code, anonymous.json()["reason"]) == (401, "login_required")
    assert Client().get("/api/notifications").status_code == 401
    client.force_login(owner)
    assert client.get("/api/notifications/read").status_code == 405
    assert inbox.unread_count(owner.pk) == 1


def test_the_pages_forms_work_without_script(owner, client):
    many(owner, 3)
    one = Notification.objects.filter(user=owner).order_by("id").first()
    client.force_login(owner)
    answer = client.post("/api/notifications/read", {"ids": str(one.pk),
                                                     "next": "/notifications/?page=1"})
    assert (answer.status_code, answer["Location"]) == (302, "/notifications/?page=1")
    assert inbox.unread_count(owner.pk) == 2
    answer = client.post("/api/notifications/read", {"all": "1", "next": "https://evil.example/"})
    assert answer["Location"] == "/notifications/"
    assert inbox.unread_count(owner.pk) == 0


# --- kept 90 days ------------------------------------------------------------------------------


def test_the_purge_forgets_what_is_older_than_ninety_days(owner):
    from accounts.tasks import purge_notifications
    from yuanzi_site.jobs import PERIODIC_JOBS

    many(owner, 3)
    old, edge, new = Notification.objects.filter(user=owner).order_by("id")
    now = timezone.now()
    Notification.objects.filter(pk=old.pk).update(created_at=now - timedelta(days=91))
    Notification.objects.filter(pk=edge.pk).update(created_at=now - timedelta(days=89))
    assert purge_notifications() == 1  # the periodic job's task
    assert set(Notification.objects.values_list("pk", flat=True)) == {edge.pk, new.pk}
    assert inbox.purge(now + timedelta(days=2)) == 1  # 91 days old by then
    assert ("purge-notifications", "accounts.tasks.purge_notifications", 3600.0) in PERIODIC_JOBS
