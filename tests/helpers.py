"""Helpers shared by the games tests: players, a started game, forcing a turn due."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from accounts.models import Profile
from games import engine, events, play, tables
from games.models import Game, GameEvent, GameSeat
from games.plugins import GamePlugin
from yuanzi_site.refusals import Refused


def make_players(n: int = 4, prefix: str = "player", rating_points: int = 0) -> list:
    """``n`` new users named ``{prefix}{i}``, their profiles at ``rating_points``.

    No password (hashing one costs a second each): log them in with ``force_login``.
    """
    User = get_user_model()
    users = [
        User.objects.create_user(username=f"{prefix}{i}", email=f"{prefix}{i}@example.com")
        for i in range(n)
    ]
    if rating_points:
        Profile.objects.filter(user__in=users).update(rating_points=rating_points)
    return users


def start_game(users: list, bots: Iterable[int] = ()) -> Game:
    """Seat ``users`` (in seat order, skipping the ``bots`` seats, which the first
    user, the table's owner, fills with bots), make everyone ready: the game starts.
    """
    bots = set(bots)
    owner = users[0]
    table = tables.create_table(owner)
    humans = iter(users)
    seated = []
    for index in range(4):
        if index in bots:
            continue
        user = next(humans)
        tables.sit(table.pk, user, index)
        seated.append(user)
    for index in sorted(bots):
        tables.add_bot(table.pk, owner, index)
    for user in seated:
        tables.set_ready(table.pk, user)
    return Game.objects.get(table=table)


def refused(reason: str, fn: Callable[..., object], *args: object) -> Refused:
    """Call ``fn(*args)``, which must raise :class:`Refused` with ``reason``;
    return the refusal."""
    with pytest.raises(Refused) as refusal:
        fn(*args)
    assert refusal.value.reason == reason, f"refused with {refusal.value.reason!r}, not {reason!r}"
    return refusal.value


def fresh(game: Game) -> Game:
    """The game as the database has it now."""
    return Game.objects.get(pk=game.pk)


def force_due(game: Game, seconds_ago: float = 1.0) -> None:
    """Make the current turn due now, with an UPDATE (nothing frozen)."""
    Game.objects.filter(pk=game.pk).update(
        due_at=timezone.now() - timedelta(seconds=seconds_ago)
    )


def seat_row(game: Game, seat: int) -> GameSeat:
    """The game's seat row as stored now (托管 flag, clock losses, player)."""
    return GameSeat.objects.get(game_id=game.pk, index=seat)


def user_at(game: Game, seat: int):
    """The user playing ``seat``."""
    return get_user_model().objects.get(pk=seat_row(game, seat).user_id)


def heuristic_action(state: dict, seat: int, seed: int = 0) -> dict:
    """What the heuristic bot would do for ``seat`` in ``state``."""
    return engine.heuristic_policy(engine.view(state, seat), random.Random(seed))


def play_human_turn(game: Game) -> Game:
    """The seat to act plays the heuristic move itself, through ``play.act``."""
    game = fresh(game)
    seat = game.state["turn"]
    return play.act(game.pk, user_at(game, seat), game.seq,
                        heuristic_action(game.state, seat, game.seq))


def last_event(game: Game) -> GameEvent:
    """The game's latest event."""
    return GameEvent.objects.filter(game_id=game.pk).order_by("-seq").first()


def state_in_second_half(levels=(0, 0, 0, 0), bots=(False,) * 4, first_seed: int = 0) -> dict:
    """An engine state in the second half, reached by heuristic play (seeds whose
    first half ended in a double clamp are skipped)."""
    for seed in range(first_seed, first_seed + 200):
        state = engine.new_game(f"second-half-{seed}", list(levels), list(bots))
        rng = random.Random(seed)
        while state["status"] == engine.PLAYING and state["half"] == 1:
            seat = state["turn"]
            state, _ = engine.apply(state, seat,
                                    engine.heuristic_policy(engine.view(state, seat), rng))
        if state["status"] == engine.PLAYING:
            assert state["half"] == 2
            return state
    raise AssertionError("no seed reached a second half")


def wait_for(predicate: Callable[[], object], timeout: float, interval: float = 0.1,
             message: str = "condition"):
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {message}")
        time.sleep(interval)


def make_plugin(**parts) -> GamePlugin:
    """A ``GamePlugin`` for one test: each keyword names a hook and gives its
    function without ``self`` (``on_game_end=ends.append``), or a class
    attribute (``lobby_keys=("x",)``); install it with the ``plug`` fixture."""
    body = {name: (staticmethod(fn) if callable(fn) else fn) for name, fn in parts.items()}
    return type("TestPlugin", (GamePlugin,), body)()


@contextmanager
def listening(kind: type) -> Iterator[list]:
    """Every ``games.events`` event of type ``kind`` published (after commit)
    while the block runs, in order."""
    heard: list = []
    events.subscribe(kind, heard.append)
    try:
        yield heard
    finally:
        events.unsubscribe(kind, heard.append)


def cheap_reviews(settings) -> None:
    """复盘 settings for tests (pytest-django's ``settings``): few sampled deals,
    the normal bot's play-outs, no runner (a test runs the worker's step), a
    site-wide queue of 20."""
    settings.GAMES_REVIEW_SAMPLES = 2
    settings.GAMES_REVIEW_BUDGET = 0
    settings.GAMES_REVIEW_WIDTH = 2
    settings.GAMES_REVIEW_PLAYOUT = "normal"
    settings.GAMES_REVIEW_RUNNER = "none"  # the tests run the worker's step themselves
    settings.GAMES_REVIEW_QUEUE_MAX = 20
