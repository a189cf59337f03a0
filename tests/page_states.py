"""Finished games put in place for the browser tests of the result's sentences
(tests/test_browser_page.py), run in the site's own process through
``manage.py shell -c``: the engine plays a known seed to its end with the
heuristic bot on every seat, and that state replaces the table's current game.

Seeds (found by playing them out): ``s0`` a double clamp by going out (§6 A),
``s1`` a double clamp under 60, ``s3`` a two-half game (§6).
"""

from __future__ import annotations

import random

from games import engine

SEEDS = {"clamp_out": "s0", "clamp_under": "s1", "two_halves": "s3"}


def played(seed: str, moves: int | None = None) -> dict:
    """The game of ``seed`` after ``moves`` heuristic moves (``None``: to the end)."""
    state = engine.new_game(seed, levels=[0, 0, 0, 0])
    rng = random.Random(seed)
    n = 0
    while state["status"] == engine.PLAYING and (moves is None or n < moves):
        seat = state["turn"]
        state, _ = engine.apply(state, seat, engine.heuristic_policy(engine.view(state, seat), rng))
        n += 1
    return state


def install(table_id: int, kind: str) -> None:
    """Replace table ``table_id``'s current game by a finished one of ``kind``
    (a key of :data:`SEEDS`, ``"escape"``: seat 1 left after 12 moves, or
    ``"moderator_close"``: a moderator closed the table after 12), and
    tell the table's clients."""
    from games import events
    from games.models import Game, Table

    if kind == "escape":
        state = engine.abandon(played("s3", 12), "escape", 1)[0]
    elif kind == "moderator_close":
        state = engine.abandon(played("s3", 12), "moderator_close")[0]
    else:
        state = played(SEEDS[kind])
    table = Table.objects.get(pk=table_id)
    Game.objects.filter(pk=table.current_game_id).update(
        state=state, seq=state["seq"], status=Game.OVER, due_at=None, settled=True)
    Table.objects.filter(pk=table_id).update(status=Table.WAITING)
    assert state["result"]["double_clamp"] == kind.startswith("clamp")
    events.publish(events.TableChanged(table_id))


def saved_replay(prefix: str, played_as: str, renamed_to: str) -> str:
    """A rated game played to its end through the services at a table named
    ``played_as`` (four new users ``{prefix}0``–``{prefix}3``, the heuristic
    move on every turn), the table renamed to ``renamed_to`` afterwards, and
    the game saved in ``{prefix}2``'s replay library (South). Returns the
    replay's share token (tests/test_browser_replay.py)."""
    import secrets

    from games import tables
    from shop.models import Replay
    from tests import helpers

    users = helpers.make_players(4, prefix)
    table = tables.create_table(users[0], played_as)
    for i, u in enumerate(users):
        tables.sit(table.pk, u, i)
    for u in users:
        tables.set_ready(table.pk, u)
    game = table.games.get()
    while helpers.fresh(game).status != game.OVER:
        helpers.play_human_turn(game)
    tables.rename(table.pk, users[0], renamed_to)
    token = secrets.token_urlsafe(32)
    Replay.objects.create(user=users[2], game=game, token=token)
    return token


def finished_practice(username: str, policy: str = "normal") -> int:
    """A practice game of ``username`` (an account signed up in the browser) with
    three ``policy`` bots, played to its end through the services: the person
    plays the heuristic move, the bots move when due (the site's own ticker may
    beat this loop to a bot's move: acting is idempotent; a person's turn is
    long, so it never acts for them). Returns the game's id
    (tests/test_browser_review.py)."""
    from django.contrib.auth import get_user_model

    from games import play, tables
    from games.models import Game
    from tests import helpers

    user = get_user_model().objects.get(username=username)
    game = Game.objects.get(pk=tables.practice(user, policy).current_game_id)
    while helpers.fresh(game).status != Game.OVER:
        game = helpers.fresh(game)
        seat = game.state["turn"]
        if seat == 0:
            helpers.play_human_turn(game)  # the ticker never acts for a person here
        else:
            helpers.force_due(game)
            play.run_due(game.pk)
    return game.pk


def closed_board(username: str) -> str:
    """Today's daily challenge board 1 of ``username``, played to its end with
    the heuristic move in seat 2, then the day closed (as at 00:30): returns
    the day's page path (tests/test_browser_review.py). The day's bot is made
    the normal one first: the master's three seats take minutes of a shared CPU."""
    from django.contrib.auth import get_user_model

    from contests import challenge, challenge_close, challenge_play
    from contests.models import ChallengeBoard, ChallengeDay
    from games.engine.bots import heuristic_policy

    user = get_user_model().objects.get(username=username)
    ChallengeDay.objects.filter(pk=challenge.today().pk).update(bot_policy="normal")
    board = challenge_play.start(user)
    while board.status != ChallengeBoard.DONE:
        action = heuristic_policy(engine.view(board.state, 2), random.Random(0))
        board = challenge_play.act(board.pk, user, board.state["seq"], action)
    challenge_close.close_day(board.day_id)
    return f"/challenge/{board.day.date.isoformat()}/"


# --- the README's social hall and contests shots (docs/screenshot.py) ------------


