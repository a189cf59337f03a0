"""SQL statements per move and per connect, counted on PostgreSQL (deterministic;
no time is measured here — speed is in bench/).

A *move* is a human's non-final play in a four-person rated game without
wager or items, from the consumer receiving it (``consumers._handle``, called
here in the test thread as Channels' database thread calls it, with the game
id the connection was sent) to the commit, the after-commit broadcast
included (every seat's view and the spectators' are built in this thread):
at most 4 statements. A *connect* is a seated player's table connect
(``consumers._connect``) with the session already loaded: at most 6.

How statements are counted: every entry Django's ``CaptureQueriesContext``
logs, except the transaction markers ``BEGIN`` and ``COMMIT`` (psycopg sends
them with the first statement and at the end; they are reported beside the
count) and the read of the scheduler's heartbeat (``games.clock.paused_since``
reads it at most once a second per process, whatever the number of moves).
A feature that would add a statement to either denormalises instead.

Then the shared copies those counts rely on are shown to follow every write
that changes them: an armed or disarmed timer, a card counter, a tablecloth,
a wager, a moderator appointed (any database: these run on SQLite too).
"""

from __future__ import annotations

import importlib
import os

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.apps import apps
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games import chat, presence, snapshots
from games.adapters import broadcast, consumers
from games.models import Game, GameEvent
from games.seatview import current_view
from moderation import roles
from shop import items, ledger, purchase, wagers
from shop.models import InventorySlot
from social import blocks
from tests import helpers

MOVE_MAX = 4
CONNECT_MAX = 6

_POSTGRES = bool(os.environ.get("DATABASE_URL"))
_CI = os.environ.get("CI", "").lower() == "true"
needs_postgres = pytest.mark.skipif(
    not _POSTGRES and not _CI,
    reason="counts statements on PostgreSQL (DATABASE_URL): SQLite's are not the production's")

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _catalogue(db):
    """The catalogue's rows (a data migration a ``transaction=True`` test flushes)."""
    importlib.import_module("shop.migrations.0004_catalogue_data").add_items(apps, None)


def _statements(captured: CaptureQueriesContext) -> tuple[list[str], int]:
    """(the statements counted, how many BEGIN/COMMIT markers there were)."""
    sql = [q["sql"] for q in captured.captured_queries]
    markers = sum(1 for s in sql if s.strip().upper() in ("BEGIN", "COMMIT"))
    counted = [s for s in sql if s.strip().upper() not in ("BEGIN", "COMMIT")
               and "games_schedulerheartbeat" not in s]
    return counted, markers


def _seated_game():
    """A running rated game of four humans, each connected to the table."""
    users = helpers.make_players(4, prefix="q")
    game = helpers.start_game(users)
    for u in users:
        presence.touch_presence(f"chan-{u.pk}", game.table_id, u)
    return game


def _player_to_act(game: Game):
    game = helpers.fresh(game)
    seat = game.state["turn"]
    user = helpers.user_at(game, seat)
    action = helpers.heuristic_action(game.state, seat, game.seq)
    # a lead or a follow (a pass is a move too): never a hand's last card this early
    assert action["type"] in ("play", "pass")
    return game, user, {**action, "seq": game.seq}


@needs_postgres
def test_a_move_is_at_most_four_statements_broadcast_included():
    game = _seated_game()
    hello = consumers._connect("chan-hello", game.table_id, helpers.user_at(game, 0))
    hint = hello["table"]["game_id"]  # what the consumer keeps from its greeting
    assert hint == game.pk
    layer = get_channel_layer()
    listener = async_to_sync(layer.new_channel)()
    for _ in range(3):  # a few moves: the first one is no special case
        game, user, msg = _player_to_act(game)
        group = broadcast.user_group(game.table_id, user.pk)
        async_to_sync(layer.group_add)(group, listener)
        with CaptureQueriesContext(connection) as captured:
            assert consumers._handle("chan", game.table_id, user, msg, hint) is None
        counted, markers = _statements(captured)
        assert len(counted) <= MOVE_MAX, "\n".join(counted)
        assert markers == 2  # one transaction: the lock, the event, the game row
        # the broadcast was built and sent inside what was counted
        frame = async_to_sync(layer.receive)(listener)
        assert frame["type"] == "game.update"
        assert frame["view"]["seq"] == msg["seq"] + 1
        assert frame["view"]["armed_timer"] is False  # the item state was read for it
        async_to_sync(layer.group_discard)(group, listener)
    assert GameEvent.objects.filter(game=game).count() == 3


@needs_postgres
def test_a_seated_players_connect_is_at_most_six_statements():
    game = _seated_game()
    players = [helpers.user_at(game, s) for s in range(4)]
    chat.chat(game.table_id, players[1], "好牌")  # a history to send, with its badges
    consumers._connect("chan-warm", game.table_id, players[2])  # the shared copies filled
    user = type(players[0]).objects.get(pk=players[0].pk)  # as the session loads it
    blocks.warm(None, user)  # whom they block: cached at log-in, like the session
    with CaptureQueriesContext(connection) as captured:
        hello = consumers._connect("chan-0", game.table_id, user, None, "10.0.0.1")
    counted, _markers = _statements(captured)
    assert len(counted) <= CONNECT_MAX, "\n".join(counted)
    assert hello["view"]["game_id"] == game.pk
    assert hello["view"]["hand"]
    assert hello["moderator"] is False
    assert [line["text"] for line in hello["chat"]] == ["好牌"]


