"""The moderator's user page (/mod/users/<name>/) offers to lift a mute or a
suspension only while one is in force (a tester saw 解除禁言 and 解除封号 on a
user with neither); otherwise it says there is none. Django's test client, the
site's own language (Chinese) and English."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from moderation import actions
from moderation.models import Sanction

pytestmark = pytest.mark.django_db

UNMUTE, UNSUSPEND = "/mod/users/outsider/unmute/", "/mod/users/outsider/unsuspend/"


def _page(mod, language: str = "zh-hans") -> str:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(mod)
    r = client.get("/mod/users/outsider/")
    assert r.status_code == 200
    return r.content.decode()


def _offers(page: str) -> dict[str, bool]:
    """What the page offers and says: the two lift forms and the two "not" lines."""
    return {"unmute": UNMUTE in page, "unsuspend": UNSUSPEND in page,
            "not_muted": 'id="mod-not-muted"' in page,
            "not_suspended": 'id="mod-not-suspended"' in page}


NOTHING = {"unmute": False, "unsuspend": False, "not_muted": True, "not_suspended": True}


def test_nothing_in_force_shows_no_lift_form(mod, outsider):
    page = _page(mod)
    assert _offers(page) == NOTHING
    assert ("/mod/users/outsider/mute/" in page, "/mod/users/outsider/suspend/" in page) == (
        True, True)  # what may be imposed still is
    english = _page(mod, "en")
    assert ("Not muted." in english, "Not suspended." in english) == (True, True)


def test_a_mute_in_force_shows_its_lift_form_only(mod, outsider):
    actions.mute(mod, "outsider", "5", "m", "刷屏")
    page = _page(mod)
    assert _offers(page) == {"unmute": True, "unsuspend": False, "not_muted": False,
                             "not_suspended": True}


def test_a_suspension_in_force_shows_its_lift_form_only(mod, outsider):
    actions.suspend(mod, "outsider", "2", "h", "外挂")
    page = _page(mod)
    assert _offers(page) == {"unmute": False, "unsuspend": True, "not_muted": True,
                             "not_suspended": False}


def test_both_in_force_show_both_and_a_lifted_or_ended_one_none(mod, outsider):
    actions.mute(mod, "outsider", "5", "m", "刷屏")
    actions.suspend(mod, "outsider", "forever", "forever", "外挂")
    page = _page(mod)
    assert _offers(page) == {"unmute": True, "unsuspend": True, "not_muted": False,
                             "not_suspended": False}
    actions.lift(mod, "outsider", Sanction.SUSPENSION, "申诉成功")
    # a mute whose time is up is no mute in force
    Sanction.objects.filter(kind=Sanction.MUTE).update(until=timezone.now() - timedelta(seconds=1))
    assert _offers(_page(mod)) == NOTHING


def test_a_table_ban_alone_is_no_mute_or_suspension(mod, outsider, owner):
    from games import tables

    table = tables.create_table(owner)
    Sanction.objects.create(user=outsider, kind=Sanction.TABLE_BAN, table=table,
                            until=timezone.now() + timedelta(hours=1), reason="x", moderator=mod)
    assert _offers(_page(mod)) == NOTHING