def befriend(username: str, *others: str) -> None:
    """``username`` and each of ``others`` made friends through the services (a
    request, accepted); an other who has no account yet gets one (no password:
    never logged in, so always offline)."""
    from django.contrib.auth import get_user_model

    from social import friends

    user_model = get_user_model()
    me = user_model.objects.get(username=username)
    for name in others:
        other = user_model.objects.filter(username=name).first() or \
            user_model.objects.create_user(username=name)
        friends.request(me, other)
        friends.accept(other, me)


def reputable_profile(username: str, avatar: str = "panda") -> None:
    """``username``'s profile made to look played in: ``avatar``, 42 rated
    games (one of them an escape: 完成率 98 %), a rating and a few
    achievements (granted through ``contests.achievements``)."""
    from django.contrib.auth import get_user_model

    from accounts.models import Profile
    from contests import achievements

    user = get_user_model().objects.get(username=username)
    record = "1" * 20 + "0" + "1" * 21
    Profile.objects.filter(user=user).update(
        avatar=avatar, rating_points=128, games_played=46, rated_games=42, games_won=23,
        rated_wins=21, double_clamps=3, finish_record=record,
        finish_rate=round(100 * record.count("1") / len(record)), counted_games=len(record))
    for code in ("first_win", "first_atom", "first_double_clamp", "first_jiefeng",
                 "level_1", "level_2", "checkin_7"):
        achievements.grant(user.pk, code)


def challenge_field(names: tuple[str, ...]) -> str:
    """Today's daily challenge played by ``names`` (new accounts, ranked: 10
    rated games each), all 8 boards but the last two (5 and 3 boards), raw
    scores that make a spread table. Returns the day's date (ISO)."""
    from django.contrib.auth import get_user_model

    from accounts.models import Profile
    from contests import challenge
    from contests.models import ChallengeBoard, ChallengeEntry

    user_model = get_user_model()
    players = [user_model.objects.create_user(username=n) for n in names]
    Profile.objects.filter(user__in=players).update(rated_games=10, counted_games=10)
    day = challenge.today()
    rng = random.Random(7)
    for i, user in enumerate(players):
        entry = ChallengeEntry.objects.create(day=day, user=user, ranked=True)
        boards = {len(players) - 1: 3, len(players) - 2: 5}.get(i, 8)
        for number in range(1, boards + 1):
            seed = challenge.board_seed(day.server_seed, day.date, number)
            ChallengeBoard.objects.create(
                entry=entry, day=day, user=user, number=number, status="done",
                state={"seed": seed, "halves": []}, raw=rng.choice(range(-60, 260, 10)))
    return day.date.isoformat()


def running_arena(names: tuple[str, ...]) -> int:
    """A free arena (begun 20 minutes ago, an hour long, a house prize of 500)
    with ``names`` (new accounts) entered, begun by the tick's start, the
    queue paired and confirmed (their games running), and points as after a
    few rounds. Returns the arena's id."""
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from contests import arena, arena_run
    from contests.models import Arena, ArenaEntry, ArenaSeating
    from games import tables
    from moderation import roles

    user_model = get_user_model()
    mod = user_model.objects.create_user(username="擂台管理员")
    roles.add(mod)
    found = arena.create(mod, arena.ArenaSpec(
        name="周三晚擂台", starts_at=timezone.now() + timedelta(minutes=5),
        duration_minutes=60, house_prize=500))
    players = [user_model.objects.create_user(username=n) for n in names]
    for user in players:
        arena.join(found.pk, user)
    Arena.objects.filter(pk=found.pk).update(starts_at=timezone.now() - timedelta(minutes=20))
    arena_run.start(found.pk)
    arena_run.pair(found.pk, random.Random(3))
    for seating in ArenaSeating.objects.filter(arena=found):  # every table confirmed: playing
        for user_id in seating.user_ids:
            tables.set_ready(seating.table_id, user_model.objects.get(pk=user_id))
    rng = random.Random(5)
    for entry in ArenaEntry.objects.filter(arena=found):
        games = rng.randint(2, 4)
        wins = rng.randint(0, games)
        ArenaEntry.objects.filter(pk=entry.pk).update(
            games=games, wins=wins, points=wins * 2 + rng.randint(0, wins))
    return found.pk


def rating_history(username: str) -> None:
    """``tests.test_history.seed_history``'s 60 games for ``username``, its few
    rating movements replaced by 40 over five weeks (a climb through 助科 and
    副科 with setbacks), the profile's points their sum."""
    from datetime import timedelta

    from django.contrib.auth import get_user_model

    from accounts.models import Profile, RatingEntry
    from tests.test_history import T0, seed_history

    seed_history(username)
    me = get_user_model().objects.get(username=username)
    RatingEntry.objects.filter(user=me).delete()
    rng = random.Random(11)
    total = 0
    for i in range(40):
        delta = rng.choice((10, 10, 15, 20, -10, -5, -15)) if total > 20 else 15
        total += delta
        e = RatingEntry.objects.create(user=me, delta=delta, reason=RatingEntry.GAME)
        RatingEntry.objects.filter(pk=e.pk).update(created_at=T0 + timedelta(hours=21 * i))
    Profile.objects.filter(user=me).update(rating_points=total)
