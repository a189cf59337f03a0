"""Issue 16 §6's smaller things on the server side: the favicon, the wording
of allauth's pages (你, full-width punctuation), the welcome message after
sign-up, plural-aware English and translated quick phrases, who counts as a
spectator, and the 道具 box only for players with items."""

from __future__ import annotations

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
