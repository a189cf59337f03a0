"""Issue 16 §6's smaller things on the server side: the favicon, the wording
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
    assert r.status_code == 302 and r["Location"].endswith(".ico")
    icon = client.get(r["Location"])
    assert icon.status_code == 200
    body = b"".join(icon.streaming_content) if icon.streaming else icon.content
    assert body[:4] == b"\x00\x00\x01\x00"  # an ICO header
    page = client.get("/").content.decode()
    assert 'rel="icon"' in page and "favicon.svg" in page and 'type="image/svg+xml"' in page


# 您, or a half-width , : ? ! ; ( ) touching Chinese text
BAD_WORDING = re.compile(r".{0,12}(?:您|[\u4e00-\u9fff][,:?!;(]|[,:?!;)][\u4e00-\u9fff]).{0,12}")


def _words(html: str) -> str:
    html = re.sub(r"<script.*?</script>|<style.*?</style>", "", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", html)


def test_allauth_pages_say_ni_with_full_width_punctuation(owner):
    """Issue 16: the sign-up, log-in, reset and log-out pages (and their
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
