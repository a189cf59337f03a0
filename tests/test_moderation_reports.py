"""Reports: filed from a table (``moderation.reports``; the socket
path is in tests/test_moderation_live.py), at most 5 an hour, one of a player
at a table while it is open and under a minute old (a double click), queued in the
console with their context — the chat around the line, the game's record only
once it has ended, both users' recent games — and resolved or dismissed with
a note, audited, the reporter told in general terms."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone, translation

from games import chat, play, tables
from games.models import Game, Seat
from moderation import actions, reports
from moderation.models import AuditEntry, Report
from tests.helpers import make_players, start_game
from yuanzi_site.refusals import Refused

pytestmark = pytest.mark.django_db


def _client(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


def test_at_most_five_reports_an_hour(owner, outsider, time_machine):
    time_machine.move_to(timezone.now(), tick=False)
    table = tables.create_table(owner)
    tables.sit(table.pk, outsider, 1)
    for _ in range(5):
        reports.create_report(owner, table.pk, category="stalling", user_id=outsider.pk)
        time_machine.shift(timedelta(minutes=2))  # past the repeat window, within the hour
    with pytest.raises(Refused) as e:
        reports.create_report(owner, table.pk, category="stalling", user_id=outsider.pk)
    assert e.value.reason == "report_limit"
    assert Report.objects.count() == 5


def test_a_chat_line_of_another_table_cannot_be_reported(owner, outsider):
    here, there = tables.create_table(owner), tables.create_table(outsider)
    line = chat.chat(there.pk, outsider, "hi")
    with pytest.raises(Refused) as e:
        reports.create_report(owner, here.pk, category="chat_abuse", line_id=line.pk)
    assert e.value.reason == "bad_report"
    # ids too large for the database are refused, not sent to it (a tester's 10**30)
    for field in ("line_id", "user_id"):
        with pytest.raises(Refused) as e:
            reports.create_report(owner, here.pk, category="chat_abuse", **{field: 10**30})
        assert e.value.reason == "bad_report"
    assert not Report.objects.exists()


def test_the_queue_shows_context_and_never_a_running_games_record(mod):
    users = make_players(4)
    game = start_game(users)
    for i in range(8):
        chat.chat(game.table_id, users[i % 4], f"第{i}句")
    line = game.table.chat.order_by("pk")[4]
    report = reports.create_report(users[1], game.table_id, category="chat_abuse",
                                   line_id=line.pk, note="骂人")
    c = _client(mod)
    assert f"#{report.pk}" in c.get("/mod/reports/").content.decode()
    page = c.get(f"/mod/reports/{report.pk}/")
    ctx = page.context
    assert [x["text"] for x in ctx["lines"]] == [f"第{i}句" for i in range(8)]
    assert ctx["record"] is None
    assert "mod-record" not in page.content.decode()
    play.escape(game.pk, users[2])
    page = c.get(f"/mod/reports/{report.pk}/")
    assert page.context["record"] == Game.objects.get(pk=game.pk).record
    assert "mod-record" in page.content.decode()
    assert [g.game_id for g in page.context["target_games"]] == [game.pk]


def test_a_repeat_report_within_a_minute_is_refused_and_files_nothing(
        owner, outsider, partner, mod, time_machine):
    """A tester's double click on 发送举报 filed two identical reports: while
    the first is open and under a minute old, the same reporter's report of
    the same player at the same table (for a chat line of theirs too) is
    refused with ``already_reported``; another player, another table, a
    minute later or once the first is handled, it is filed."""
    time_machine.move_to(timezone.now(), tick=False)
    table, other = tables.create_table(owner), tables.create_table(partner)
    tables.sit(table.pk, outsider, 1)
    tables.sit(table.pk, partner, 2)
    first = reports.create_report(owner, table.pk, category="stalling", user_id=outsider.pk)
    line = chat.chat(table.pk, outsider, "快点")
    time_machine.shift(timedelta(seconds=59))
    for again in ({"category": "stalling", "user_id": outsider.pk},
                  {"category": "cheating", "user_id": outsider.pk, "note": "又来"},
                  {"category": "chat_abuse", "line_id": line.pk}):
        with pytest.raises(Refused) as e:
            reports.create_report(owner, table.pk, **again)
        assert e.value.reason == "already_reported"
    with translation.override("zh-hans"), pytest.raises(Refused) as e:
        reports.create_report(owner, table.pk, category="other", user_id=outsider.pk)
    assert str(e.value) == "你刚举报过这位玩家，管理员会处理。"
    assert list(Report.objects.values_list("pk", flat=True)) == [first.pk]  # nothing filed
    # another player: a report of its own
    reports.create_report(owner, table.pk, category="other", user_id=partner.pk)
    # the first one handled: the same complaint is filed at once
    reports.handle(mod, first.pk, "看过了", resolved=False)
    handled = reports.create_report(owner, table.pk, category="stalling", user_id=outsider.pk)
    # over a minute later, though that one is still open
    time_machine.shift(timedelta(seconds=61))
    reports.create_report(owner, table.pk, category="stalling", user_id=outsider.pk)
    # the same player at another table
    tables.sit(other.pk, outsider, 1)
    reports.create_report(owner, other.pk, category="stalling", user_id=outsider.pk)
    assert Report.objects.filter(target=outsider, status=Report.OPEN).count() == 3
    assert Report.objects.get(pk=handled.pk).status == Report.OPEN


def test_resolve_and_dismiss_through_the_console(mod, owner, outsider, partner):
    table = tables.create_table(owner)
    tables.sit(table.pk, outsider, 1)
    tables.sit(table.pk, partner, 2)
    a = reports.create_report(owner, table.pk, category="other", user_id=outsider.pk)
    b = reports.create_report(owner, table.pk, category="other", user_id=partner.pk)
    c = _client(mod)
    c.post(f"/mod/reports/{a.pk}/", {"outcome": "resolve", "note": "禁言一天"})
    c.post(f"/mod/reports/{b.pk}/", {"outcome": "dismiss", "note": "正常对局"})
    assert Report.objects.get(pk=a.pk).status == "resolved"
    assert Report.objects.get(pk=b.pk).status == "dismissed"
    assert Report.objects.get(pk=b.pk).handled_by == mod
    assert AuditEntry.objects.filter(action="report").count() == 2
    c.post(f"/mod/reports/{a.pk}/", {"outcome": "dismiss", "note": "again"})
    assert Report.objects.get(pk=a.pk).status == "resolved"  # handled once
    assert AuditEntry.objects.filter(action="report").count() == 2
    with pytest.raises(Refused) as e:
        reports.handle(mod, a.pk, "x", resolved=False)
    assert e.value.reason == "report_handled"


def test_a_player_cannot_see_the_queue(owner):
    assert _client(owner).get("/mod/reports/").status_code == 403


def test_a_player_gone_from_the_game_can_still_be_reported_from_its_table(mod):
    """The table's report dialog lists the players of its current or last game
    as well as those seated (moderation/report.js): one who escaped, or whom a
    moderator kicked, is stood up, yet a player of that game may report them
    there (docs/protocol.md ``report``: "seated at this table or playing its
    game"), until the table's next game starts."""
    users = make_players(8)
    game = start_game(users[:4])
    play.escape(game.pk, users[1])
    assert not Seat.objects.filter(table_id=game.table_id, user=users[1]).exists()
    report = reports.create_report(users[0], game.table_id, category="stalling",
                                   user_id=users[1].pk)
    assert (report.target_id, report.game_id) == (users[1].pk, game.pk)

    kicked = start_game(users[4:])
    actions.kick(mod, kicked.table_id, users[5].username, "挂机")
    assert not Seat.objects.filter(table_id=kicked.table_id, user=users[5]).exists()
    report = reports.create_report(users[4], kicked.table_id, category="cheating",
                                   user_id=users[5].pk)
    assert (report.target_id, report.game_id) == (users[5].pk, kicked.pk)
    # someone never at that table nor in its game is not reportable there
    with pytest.raises(Refused) as e:
        reports.create_report(users[4], kicked.table_id, category="other",
                              user_id=users[1].pk)
    assert e.value.reason == "bad_report"
