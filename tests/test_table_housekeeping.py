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


def _open(user) -> set[int]:
    return set(Table.objects.filter(owner=user, closed=False).values_list("pk", flat=True))


def test_a_user_may_own_only_a_few_empty_tables(owner, settings):
    """A new table closes its owner's oldest empty one beyond the cap (as a
    new seek replaces the old on Lichess: a tester's 开桌 × 3 left them no way
    to practise); one that someone else watches stays, and then the cap refuses."""
    settings.GAMES_MAX_IDLE_TABLES = 2
    first = tables.create_table(owner)
    second = tables.create_table(owner)
    third = tables.create_table(owner)
    assert _open(owner) == {second.pk, third.pk}
    presence.touch_presence("c1", second.pk, None)  # someone else is looking at both
    presence.touch_presence("c2", third.pk, None)
    with pytest.raises(Refused) as refused:
        tables.create_table(owner)
    assert refused.value.reason == "too_many_tables"
    assert _open(owner) == {second.pk, third.pk}
    assert Table.objects.get(pk=first.pk).closed
    tables.sit(second.pk, owner, 0)  # a table someone sits at is not empty
    fourth = tables.create_table(owner)
    assert _open(owner) == {second.pk, third.pk, fourth.pk}


def test_opening_tables_then_practice_never_dead_ends(owner, settings):
    """A tester opened three tables (开桌 moves its owner each time), sat at
    the last, and was refused 和机器人练习: the owner's own presence at a
    table does not keep it; the oldest empty ones close."""
    settings.GAMES_MAX_IDLE_TABLES = 3
    opened = [tables.open_table(owner)[0] for _ in range(3)]
    presence.touch_presence("mine", opened[-1].pk, owner)  # the owner's own tab
    game_table = tables.practice(owner, "beginner")
    assert game_table.current_game is not None
    assert _open(owner) == {opened[1].pk, opened[2].pk, game_table.pk}


def test_the_lobby_says_why_a_table_was_not_opened(client, owner, settings):
    settings.GAMES_MAX_IDLE_TABLES = 1
    client.force_login(owner)
    client.post("/tables/new/", {"name": "一号"})
    presence.touch_presence("c1", Table.objects.get(owner=owner).pk, None)  # watched: it stays
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


def test_leaving_a_practice_game_closes_its_table_at_once(owner):
    """A tester's left practice tables stayed in the lobby with their bots:
    now the table closes as its last person leaves (no penalty, RULES.md §7)."""
    table = tables.practice(owner, "beginner")
    game = table.current_game
    tables.leave_game(game.pk, owner)
    game.refresh_from_db()
    assert (game.status, game.end_reason) == (Game.OVER, Game.ESCAPE)
    table.refresh_from_db()
    assert table.closed
    assert not Seat.objects.filter(table=table).exclude(user=None).exists()
    assert not Seat.objects.filter(table=table, is_bot=True).exists()
    with pytest.raises(Refused) as refused:  # a stale second leave changes nothing
        tables.leave_game(game.pk, owner)
    assert refused.value.reason in {"not_seated", "game_over"}


def test_a_practice_table_with_someone_still_seated_stays(owner, partner):
    """Two people and two bots: one leaves, the other stays at the table."""
    table = tables.create_table(owner)
    tables.sit(table.pk, owner, 0)
    tables.sit(table.pk, partner, 2)
    for index in (1, 3):
        tables.add_bot(table.pk, owner, index, "beginner")
    presence.touch_presence("p", table.pk, partner)  # the partner's tab is open
    tables.set_ready(table.pk, owner, True)
    tables.set_ready(table.pk, partner, True)
    table.refresh_from_db()
    game = table.current_game
    assert game.practice
    tables.leave_game(game.pk, owner)
    table.refresh_from_db()
    assert not table.closed
    assert table.status == Table.WAITING
    assert Seat.objects.get(table=table, index=2).user_id == partner.pk
