"""Smaller things of the pages, on the server side: the UI language follows
Accept-Language when the visitor has not chosen one (Chinese otherwise), the
brand is 原子在线 in Chinese, the site's own 404 page, cookies over plain http
in the embedded mode, the watchers in a table snapshot."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.test import Client

from games import presence, snapshots, tables
from tests.helpers import make_players

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("header", "word"), [
    ("en-US,en;q=0.9", "Lobby"), ("zh-CN,zh;q=0.9", "大厅"), ("fr-FR,fr;q=0.9", "大厅"),
    ("", "大厅"),
])
def test_the_language_follows_accept_language(header, word):
    page = Client(HTTP_ACCEPT_LANGUAGE=header).get("/").content.decode()
    assert f"<h1>{word}" in page


def test_the_brand_in_chinese_and_the_sites_own_404():
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert "原子在线" in client.get("/").content.decode()
    missing = client.get("/tables/999999/")
    assert missing.status_code == 404
    body = missing.content.decode()
    assert "error-page" in body
    assert "页面不存在" in body
    assert "原子在线" in body


def test_the_embedded_mode_keeps_cookies_usable_over_http():
    assert not settings.DEBUG
    assert not settings.SESSION_COOKIE_SECURE
    assert not settings.CSRF_COOKIE_SECURE


def test_a_snapshot_names_the_watchers_and_counts_the_anonymous():
    owner, watcher, mod = make_players(3, "w")
    Group.objects.get_or_create(name="moderators")[0].user_set.add(mod)
    table = tables.create_table(owner)
    tables.sit(table.pk, owner, 0)
    presence.touch_presence("c-owner", table.pk, owner)
    presence.touch_presence("c-watch", table.pk, watcher)
    presence.touch_presence("c-mod", table.pk, mod)
    presence.touch_presence("c-anon", table.pk, None)
    snap = snapshots.table_snapshot(table.pk)
    assert snap["watchers"] == {"names": [{"username": "w1", "moderator": False},
                                          {"username": "w2", "moderator": True}],
                                "anonymous": 1}
    row = snapshots.lobby_row(snap)
    assert "watchers" not in row
    assert "room_code" not in row
