"""Departures: 托管 (auto-play) and escape (RULES.md §7–§8, DESIGN.md "Time, bots,
departures"), through ``games.play`` and ``games.tables`` and, for the reconnect, through the real
ASGI application's websocket.

Turns are made due with an UPDATE of ``Game.due_at``; ``play.run_due`` is
called directly (no worker).
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.db import connections, transaction
from django.test import Client
from django.utils import timezone

from accounts.models import Profile, RatingEntry
from games import engine, play, presence, seatview, tables
from games.models import Game, GameEvent, GameSeat, Seat, Table
from tests.helpers import (
    force_due,
    fresh,
    last_event,
    make_players,
    play_human_turn,
    seat_row,
    start_game,
    state_in_second_half,
    user_at,
)
from yuanzi_site.refusals import Refused


@pytest.fixture(autouse=True)
def _clock(settings):
    settings.GAMES_TURN_SECONDS = 30
    settings.GAMES_BOT_DELAY_SECONDS = 1.0
    settings.GAMES_SCHEDULER = "ticker"  # nothing published: the tests call run_due


def time_out(game: Game, seat: int) -> Game:
    """The others play until it is ``seat``'s turn; then ``seat``'s clock runs out."""
    while fresh(game).state["turn"] != seat:
        play_human_turn(game)
    game = fresh(game)
    force_due(game)
    assert play.run_due(game.pk, game.seq) is True
    assert last_event(game).seat == seat
    return fresh(game)


# --- 托管 --------------------------------------------------------------------------


@pytest.mark.django_db
def test_two_timeouts_in_a_row_put_the_seat_on_auto_play():
    game = start_game(make_players())
    seat = game.state["turn"]

    game = time_out(game, seat)
    assert last_event(game).by == "clock"
    assert seat_row(game, seat).timeouts == 1
    assert seat_row(game, seat).auto_play is False

    game = time_out(game, seat)
    assert last_event(game).by == "clock"
    assert seat_row(game, seat).auto_play is True
    # the others played themselves
    assert sum(r.auto_play for r in GameSeat.objects.filter(game=game)) == 1
    assert seatview.view_for(game, seat)["players"][seat]["auto_play"] is True
    assert seatview.view_for(game, None)["players"][seat]["auto_play"] is True
    # why it is on, so a page opened later says so too
    assert seatview.view_for(game, seat)["players"][seat]["auto_by_clock"] is True
    user = seat_row(game, seat).user
    game = play.set_auto_play(game.pk, user, False)
    assert seatview.view_for(game, seat)["players"][seat]["auto_by_clock"] is False
    game = play.set_auto_play(game.pk, user, True)  # by their own choice now
    assert seatview.view_for(game, seat)["players"][seat]["auto_play"] is True
    assert seatview.view_for(game, seat)["players"][seat]["auto_by_clock"] is False


@pytest.mark.django_db
def test_a_human_move_resets_the_timeout_counter():
    game = start_game(make_players())
    seat = game.state["turn"]
    game = time_out(game, seat)
    assert seat_row(game, seat).timeouts == 1

    while fresh(game).state["turn"] != seat:
        play_human_turn(game)
    game = play_human_turn(game)  # the seat plays itself
    assert last_event(game).by == "player"
    assert seat_row(fresh(game), seat).timeouts == 0

    game = time_out(game, seat)  # one more clock loss is not two in a row
    assert seat_row(game, seat).timeouts == 1
    assert seat_row(game, seat).auto_play is False


@pytest.mark.django_db
def test_auto_play_seat_is_played_by_the_expert_bot_after_the_short_pause(settings):
    settings.GAMES_BOT_DELAY_SECONDS = 3.0
    game = start_game(make_players())
    seat = game.state["turn"]
    user = user_at(game, seat)

    game = play.set_auto_play(game.pk, user, True)
    assert seat_row(game, seat).auto_play is True
    assert seat_row(game, seat).timeouts == 0
    # its turn now waits the bot's pause, not the 30 s clock
    pause = (game.due_at - timezone.now()).total_seconds()
    drawn = play.bot_pause(game.state, game.seq)  # 0.5–1.5 × the setting, from the seed
    assert 1.5 <= drawn <= 4.5
    assert drawn - 1.0 < pause <= drawn
    assert play.run_due(game.pk, game.seq) is False  # not before the pause is over

    force_due(game)
    before = fresh(game)
    expected = engine.expert_policy(  # 托管 plays the expert, from what the seat may know
        engine.bot_view(before.state, seat), random.Random(f"{before.state['seed']}:{before.seq}"),
        budget_ms=settings.GAMES_BOT_BUDGET_MS,
    )
    assert play.run_due(game.pk, game.seq) is True
    event = last_event(game)
    assert (event.seat, event.by) == (seat, "auto")
    assert event.action == expected

    # still 托管 at its next turn: the pause again, and "auto" again
    while fresh(game).state["turn"] != seat:
        play_human_turn(game)
    game = fresh(game)
    assert (game.due_at - timezone.now()).total_seconds() <= 4.5  # 1.5 × the setting
    force_due(game)
    assert play.run_due(game.pk, game.seq) is True
    assert last_event(game).by == "auto"


@pytest.mark.django_db
def test_auto_play_off_on_request_gives_the_turn_clock_back(settings):
    game = start_game(make_players())
    seat = game.state["turn"]
    user = user_at(game, seat)
    game = time_out(game, seat)
    game = time_out(game, seat)
    assert seat_row(game, seat).auto_play is True

    while fresh(game).state["turn"] != seat:
        play_human_turn(game)
    assert (fresh(game).due_at - timezone.now()).total_seconds() <= 1.5  # the pause: 0.5–1.5 × 1 s

    game = play.set_auto_play(game.pk, user, False)
    assert seat_row(game, seat).auto_play is False
    assert seat_row(game, seat).timeouts == 0
    left = (game.due_at - timezone.now()).total_seconds()
    assert 25 < left <= settings.GAMES_TURN_SECONDS  # a human's clock again
    assert play.run_due(game.pk, game.seq) is False
    game = play_human_turn(game)
    assert last_event(game).by == "player"


@pytest.mark.django_db
def test_auto_play_is_refused_to_non_players_and_after_the_game(outsider):
    game = start_game(make_players())
    with pytest.raises(Refused) as e:
        play.set_auto_play(game.pk, outsider, True)
    assert e.value.reason == "not_seated"
    play.escape(game.pk, user_at(game, 0))
    with pytest.raises(Refused) as e:
        play.set_auto_play(game.pk, user_at(game, 1), True)
    assert e.value.reason == "game_over"


# --- 托管 across a reconnect, through the websocket --------------------------------


def _cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    name = django_settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}".encode()


async def _connect(table_id: int, cookie: bytes) -> WebsocketCommunicator:
    from yuanzi_site.asgi import application

    comm = WebsocketCommunicator(
        application, f"/ws/table/{table_id}/",
        headers=[(b"origin", b"http://localhost"), (b"cookie", cookie)],
    )
    connected, _ = await comm.connect()
    assert connected
    return comm


async def _receive_game(comm: WebsocketCommunicator, check, timeout: float = 5.0) -> dict:
    """The next ``game`` message whose view passes ``check`` (others are skipped)."""
    async def loop():
        while True:
            msg = await comm.receive_json_from(timeout=timeout)
            if msg["type"] == "game" and check(msg["view"]):
                return msg["view"]

    return await asyncio.wait_for(loop(), timeout)


@pytest.mark.django_db(transaction=True)
async def test_auto_play_stays_on_across_a_reconnect_and_goes_off_by_socket(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                   "LOCATION": f"departures-{uuid.uuid4()}"}}

    def setup():
        game = start_game(make_players())
        seat = game.state["turn"]
        return game, seat, _cookie(user_at(game, seat))

    game, seat, cookie = await database_sync_to_async(setup)()

    comm = await _connect(game.table_id, cookie)
    view = await _receive_game(comm, lambda v: True)
    assert view["players"][seat]["auto_play"] is False
    await comm.disconnect()  # the player's connection is gone…

    def lose_two_turns():  # …and the clock plays their turns twice: 托管
        time_out(game, seat)
        return seat_row(time_out(game, seat), seat).auto_play

    assert await database_sync_to_async(lose_two_turns)() is True

    comm = await _connect(game.table_id, cookie)  # reconnect
    try:
        view = await _receive_game(comm, lambda v: True)
        assert view["players"][seat]["auto_play"] is True  # still on

        await comm.send_json_to({"type": "auto_play", "on": False})
        view = await _receive_game(comm, lambda v: v["players"][seat]["auto_play"] is False)
        assert view["players"][seat]["auto_play"] is False
    finally:
        await comm.disconnect()
    row = await database_sync_to_async(seat_row)(game, seat)
    assert row.auto_play is False
    assert row.timeouts == 0
    # the consumers' and our worker thread's connection: closed, or the test DB stays busy
    await database_sync_to_async(connections.close_all)()


# --- escape ---------------------------------------------------------------------------


def _points(users) -> list[int]:
    return [Profile.objects.get(user=u).rating_points for u in users]


def _escape_and_check(game: Game, seat: int, penalty: int, start_points: int) -> None:
    users = [user_at(game, s) for s in range(4)]
    before = _points(users)
    assert before == [start_points] * 4

    game = play.escape(game.pk, users[seat])

    assert game.status == Game.OVER
    assert game.settled
    result = game.state["result"]
    assert result["abandoned_by"] == seat
    assert result["winner"] is None
    expected = [p - (penalty if s == seat else 0) for s, p in enumerate(before)]
    assert _points(users) == expected  # only the escaper pays
    entry = RatingEntry.objects.get(game=game)  # one row, the escaper's
    assert (entry.user_id, entry.delta, entry.reason) == (users[seat].pk, -penalty,
                                                           RatingEntry.ESCAPE)
    assert last_event(game).action == {"type": "escape"}
    table = Table.objects.get(pk=game.table_id)
    assert table.status == Table.WAITING


@pytest.mark.django_db
def test_escape_at_level_0_in_the_first_half_costs_20():
    game = start_game(make_players())
    assert game.state["half"] == 1
    assert game.state["stake"] == 1
    _escape_and_check(game, 2, penalty=20, start_points=0)


def _into_second_half(game: Game, levels) -> Game:
    state = state_in_second_half(levels=levels)
    assert state["status"] == engine.PLAYING
    assert state["half"] == 2
    Game.objects.filter(pk=game.pk).update(state=state, seq=state["seq"])
    return fresh(game)


@pytest.mark.django_db
def test_escape_at_level_0_in_the_second_half_costs_10():
    game = _into_second_half(start_game(make_players()), levels=[0, 0, 0, 0])
    _escape_and_check(game, 1, penalty=10, start_points=0)


@pytest.mark.django_db
def test_escape_at_level_4_costs_twice_the_stake_in_either_half():
    game = start_game(make_players(prefix="a", rating_points=600))
    assert [r.level for r in GameSeat.objects.filter(game=game)] == [4] * 4
    assert game.state["stake"] == 40
    _escape_and_check(game, 0, penalty=80, start_points=600)

    game = start_game(make_players(prefix="b", rating_points=600))
    game = _into_second_half(game, levels=[4, 4, 4, 4])
    _escape_and_check(game, 3, penalty=80, start_points=600)


@pytest.mark.django_db
def test_escape_changes_points_and_ledger_in_one_transaction():
    """Rolled back with the escape, the rating entry and the profile change go too."""
    game = start_game(make_players(rating_points=600))
    escaper = user_at(game, 1)

    class Rollback(Exception):
        pass

    # the block is one transaction, rolled back by the raise at its end
    with pytest.raises(Rollback), transaction.atomic():  # noqa: PT012
        play.escape(game.pk, escaper)
        assert Profile.objects.get(user=escaper).rating_points == 520
        assert RatingEntry.objects.filter(game=game).count() == 1
        raise Rollback

    assert Profile.objects.get(user=escaper).rating_points == 600
    assert not RatingEntry.objects.exists()
    game = fresh(game)
    assert game.status == Game.PLAYING
    assert not game.settled
    assert game.seq == 0
    assert Table.objects.get(pk=game.table_id).status == Table.PLAYING
    assert Seat.objects.filter(table_id=game.table_id, user__isnull=False).count() == 4


@pytest.mark.django_db
def test_leaving_a_practice_game_changes_no_points():
    users = make_players(2, rating_points=600)
    game = start_game(users, bots=(1, 3))
    assert game.practice
    assert game.state["practice"]
    escaper = users[1]
    game = play.escape(game.pk, escaper)
    assert game.status == Game.OVER
    assert game.state["result"]["rating_changes"] == [0, 0, 0, 0]
    assert _points(users) == [600, 600]
    assert not RatingEntry.objects.exists()
    assert Table.objects.get(pk=game.table_id).status == Table.WAITING
    seats = {s.index: s for s in Seat.objects.filter(table_id=game.table_id)}
    assert seats[1].is_bot
    assert seats[3].is_bot
    assert seats[2].user_id is None  # the escaper is stood up


def _presence(game: Game, user, seconds_ago: float) -> None:
    presence.touch_presence(f"test!{uuid.uuid4()}", game.table_id, user,
                            at=time.time() - seconds_ago)


@pytest.mark.django_db
def test_escaper_and_the_gone_are_stood_up_and_the_table_waits(settings):
    game = start_game(make_players())
    users = [user_at(game, s) for s in range(4)]
    _presence(game, users[0], 1)  # the escaper, still connected
    _presence(game, users[1], 1)  # online
    _presence(game, users[2], settings.GAMES_PRESENCE_TTL_SECONDS + 5)  # heartbeat stopped
    # users[3]: no connection at all

    play.escape(game.pk, users[0])

    table = Table.objects.get(pk=game.table_id)
    assert table.status == Table.WAITING
    seats = {s.index: s for s in Seat.objects.filter(table=table)}
    assert seats[0].user_id is None  # the escaper
    assert seats[1].user_id == users[1].pk
    assert seats[1].ready is False
    assert seats[2].user_id is None
    assert seats[3].user_id is None
    # the three left at the table can start again without the escaper
    tables.sit(table.pk, users[0], 2)


def _one_move_from_the_end(levels) -> tuple[dict, int, dict]:
    """A state one heuristic move before the game ends, that seat and its move."""
    for seed in range(200):
        state = engine.new_game(f"near-end-{seed}", list(levels))
        rng = random.Random(seed)
        while True:
            seat = state["turn"]
            action = engine.heuristic_policy(engine.view(state, seat), rng)
            after, _ = engine.apply(state, seat, action)
            if after["status"] == engine.OVER:
                return state, seat, action
            state = after
    raise AssertionError("unreachable")


@pytest.mark.django_db
def test_at_a_normal_game_end_the_gone_are_stood_up():
    game = start_game(make_players())
    users = [user_at(game, s) for s in range(4)]
    state, seat, action = _one_move_from_the_end([0, 0, 0, 0])
    Game.objects.filter(pk=game.pk).update(state=state, seq=state["seq"])
    for s in (0, 1, 2):
        _presence(game, users[s], 1)  # users[3] is gone

    game = play.act(game.pk, users[seat], state["seq"], action)

    assert game.status == Game.OVER
    assert game.state["result"]["abandoned_by"] is None
    seats = {s.index: s for s in Seat.objects.filter(table_id=game.table_id)}
    assert [seats[i].user_id for i in range(4)] == [users[0].pk, users[1].pk, users[2].pk, None]
    assert not any(s.ready for s in seats.values())
    assert Table.objects.get(pk=game.table_id).status == Table.WAITING
    assert GameEvent.objects.filter(game=game, by="player").count() == 1


@pytest.mark.django_db
def test_toggling_auto_play_does_not_buy_a_new_turn_clock(settings):
    """取消托管 on one's own turn gives back what is left of that turn's 30 s, not a
    fresh 30 s: switching 托管 on and off again and again must not stall the game."""
    game = start_game(make_players())
    seat = game.state["turn"]
    user = user_at(game, seat)
    # 29 of the first turn's 30 s have gone
    Game.objects.filter(pk=game.pk).update(
        started_at=timezone.now() - timedelta(seconds=29),
        due_at=timezone.now() + timedelta(seconds=1),
    )
    turn_deadline = fresh(game).started_at + timedelta(seconds=settings.GAMES_TURN_SECONDS)

    for _ in range(3):
        play.set_auto_play(game.pk, user, True)
        game = play.set_auto_play(game.pk, user, False)
        assert game.due_at <= turn_deadline + timedelta(milliseconds=50)

    # later turns: the turn starts with the action before it
    game = time_out(game, seat)  # the clock ran out: a single for them
    while fresh(game).state["turn"] != seat:
        play_human_turn(game)
    GameEvent.objects.filter(game=game, seq=fresh(game).seq).update(
        created_at=timezone.now() - timedelta(seconds=20)
    )
    Game.objects.filter(pk=game.pk).update(due_at=timezone.now() + timedelta(seconds=10))
    play.set_auto_play(game.pk, user, True)
    game = play.set_auto_play(game.pk, user, False)
    left = (game.due_at - timezone.now()).total_seconds()
    assert left <= 10.05
