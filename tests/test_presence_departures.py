"""A player who closes the browser at a waiting table is stood up once the
presence TTL has passed (games.presence.expire_presence → PresenceExpired →
games.tables.stand_up_expired, run by the housekeeping job the embedded ticker
and Celery beat call); quick start skips tables whose seated players are all
offline. Sockets go through ``yuanzi_site.asgi.application`` as in
tests/test_consumers.py; ``transaction=True`` because the consumers reach the
database from other threads."""

from __future__ import annotations

import time

import pytest

from games import presence, tables, tasks
from games.models import Seat
from tests import test_consumers as tc
from tests.helpers import make_players
from tests.test_consumers import _db

pytestmark = pytest.mark.django_db(transaction=True)

_site, socks = tc._site, tc.socks


def _seated_at(user_id: int) -> list[int]:
    return list(Seat.objects.filter(user_id=user_id).values_list("table_id", flat=True))


async def test_closing_the_table_page_stands_the_player_up_after_the_ttl(owner, settings):
    table = await _db(tables.create_table)(owner)
    await _db(tables.sit)(table.pk, owner, 0)
    page = await tc._open(table.pk, owner)
    await page.comm.disconnect()  # the browser closed: a clean goodbye
    await _db(tasks.housekeeping)()  # within the TTL: a reload would come back
    assert await _db(_seated_at)(owner.pk) == [table.pk]
    settings.GAMES_PRESENCE_TTL_SECONDS = -1  # every departure is now older than the TTL
    await _db(tasks.housekeeping)()
    assert await _db(_seated_at)(owner.pk) == []


async def test_a_player_still_on_another_page_keeps_the_seat(owner, settings):
    table = await _db(tables.create_table)(owner)
    await _db(tables.sit)(table.pk, owner, 0)
    page = await tc._open(table.pk, owner)
    await page.comm.disconnect()
    # the lobby's socket heartbeats after the TTL the table page's departure ran out
    await _db(presence.touch_person)("lobby-channel", owner, time.time() + 3600)
    settings.GAMES_PRESENCE_TTL_SECONDS = -1
    await _db(tasks.housekeeping)()
    assert await _db(_seated_at)(owner.pk) == [table.pk]
    await _db(presence.drop_person)("lobby-channel", owner)  # the lobby closed too
    await _db(tasks.housekeeping)()
    assert await _db(_seated_at)(owner.pk) == []


def test_quick_start_skips_a_table_whose_players_are_all_offline(owner, partner, rival):
    gone = tables.create_table(owner, "gone")
    for i, u in enumerate(make_players(3, prefix="off")):
        tables.sit(gone.pk, u, i)
    company = tables.create_table(partner, "company")
    tables.sit(company.pk, partner, 0)
    presence.touch_person("chan-partner", partner)
    table, alone = tables.quick_start(rival)
    assert (table.pk, alone) == (company.pk, False)
