"""Bot levels at the site: a bot seat's level is stored with the
game and in its §11 record; bots and 托管 move through ``play.run_due`` with the
policy of their level (托管: the master in a practice game, the expert in a rated
one), decided from ``bot_view`` outside the row lock and applied with the seq
check (RULES.md §12), after a natural pause drawn from the game's randomness;
a practice game against three bots runs to its end and changes no rating (§7)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from accounts.models import Profile, RatingEntry
from games import engine, play, seatview, tables
from games.models import Game, GameEvent, GameSeat, Seat, Table
from tests.helpers import force_due, fresh, make_players, seat_row
from yuanzi_site.refusals import Refused

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_clock(settings):
    settings.GAMES_SCHEDULER = "none"
    settings.GAMES_BOT_BUDGET_MS = 5


def _practice(levels=("beginner", "normal", "expert")) -> Game:
    (human,) = make_players(1, prefix="h")
    table = tables.create_table(human)
    tables.sit(table.pk, human, 0)
    for seat, level in enumerate(levels, start=1):
        tables.add_bot(table.pk, human, seat, level)
    tables.set_ready(table.pk, human)
    return Game.objects.get(table=table)


def test_bot_levels_are_kept_with_the_game_and_its_record():
    game = _practice()
    assert [seat_row(game, s).bot for s in range(4)] == ["", "beginner", "normal", "expert"]
    assert game.state["bots"] == [None, "beginner", "normal", "expert"]
    play.end_game(game.pk, "moderator_close")
    assert fresh(game).record["bots"] == [None, "beginner", "normal", "expert"]


def test_an_unknown_bot_level_is_refused(owner):
    table = tables.create_table(owner)
    with pytest.raises(Refused) as refused:
        tables.add_bot(table.pk, owner, 1, "grandmaster")
    assert refused.value.reason == "bad_bot"
    assert not table.seats.filter(is_bot=True).exists()


def _drive_to_a_bot_turn(game: Game) -> Game:
    while engine.to_act(fresh(game).state) == 0:  # the human: a timeout plays for them
        game = fresh(game)
        force_due(game)
        play.run_due(game.pk, game.seq)
    return fresh(game)


@pytest.mark.parametrize("rounds", [6])
def test_each_bot_plays_its_own_level_from_its_bot_view(rounds):
    game = _practice()
    for _ in range(rounds):
        game = _drive_to_a_bot_turn(game)
        if game.status != Game.PLAYING:
            break
        seat = game.state["turn"]
        policy = seat_row(game, seat).bot
        rng = random.Random(f"{game.state['seed']}:{game.seq}")
        view = engine.bot_view(game.state, seat)
        expected = (engine.expert_policy(view, rng, budget_ms=5) if policy == "expert"
                    else engine.POLICIES[policy](view, rng))
        force_due(game)
        assert play.run_due(game.pk, game.seq) is True
        event = GameEvent.objects.get(game=game, seq=game.seq + 1)
        assert (event.seat, event.by) == (seat, "bot")
        assert event.action.get("cards", []) == expected.get("cards", [])


def test_auto_play_seats_play_the_expert_and_a_stale_seq_acts_for_nobody():
    users = make_players(4, prefix="a")
    table = tables.create_table(users[0])
    for i, u in enumerate(users):
        tables.sit(table.pk, u, i)
    for u in users:
        tables.set_ready(table.pk, u)
    game = Game.objects.get(table=table)
    seat = game.state["turn"]
    play.set_auto_play(game.pk, seat_row(game, seat).user, True)
    game = fresh(game)
    assert play.bot_policy_of(seat_row(game, seat)) == "expert"
    force_due(game)
    assert play.run_due(game.pk, game.seq + 5) is False  # not at that seq: nothing acts
    rng = random.Random(f"{game.state['seed']}:{game.seq}")
    expected = engine.expert_policy(engine.bot_view(game.state, seat), rng, budget_ms=5)
    assert play.run_due(game.pk, game.seq) is True
    event = GameEvent.objects.get(game=game, seq=game.seq + 1)
    assert (event.seat, event.by, event.action.get("cards", [])) == (
        seat, "auto", expected.get("cards", []))


def test_a_master_seat_plays_the_master_from_its_bot_view():
    game = _practice(("master", "master", "master"))
    assert game.state["bots"] == [None, "master", "master", "master"]
    for _ in range(3):
        game = _drive_to_a_bot_turn(game)
        seat = game.state["turn"]
        rng = random.Random(f"{game.state['seed']}:{game.seq}")
        expected = engine.master_policy(engine.bot_view(game.state, seat), rng)
        force_due(game)
        assert play.run_due(game.pk, game.seq) is True
        event = GameEvent.objects.get(game=game, seq=game.seq + 1)
        assert (event.seat, event.by) == (seat, "bot")
        assert event.action.get("cards", []) == expected.get("cards", [])


def test_auto_play_in_a_practice_game_plays_the_master():
    """托管 plays 大师 where nothing is rated, 高手 in rated games (the test above)."""
    game = _practice(("beginner", "beginner", "beginner"))
    human = seat_row(game, 0).user
    play.set_auto_play(game.pk, human, True)
    game = fresh(game)
    assert game.practice
    assert play.bot_policy_of(seat_row(game, 0), game.practice) == "master"
    assert play.bot_policy_of(seat_row(game, 0), False) == "expert"
    while fresh(game).state["turn"] != 0:
        game = fresh(game)
        force_due(game)
        play.run_due(game.pk, game.seq)
    game = fresh(game)
    rng = random.Random(f"{game.state['seed']}:{game.seq}")
    expected = engine.master_policy(engine.bot_view(game.state, 0), rng)
    force_due(game)
    assert play.run_due(game.pk, game.seq) is True
    event = GameEvent.objects.get(game=game, seq=game.seq + 1)
    assert (event.seat, event.by, event.action.get("cards", [])) == (
        0, "auto", expected.get("cards", []))


def _play_with_bots(table, human, seat: int, rng: random.Random) -> Game:
    """Drive a game with bots: the human plays via games.play, bots via sweep_due."""
    for _ in range(5000):
        game = Game.objects.get(pk=Table.objects.get(pk=table.pk).current_game_id)
        if game.status == Game.OVER:
            return game
        if game.state["turn"] == seat:
            action = engine.heuristic_policy(seatview.view_for(game, seat), rng)
            play.act(game.pk, human, game.seq, action)
        else:
            assert play.sweep_due() == 1
    raise AssertionError("the game did not end")


def test_practice_game_with_three_bots_runs_to_the_end(table, owner, settings):
    settings.GAMES_BOT_DELAY_SECONDS = 0  # every bot turn is due at once
    tables.sit(table.pk, owner, 0)
    for i in (1, 2, 3):
        tables.add_bot(table.pk, owner, i)
    game = tables.set_ready(table.pk, owner)
    assert game.practice
    assert game.state["practice"]
    assert [r.is_bot for r in GameSeat.objects.filter(game=game)] == [False, True, True, True]
    game = _play_with_bots(table, owner, 0, random.Random(3))
    assert game.settled
    assert game.state["result"]["rating_changes"] == [0, 0, 0, 0]
    profile = Profile.objects.get(user=owner)
    assert profile.rating_points == 0
    assert profile.games_played == 1
    assert not RatingEntry.objects.exists()
    bots = GameEvent.objects.filter(game=game, by="bot").count()
    assert bots
    assert bots + GameEvent.objects.filter(game=game, by="player").count() == game.seq
    # the table is free again; the owner, with no connection open, was stood up
    assert Table.objects.get(pk=table.pk).status == Table.WAITING
    assert Seat.objects.get(table=table, index=0).user is None
    tables.sit(table.pk, owner, 0)
    assert tables.set_ready(table.pk, owner).practice


def test_a_bots_pause_is_natural_and_drawn_from_the_games_randomness(settings, time_machine):
    """0.5–1.5 × GAMES_BOT_DELAY_SECONDS (0.5–1.5 s by default), the same for the
    same game and seq, different from move to move. Time is frozen: the bot is
    due exactly its pause after the last action, and moves once that has passed."""
    time_machine.move_to(datetime(2026, 3, 1, 12, 0, tzinfo=UTC), tick=False)
    settings.GAMES_BOT_DELAY_SECONDS = 1.0
    game = _practice()
    game = _drive_to_a_bot_turn(game)
    seen = set()
    for _ in range(6):
        game = fresh(game)
        if game.status != Game.PLAYING:
            break
        if engine.to_act(game.state) == 0:
            game = _drive_to_a_bot_turn(game)
            continue
        pause = play.bot_pause(game.state, game.seq)
        assert 0.5 <= pause <= 1.5
        assert pause == play.bot_pause(game.state, game.seq)
        assert game.due_at == timezone.now() + timedelta(seconds=pause)
        seen.add(round(pause, 6))
        time_machine.shift(timedelta(seconds=pause) - timedelta(microseconds=1))
        assert play.run_due(game.pk, game.seq) is False  # not a microsecond early
        time_machine.shift(timedelta(microseconds=1))
        assert play.run_due(game.pk, game.seq) is True
    assert len(seen) >= 3
    state = {"seed": "x"}
    pauses = [play.bot_pause(state, seq) for seq in range(200)]
    assert 0.5 <= min(pauses) < 0.6
    assert 1.4 < max(pauses) <= 1.5


def test_bot_decisions_run_off_the_event_loop():
    """The embedded ticker runs its jobs (the due-turn sweep, so every bot
    decision of ``play.run_due``) through ``database_sync_to_async``: in a worker
    thread, never on the event loop that serves the sockets (production runs them
    in a Celery worker)."""
    import asyncio
    import threading

    from games.adapters.scheduler import Ticker
    from yuanzi_site.jobs import SWEEP_JOB

    seen = []

    def probe():
        try:
            asyncio.get_running_loop()
            on_loop = True
        except RuntimeError:
            on_loop = False
        seen.append((threading.get_ident(), on_loop))

    ticker = Ticker(interval=0.01)
    jobs = {name: task for name, task, _every in ticker.jobs}
    assert jobs[SWEEP_JOB].name == "games.tasks.sweep_due"  # the sweep is one of its jobs
    ticker.jobs = [("probe", probe, 0.0)]  # run like it, without games to act on
    ticker._next = {"probe": 0.0}

    async def main():
        loop_thread = threading.get_ident()
        ticker.start(asyncio.get_running_loop())
        for _ in range(500):
            await asyncio.sleep(0.01)
            if seen:
                break
        ticker.stop()
        return loop_thread

    loop_thread = asyncio.run(main())
    assert seen
    assert all(not on_loop and ident != loop_thread for ident, on_loop in seen)
