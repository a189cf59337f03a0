"""维护公告, the site notice (``moderation.SiteNotice``, ``moderation.notices``):
an operator posts it in the admin, every open socket is sent it at once, and
every page loaded while it is shown has it in its banner; switched off or past
its ``until``, it goes."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.urls import reverse
from django.utils import timezone

from games import tables
from moderation import notices
from moderation.models import SiteNotice
from tests.test_robustness import ORIGIN, _open
from yuanzi_site.asgi import application

TIMEOUT = 5


@pytest.fixture(autouse=True)
def _no_cached_notice():
    from django.core.cache import cache

    cache.delete(notices._KEY)
    yield
    cache.delete(notices._KEY)


@pytest.mark.django_db
def test_a_page_shows_the_notice_in_its_language_until_it_ends(
        client, owner, django_capture_on_commit_callbacks):
    page = client.get(reverse("lobby")).content.decode()
    assert 'id="site-notice"' in page
    assert "维护" not in page
    with django_capture_on_commit_callbacks(execute=True):  # the save drops the cache
        notice = SiteNotice.objects.create(text="今晚维护", text_en="Maintenance tonight",
                                           until=timezone.now() + timedelta(hours=1))
    page = client.get(reverse("lobby")).content.decode()
    assert "今晚维护" in page
    assert f'data-id="{notice.pk}"' in page
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert "Maintenance tonight" in client.get(reverse("rules")).content.decode()
    with time_machine.travel(timezone.now() + timedelta(hours=1, seconds=1)):  # past its end
        assert "Maintenance tonight" not in client.get(reverse("rules")).content.decode()


@pytest.mark.django_db
def test_the_admin_posts_it_and_records_who(admin_client, django_user_model):
    response = admin_client.post(reverse("admin:moderation_sitenotice_add"), {
        "text": "十分钟后重启", "text_en": "", "active": "on", "until_0": "", "until_1": ""})
    assert response.status_code == 302, response.content.decode()[:2000]
    notice = SiteNotice.objects.get()
    assert notice.created_by == django_user_model.objects.get(username="admin")
    assert notices.current() == {"id": notice.pk, "text": "十分钟后重启", "text_en": "十分钟后重启",
                                 "until": None}


@pytest.mark.django_db(transaction=True)
async def test_every_open_socket_hears_it_posted_and_switched_off(owner):
    table = await database_sync_to_async(tables.create_table)(owner, "公告桌")
    lobby = WebsocketCommunicator(application, "/ws/lobby/", headers=[ORIGIN])
    assert (await lobby.connect(timeout=TIMEOUT))[0]
    assert (await lobby.receive_json_from(TIMEOUT))["type"] == "tables"
    at_table = await _open(table.pk, owner)
    try:
        notice = await database_sync_to_async(SiteNotice.objects.create)(text="维护中")
        for comm in (lobby, at_table):
            frame = await _frame(comm, "site_notice")
            assert frame["notice"]["id"] == notice.pk
            assert frame["notice"]["text"] == "维护中"
        notice.active = False
        await database_sync_to_async(notice.save)()
        for comm in (lobby, at_table):
            assert (await _frame(comm, "site_notice"))["notice"] is None
    finally:
        await lobby.disconnect()
        await at_table.disconnect()


async def _frame(comm: WebsocketCommunicator, kind: str) -> dict:
    while True:
        msg = await comm.receive_json_from(TIMEOUT)
        if msg["type"] == kind:
            return msg