def test_a_stale_game_hint_falls_back_to_the_tables_current_game():
    game = _seated_game()
    other = helpers.start_game(helpers.make_players(4, prefix="o"))
    game, user, msg = _player_to_act(game)
    # another table's game as the hint: the move is made in this table's game
    consumers._handle("chan", game.table_id, user, msg, other.pk)
    assert helpers.fresh(game).seq == msg["seq"] + 1
    assert helpers.fresh(other).seq == 0
    # no hint at all: the table's current game is looked up
    game, user, msg = _player_to_act(game)
    consumers._handle("chan", game.table_id, user, msg, None)
    assert helpers.fresh(game).seq == msg["seq"] + 1


def test_the_previous_games_hint_is_not_trusted():
    from games import tables
    from games.models import Seat, Table

    old = _seated_game()
    players = [helpers.user_at(old, s) for s in range(4)]
    # the game ended (as the finisher leaves it) and the table started the next
    Game.objects.filter(pk=old.pk).update(status=Game.OVER)
    Table.objects.filter(pk=old.table_id).update(status=Table.WAITING)
    Seat.objects.filter(table_id=old.table_id).update(ready=False)
    for user in players:
        tables.set_ready(old.table_id, user)
    new = Game.objects.get(table_id=old.table_id, status=Game.PLAYING)
    new, user, msg = _player_to_act(new)
    consumers._handle("chan", new.table_id, user, msg, old.pk)  # the old game's id
    assert helpers.fresh(new).seq == msg["seq"] + 1
    assert helpers.fresh(old).seq == 0


# --- the shared copies follow the writes -------------------------------------------------


def _give(user, code: str) -> int:
    price = purchase.Item.objects.get(code=code).price
    with transaction.atomic():
        ledger.credit(user, price, ledger.Reason.GRANT)
    purchase.buy(user, code, 1, price)
    return InventorySlot.objects.get(user=user, item__code=code).slot


def test_arming_and_disarming_a_timer_shows_in_the_next_view():
    game = _seated_game()
    user = helpers.user_at(game, 1)
    assert current_view(game.table_id, user)["armed_timer"] is False  # the copy is made
    items.use(user, _give(user, "timer"), "timer", "arm")
    assert current_view(game.table_id, user)["armed_timer"] is True
    items.disarm_timer(user)
    assert current_view(game.table_id, user)["armed_timer"] is False


def test_a_card_counter_shows_in_the_next_view():
    game = _seated_game()
    user = helpers.user_at(game, 2)
    assert "card_counter" not in current_view(game.table_id, user)
    items.use(user, _give(user, "card_counter"), "card_counter", "c", table_id=game.table_id)
    assert "card_counter" in current_view(game.table_id, user)


def test_a_tablecloth_and_its_reset_show_in_the_next_snapshot(owner):
    from games import tables

    table = tables.create_table(owner, "桌布")
    assert snapshots.table_snapshot(table.pk)["theme"] == "default"
    theme = next(t for t in items.THEMES if t != "default")
    items.use(owner, _give(owner, "tablecloth"), "tablecloth", "t", table_id=table.pk,
              theme=theme)
    assert snapshots.table_snapshot(table.pk)["theme"] == theme
    items.reset_theme(owner, table.pk)
    assert snapshots.table_snapshot(table.pk)["theme"] == "default"


def test_a_wager_shows_in_the_next_snapshot(owner):
    from games import tables

    table = tables.create_table(owner, "赌桌")
    assert snapshots.table_snapshot(table.pk)["wager"] == 0
    ledger_grant = wagers.needed(40)
    with transaction.atomic():
        ledger.credit(owner, ledger_grant, ledger.Reason.GRANT)
    wagers.set_wager(table.pk, owner, 40)
    assert snapshots.table_snapshot(table.pk)["wager"] == 40
    assert wagers.wagers_of([table.pk]) == {table.pk: 40}
    wagers.set_wager(table.pk, owner, 0)
    assert snapshots.table_snapshot(table.pk)["wager"] == 0


def test_a_minimum_finish_rate_shows_in_the_snapshot_its_change_sends(owner):
    from games import events, tables
    from social import reputation

    table = tables.create_table(owner, "九成")
    assert snapshots.table_snapshot(table.pk)["min_finish_rate"] == 0  # cached now
    sent: list[int] = []

    def snapshot_sent(e: events.TableChanged) -> None:  # as the broadcast builds it
        sent.append(snapshots.table_snapshot(e.table_id)["min_finish_rate"])

    events.subscribe(events.TableChanged, snapshot_sent)
    try:
        reputation.set_minimum(table.pk, owner, 90)
    finally:
        events.unsubscribe(events.TableChanged, snapshot_sent)
    assert sent == [90]  # built after the commit, from a fresh copy
    assert reputation.minimums_of([table.pk]) == {table.pk: 90}
    reputation.set_minimum(table.pk, owner, 0)
    assert snapshots.table_snapshot(table.pk)["min_finish_rate"] == 0


def test_a_moderator_appointed_or_removed_shows_in_the_next_snapshot(owner, django_user_model):
    from games import access, tables

    table = tables.create_table(owner, "巡查")
    tables.sit(table.pk, owner, 0)
    assert snapshots.table_snapshot(table.pk)["moderators"] == []
    roles.add(owner)
    assert snapshots.table_snapshot(table.pk)["moderators"] == [
        {"id": owner.pk, "username": "owner"}]
    assert access.moderator_ids([owner.pk]) == {owner.pk}
    roles.remove(owner)
    assert snapshots.table_snapshot(table.pk)["moderators"] == []
    boss = django_user_model.objects.create_superuser("boss", "boss@example.com", "x")
    assert access.moderator_ids([boss.pk, owner.pk]) == {boss.pk}
