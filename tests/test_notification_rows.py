"""消息 rows that arrive while /notifications/ is open, and prompts (RULES.md
§12 "Arenas": 30 seconds to confirm a table).

A tester kept the page open while an arena seated them: the new row read
``12/7/2026, 7:21:31 PM`` (the browser's locale, UTC) beside rows reading
``2026-12-08 03:19`` (the site's zone), and had no 标为已读. The page's script
now asks the server for the row (``GET /notifications/<id>/row``), which
renders it with the page's own template. A player elsewhere was told "your
table is ready" with nothing to press and paused a minute later: the arena's
notification is a prompt, whose frame, toast and row carry a button to the
table until the seating's deadline.
"""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from accounts import inbox
from accounts.models import Notification
from contests import arena, arena_run
from contests.models import ArenaSeating
from games import events
from tests import helpers
from tests.test_arena import begin, new_arena
from tests.test_arena import here as online

pytestmark = pytest.mark.django_db

CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')


def _page_row(html: str, pk: int) -> str:
    """Row ``pk`` of a rendered /notifications/ page, its CSRF token blanked
    (Django masks it afresh in every rendering)."""
    found = re.search(rf'<li class="inbox-row[^"]*" data-id="{pk}">.*?</li>', html, re.S)
    assert found, html
    return CSRF.sub('name="csrfmiddlewaretoken" value=""', found.group(0))


def _friend_request(user, at: datetime) -> Notification:
    n = inbox.post(user.pk, "friend_request", {"name": "xiaoming"}, "/friends/")
    Notification.objects.filter(pk=n.pk).update(created_at=at)
    return Notification.objects.get(pk=n.pk)


def test_a_live_row_is_the_pages_row_in_the_sites_zone_with_mark_read(owner, client):
    assert settings.TIME_ZONE == "Asia/Shanghai"
    older = _friend_request(owner, datetime(2026, 12, 7, 19, 19, 5, tzinfo=UTC))
    new = _friend_request(owner, datetime(2026, 12, 7, 19, 21, 31, tzinfo=UTC))
    client.force_login(owner)
    page = client.get("/notifications/").content.decode()
    answer = client.get(f"/notifications/{new.pk}/row?next=/notifications/")
    assert answer.status_code == 200
    row = answer.content.decode().strip()
    # what the script adds is what the page renders, byte for byte
    assert CSRF.sub('name="csrfmiddlewaretoken" value=""', row) == _page_row(page, new.pk)
    assert ">2026-12-08 03:21</time>" in row  # Asia/Shanghai, the page's format
    assert ">2026-12-08 03:19</time>" in _page_row(page, older.pk)
    assert "标为已读" in row
    assert f'name="ids" value="{new.pk}"' in row
    assert 'name="next" value="/notifications/"' in row
    # its form works like any row's: read, and back to the page
    form = dict(re.findall(r'name="(ids|next)" value="([^"]*)"', row))
    back = client.post("/api/notifications/read", form)
    assert (back.status_code, back["Location"]) == (302, "/notifications/")
    assert Notification.objects.get(pk=new.pk).read_at is not None
    assert Notification.objects.get(pk=older.pk).read_at is None
    read = client.get(f"/notifications/{new.pk}/row").content.decode()
    assert 'class="inbox-row"' in read
    assert "标为已读" not in read
    # in English the words follow the page's language; the time does not change
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    english = client.get(f"/notifications/{older.pk}/row").content.decode()
    assert "xiaoming asks to be your friend." in english
    assert ">2026-12-08 03:19</time>" in english
    assert "Mark read" in english


def test_a_row_is_only_its_owners_and_goes_back_only_to_the_page(owner, outsider, client):
    mine = _friend_request(owner, timezone.now())
    theirs = _friend_request(outsider, timezone.now())
    assert Client().get(f"/notifications/{mine.pk}/row").status_code == 401  # no log-in page
    client.force_login(owner)
    assert client.get(f"/notifications/{theirs.pk}/row").status_code == 404
    assert client.get("/notifications/999999/row").status_code == 404
    assert client.get(f"/notifications/{2**64}/row").status_code == 404  # no bigint: no 500
    row = client.get(f"/notifications/{mine.pk}/row?next=https://evil.example/").content.decode()
    assert 'name="next" value="/notifications/"' in row
    row = client.get(f"/notifications/{mine.pk}/row?next=/notifications/%3Funread%3D1"
                     ).content.decode()
    assert 'name="next" value="/notifications/?unread=1"' in row


