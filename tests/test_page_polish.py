"""Smaller things testers saw, on the server side: the favicon, the wording
of allauth's pages (你, full-width punctuation), the welcome message after
sign-up, plural-aware English and translated quick phrases, who counts as a
spectator, and the 道具 box only for players with items."""

from __future__ import annotations

import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_favicon_ico_is_served_and_the_pages_link_an_svg_icon():
    client = Client()
    r = client.get("/favicon.ico")
    assert r.status_code == 302
    assert r["Location"].endswith(".ico")
    icon = client.get(r["Location"])
    assert icon.status_code == 200
    body = b"".join(icon.streaming_content) if icon.streaming else icon.content
    assert body[:4] == b"\x00\x00\x01\x00"  # an ICO header
    page = client.get("/").content.decode()
    assert 'rel="icon"' in page
    assert "favicon.svg" in page
    assert 'type="image/svg+xml"' in page


# 您, or a half-width , : ? ! ; ( ) touching Chinese text
BAD_WORDING = re.compile(r".{0,12}(?:您|[\u4e00-\u9fff][,:?!;(]|[,:?!;)][\u4e00-\u9fff]).{0,12}")


def _words(html: str) -> str:
    html = re.sub(r"<script.*?</script>|<style.*?</style>", "", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", html)


def test_allauth_pages_say_ni_with_full_width_punctuation(owner):
    """The sign-up, log-in, reset and log-out pages (and their
    errors) speak as the site does: 你, full-width punctuation."""
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-CN")
    pages = {url: client.get(url).content.decode() for url in (
        "/accounts/login/", "/accounts/signup/", "/accounts/password/reset/")}
    pages["login error"] = client.post(
        "/accounts/login/", {"login": "owner", "password": "wrong"}).content.decode()
    pages["signup error"] = client.post(
        "/accounts/signup/", {"username": "owner", "password1": "123",
                              "password2": "124"}).content.decode()
    client.force_login(owner)
    pages["logout"] = client.get("/accounts/logout/").content.decode()
    pages["password change"] = client.post(
        "/accounts/password/change/", {"oldpassword": "x", "password1": "1",
                                       "password2": "2"}).content.decode()
    for name, html in pages.items():
        assert BAD_WORDING.findall(_words(html)) == [], name
    assert "用户名：" in _words(pages["/accounts/login/"])
    assert "你" in _words(pages["login error"]) + _words(pages["password change"])


def test_the_owner_standing_at_a_waiting_table_is_no_spectator():
    """The owner alone once showed as "1 watching" (table and lobby);
    while a game runs an unseated owner does watch it."""
    from games import presence, snapshots, tables
    from games.models import Table
    from tests.helpers import make_players

    owner, watcher = make_players(2, "sp")
    table = tables.create_table(owner)
    presence.touch_presence("c-owner", table.pk, owner)
    snap = snapshots.table_snapshot(table.pk)
    assert snap["spectators"] == 0
    assert snap["watchers"]["names"] == []
    assert next(r for r in snapshots.lobby_rows() if r["id"] == table.pk)["spectators"] == 0
    presence.touch_presence("c-watch", table.pk, watcher)
    assert snapshots.table_snapshot(table.pk)["spectators"] == 1
    Table.objects.filter(pk=table.pk).update(status=Table.PLAYING)
    snap = snapshots.table_snapshot(table.pk)
    assert snap["spectators"] == 2
    assert [w["username"] for w in snap["watchers"]["names"]] == [owner.username, watcher.username]


def test_sign_up_says_what_the_account_starts_with():
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-CN")
    r = client.post("/accounts/signup/", {"username": "xinren", "password1": "atom-Jiaxing-2026",
                                          "password2": "atom-Jiaxing-2026"}, follow=True)
    page = r.content.decode()
    assert "欢迎来到原子在线！你的账号送你 2,000 金币" in page
    assert "2,000" not in client.get("/").content.decode()  # said once


def test_the_english_table_page_has_plural_counts_and_english_phrases(owner):
    client = Client(HTTP_ACCEPT_LANGUAGE="en-US")
    client.force_login(owner)
    from games import tables

    table = tables.create_table(owner)
    ctx = client.get(f"/tables/{table.pk}/").context
    strings, boot = ctx["strings"], ctx["boot"]
    assert strings["cards_left"] == {"one": "%(n)s card", "other": "%(n)s cards"}
    assert boot["phrase_labels"][:2] == ["Hurry up!", "Well played, partner!"]
    assert boot["phrases"][:2] == ["快点吧", "配合得好"]  # what goes out is the list's own
    zh = Client(HTTP_ACCEPT_LANGUAGE="zh-CN")
    zh.force_login(owner)
    ctx = zh.get(f"/tables/{table.pk}/").context
    assert ctx["boot"]["phrase_labels"] == ctx["boot"]["phrases"]
    assert ctx["strings"]["cards_left"] == {"one": "%(n)s 张", "other": "%(n)s 张"}
