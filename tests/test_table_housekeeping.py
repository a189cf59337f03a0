"""Tables nobody uses don't pile up: a cap on a user's empty tables, and idle
tables close and leave the lobby (QA: one user filled the lobby with tables)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from games import deserted, play, presence, tables
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


def test_a_left_practice_table_closes_once_nobody_watches_it(owner, partner, settings):
    """A tester's left practice tables stayed in the lobby with their bots for
    15 minutes: now one closes at the next housekeeping once nobody watches it.
    While its player still looks at the result (to save the replay) it stays."""
    table = tables.practice(owner, "beginner")
    game = table.current_game
    presence.touch_presence("mine", table.pk, owner)
    play.escape(game.pk, owner)
    game.refresh_from_db()
    assert (game.status, game.end_reason) == (Game.OVER, Game.ESCAPE)
    assert tables.close_idle_tables() == 0  # its player is still on the page
    assert not Table.objects.get(pk=table.pk).closed
    presence.drop_presence("mine", table.pk, owner)  # the page is closed
    # (Redis forgets a table's last heartbeat a presence TTL later: shortened here)
    settings.GAMES_PRESENCE_TTL_SECONDS = 1
    time.sleep(1.1)
    assert tables.close_idle_tables() == 1
    assert Table.objects.get(pk=table.pk).closed
    # a young table with bots and a person seated stays; so does an empty one without bots
    busy = tables.practice(partner, "beginner")
    Game.objects.filter(table=busy).update(status=Game.OVER)
    Table.objects.filter(pk=busy.pk).update(status=Table.WAITING)
    empty = tables.create_table(owner)
    assert tables.close_idle_tables() == 0
    assert not Table.objects.get(pk=busy.pk).closed
    assert not Table.objects.get(pk=empty.pk).closed


def test_a_practice_game_its_player_closed_is_left_for_them(owner):
    """A tester closed a practice game's tab and stayed seated under 托管 for
    ten minutes, refused everywhere else: a presence TTL after the housekeeping
    first finds nobody of its players at the table, the game is left for them
    (RULES.md §7: not an escape in practice) and its table closes."""
    table = tables.practice(owner, "beginner")
    game = table.current_game
    ttl = settings.GAMES_PRESENCE_TTL_SECONDS
    t0 = time.time()
    assert deserted.leave_deserted_practice(now=t0) == 0  # first sighting: noted only
    assert deserted.leave_deserted_practice(now=t0 + ttl - 1) == 0
    assert Game.objects.get(pk=game.pk).status == Game.PLAYING
    assert deserted.leave_deserted_practice(now=t0 + ttl) == 1
    game.refresh_from_db()
    assert (game.status, game.end_reason) == (Game.OVER, Game.ESCAPE)
    assert not Seat.objects.filter(table=table, user=owner).exists()  # free to play elsewhere
    assert tables.close_idle_tables() == 1
    assert Table.objects.get(pk=table.pk).closed
    assert tables.practice(owner, "beginner").current_game.status == Game.PLAYING


def test_a_practice_game_someone_has_open_or_reloads_is_never_left(owner, partner):
    """Its player's page open: never left. A reload (gone at one sweep, back at
    the next) starts the count afresh. Another person seated keeps it too."""
    table = tables.practice(owner, "beginner")
    game = table.current_game
    ttl = settings.GAMES_PRESENCE_TTL_SECONDS
    t0 = time.time()
    presence.touch_presence("mine", table.pk, owner)
    assert deserted.leave_deserted_practice(now=t0) == 0
    assert deserted.leave_deserted_practice(now=t0 + 5 * ttl) == 0
    presence.drop_presence("mine", table.pk, owner)  # a reload: gone …
    assert deserted.leave_deserted_practice(now=t0 + 6 * ttl) == 0
    presence.touch_presence("mine2", table.pk, owner)  # … and back
    assert deserted.leave_deserted_practice(now=t0 + 6 * ttl + 10) == 0
    presence.drop_presence("mine2", table.pk, owner)  # closed for good, much later
    assert deserted.leave_deserted_practice(now=t0 + 7 * ttl) == 0  # counted afresh
    assert Game.objects.get(pk=game.pk).status == Game.PLAYING
    assert deserted.leave_deserted_practice(now=t0 + 8 * ttl) == 1
    # three people and a bot: one of them still there keeps the game going
    other = tables.practice(partner, "beginner")
    Seat.objects.filter(table=other, index=2).update(is_bot=False, bot_policy="", user=owner)
    presence.touch_presence("theirs", other.pk, owner)
    assert deserted.leave_deserted_practice(now=t0) == 0
    assert deserted.leave_deserted_practice(now=t0 + 2 * ttl) == 0
    assert other.current_game.status == Game.PLAYING


def test_a_rated_game_is_never_left_for_its_players(owner, partner, opponent, rival):
    """Only practice games: a rated game's absent players are 托管's (RULES.md §7)."""
    table = tables.create_table(owner)
    for user, seat in ((owner, 0), (opponent, 1), (partner, 2), (rival, 3)):
        tables.sit(table.pk, user, seat)
    for user in (owner, opponent, partner, rival):
        tables.set_ready(table.pk, user)
    t0 = time.time()
    assert deserted.leave_deserted_practice(now=t0) == 0
    assert deserted.leave_deserted_practice(now=t0 + 10 * settings.GAMES_PRESENCE_TTL_SECONDS) == 0
    assert Table.objects.get(pk=table.pk).current_game.status == Game.PLAYING