def _seated(mod, capture):
    """Four connected entrants of a running arena seated by the tick's pairing:
    ``(the four, their seating, every frame sent them)``."""
    users = helpers.make_players(4, "pr")
    online(*users)
    a = new_arena(mod, entry_fee=0)
    for u in users:
        arena.join(a.pk, u)
    begin(a)
    with helpers.listening(events.UserFrame) as frames, capture(execute=True):
        assert arena_run.pair(a.pk, random.Random(0)) == 1
    return users, ArenaSeating.objects.get(arena=a, done=False), frames


def test_an_arena_seating_is_a_prompt_with_a_button_to_the_table_until_its_deadline(
        mod, django_capture_on_commit_callbacks):
    users, seating, frames = _seated(mod, django_capture_on_commit_callbacks)
    path = arena_run.table_path(seating.table)
    until = seating.confirm_by.isoformat()
    n = Notification.objects.get(user=users[0], kind="arena_seated")
    assert (n.link, n.params["confirm_by"]) == (path, until)
    sent = [f.frame for f in frames if f.user_id == users[0].pk
            and f.frame["type"] == "notification"]
    assert len(sent) == 1
    assert sent[0]["quiet"] is False  # a toast on whatever page they are on
    assert sent[0]["notification"]["action"] == {
        "text": {"zh-hans": "去牌桌确认", "en": "Go to your table and confirm"},
        "until": until}
    assert sent[0]["notification"]["text"]["zh-hans"].startswith("比赛")
    # past the deadline there is nothing to press
    late = seating.confirm_by + timedelta(seconds=1)
    assert inbox.action(n, late) is None
    assert inbox.action(n, seating.confirm_by - timedelta(seconds=1)) == {
        "text": "去牌桌确认", "until": until}
    # other kinds never carry one (the API's rows keep their shape)
    other = inbox.post(users[0].pk, "friend_request", {"name": "x"}, "/friends/")
    assert "action" not in inbox.as_frame(other)
    assert inbox.action(other) is None


def test_the_page_row_of_a_prompt_has_its_button_until_the_deadline(
        mod, client, django_capture_on_commit_callbacks):
    users, seating, _ = _seated(mod, django_capture_on_commit_callbacks)
    path = arena_run.table_path(seating.table)
    client.force_login(users[1])
    n = Notification.objects.get(user=users[1], kind="arena_seated")
    button = (f'<a class="button small inbox-action" href="{path}" '
              f'data-until="{seating.confirm_by.isoformat()}">去牌桌确认</a>')
    assert button in client.get("/notifications/").content.decode()
    assert button in client.get(f"/notifications/{n.pk}/row").content.decode()
    # the deadline passed: the row says what happened, with no button
    Notification.objects.filter(pk=n.pk).update(params={
        **n.params, "confirm_by": (timezone.now() - timedelta(seconds=1)).isoformat()})
    page = client.get("/notifications/").content.decode()
    assert "inbox-action" not in page
    assert "你的牌桌已就绪" in page
    frame = client.get("/api/notifications").json()["notifications"][0]
    assert frame["kind"] == "arena_seated"
    assert "action" not in frame


@pytest.mark.parametrize("until", [None, "", "soon", "2026-12-08 03:19", 5])
def test_a_prompt_with_no_usable_deadline_has_no_button(owner, until):
    n = Notification(user=owner, kind="arena_seated", link="/tables/1/?invite=x",
                     params={"arena": "a", "arena_id": 1, "confirm_by": until})
    assert inbox.action(n) is None
    assert inbox.render("arena_seated", n.params).startswith("Arena “a”") or \
        inbox.render("arena_seated", n.params).startswith("比赛“a”")
