"""Tables nobody uses don't pile up: a cap on a user's empty tables, and idle
tables close and leave the lobby (QA: one user filled the lobby with tables)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import presence, tables
from games.models import Game, Seat, Table
from yuanzi_site.refusals import Refused

pytestmark = pytest.mark.django_db


def test_a_user_may_own_only_a_few_empty_tables(owner, settings):
    settings.GAMES_MAX_IDLE_TABLES = 2
    first = tables.create_table(owner)
    tables.create_table(owner)
    with pytest.raises(Refused) as refused:
        tables.create_table(owner)
    assert refused.value.reason == "too_many_tables"
    assert Table.objects.filter(owner=owner).count() == 2
    tables.sit(first.pk, owner, 0)  # a table someone sits at is not empty
    tables.create_table(owner)
    assert Table.objects.filter(owner=owner).count() == 3


def test_the_lobby_says_why_a_table_was_not_opened(client, owner, settings):
    settings.GAMES_MAX_IDLE_TABLES = 1
    client.force_login(owner)
    client.post("/tables/new/", {"name": "一号"})
    response = client.post("/tables/new/", {"name": "二号"}, follow=True)
    assert Table.objects.filter(owner=owner).count() == 1
    (message,) = list(response.context["messages"])
    assert message.level_tag == "error"
    assert str(message) in response.content.decode()


def _age(table, minutes):
    Table.objects.filter(pk=table.pk).update(
        created_at=timezone.now() - timedelta(minutes=minutes)
    )


def test_idle_tables_close_and_busy_ones_stay(owner, partner, settings):
    settings.GAMES_IDLE_TABLE_MINUTES = 15
    settings.GAMES_MAX_IDLE_TABLES = 10
    idle, seated, watched, young = (tables.create_table(owner) for _ in range(4))
    for t in (idle, seated, watched):
        _age(t, 20)
    _age(young, 5)
    tables.sit(seated.pk, partner, 1)
    presence.touch_presence("c1", watched.pk, None)
    assert tables.close_idle_tables() == 1
    assert set(Table.objects.filter(closed=True).values_list("pk", flat=True)) == {idle.pk}
    assert tables.close_idle_tables() == 0


def test_practice_tables_left_behind_close_when_their_owner_opens_another(
        owner, partner, settings):
    """A tester was refused 和机器人练习 ("you already have 3 empty tables")
    by their own earlier practice tables, left with only bots at them: those
    close when the owner opens another; an empty table without bots stays."""
    settings.GAMES_MAX_IDLE_TABLES = 2
    empty = tables.create_table(owner)
    first = tables.practice(owner, "beginner")
    Game.objects.filter(table=first).update(status=Game.OVER)
    Table.objects.filter(pk=first.pk).update(status=Table.WAITING)
    second = tables.practice(owner, "beginner")  # moves the owner: 1 is left with bots only
    Game.objects.filter(table=second).update(status=Game.OVER)
    Table.objects.filter(pk=second.pk).update(status=Table.WAITING)
    tables.stand(second.pk, owner)
    third = tables.practice(owner, "expert")
    assert set(Table.objects.filter(owner=owner, closed=False).values_list("pk", flat=True)) == {
        empty.pk, third.pk}
    assert not Seat.objects.filter(table__in=(first, second)).exclude(bot_policy="").exists()
    # a left practice table someone else sits at is theirs to use: it stays
    Table.objects.filter(pk=third.pk).update(status=Table.WAITING)
    Game.objects.filter(table=third).update(status=Game.OVER)
    tables.stand(third.pk, owner)
    tables.sit(third.pk, partner, 0)
    tables.create_table(owner)
    assert not Table.objects.get(pk=third.pk).closed
