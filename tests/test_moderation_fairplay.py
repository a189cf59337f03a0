"""Fair-play signals: a planted colluding pair in a synthetic
history of rated games is flagged; a random history flags nothing; same-address
pairs are flagged; soft passes are read from the records through the engine.

The history is real: records of games the engine played with its heuristic
bot (a small pool, reused with different people in the seats), stored as the
finisher stores them, with the winner set as the scenario needs.
"""

from __future__ import annotations

import random

import pytest
from django.contrib.auth import get_user_model

from games import engine, tables
from games.models import Game, GameSeat
from moderation import fairplay
from moderation.models import ConnectionAddress, PairSignal

pytestmark = pytest.mark.django_db


def _played(seed: int) -> dict:
    state = engine.new_game(f"fairplay-{seed}")
    rng = random.Random(seed)
    while state["status"] == engine.PLAYING:
        seat = state["turn"]
        state, _ = engine.apply(state, seat, engine.heuristic_policy(engine.view(state, seat),
                                                                       rng))
    return engine.to_record(state)


@pytest.fixture(scope="module")
def pool() -> list[dict]:
    return [_played(seed) for seed in range(24)]


PLAYERS, GAMES = 12, 900


def _history(pool, n_games: int, seed: int, planted: tuple[int, int] | None = None):
    """Rated games among 12 players; with ``planted`` (two player numbers),
    every sixth game those two meet as opponents and the second dumps the game:
    the first's team wins."""
    users = [get_user_model().objects.create_user(username=f"fp{i}") for i in range(PLAYERS)]
    table = tables.create_table(users[0])
    rng = random.Random(seed)
    for g in range(n_games):
        if planted and g % 6 == 0:
            a, b = (users[i] for i in planted)
            rest = rng.sample([u for u in users if u not in (a, b)], 2)
            seated = [a, b, rest[0], rest[1]]  # a at 0 (team 0), b at 1 (team 1)
            winner = 0
        else:
            seated = rng.sample(users, 4)
            winner = rng.randrange(2)
        record = {**rng.choice(pool)}
        record["result"] = {**record["result"], "winner": winner}
        game = Game.objects.create(table=table, state={}, status=Game.OVER, practice=False,
                                   settled=True, end_reason="normal", record=record)
        GameSeat.objects.bulk_create(GameSeat(game=game, index=i, user=u, username=u.username)
                                     for i, u in enumerate(seated))
    return users, table


def test_a_planted_colluding_pair_is_flagged(pool):
    users, _ = _history(pool, GAMES, seed=1, planted=(0, 1))
    flagged = fairplay.compute()
    pair = PairSignal.objects.get(user_a=users[0], user_b=users[1])
    assert pair.games >= 150
    assert pair.as_opponents >= 150
    assert pair.opp_win_rate > 0.8
    assert "opp_win_rate" in pair.flags
    flagged_pairs = [(p.user_a.username, p.user_b.username)
                     for p in PairSignal.objects.exclude(flags=[])]
    assert flagged_pairs == [("fp0", "fp1")]
    assert flagged == 1


@pytest.mark.parametrize("seed", [2, 3, 6])
def test_a_random_history_flags_nothing(pool, seed):
    _history(pool, GAMES, seed=seed)
    assert fairplay.compute() == 0
    assert PairSignal.objects.count() == 66  # every pair of the 12 played together
    assert PairSignal.objects.filter(games__gte=fairplay.MIN_GAMES).exists()


def test_same_address_pairs_are_flagged(pool):
    _users, table = _history(pool, 30, seed=4)
    a, b = (GameSeat.objects.filter(game__table=table).order_by("game_id", "index")
            .values_list("user_id", flat=True)[:2])
    for uid in (a, b):
        fairplay.remember_address(table.pk, get_user_model().objects.get(pk=uid), "10.0.0.7")
    assert not ConnectionAddress.objects.exists()  # a connect writes the cache only
    fairplay.keep_addresses(table.pk, [a, b])  # what the game-end hook does
    assert ConnectionAddress.objects.filter(address_hash=fairplay.address_hash("10.0.0.7"))\
        .count() == 2
    assert "10.0.0.7" not in str(list(ConnectionAddress.objects.values_list("address_hash")))
    fairplay.compute()
    pair = PairSignal.objects.get(user_a_id=min(a, b), user_b_id=max(a, b))
    assert "same_ip" in pair.flags
    assert pair.same_ip_games >= 1


def test_soft_passes_come_from_the_records(pool):
    counts = fairplay.soft_passes(pool[0])
    chances = sum(c for c, _ in counts.values())
    soft = sum(s for _, s in counts.values())
    assert chances > 0
    assert 0 <= soft <= chances
    assert all(engine.team_of(p) != engine.team_of(q) for p, q in counts)


def test_the_console_lists_flags_with_links(pool, django_user_model, client):
    from moderation import roles

    _users, _ = _history(pool, GAMES, seed=1, planted=(0, 1))
    fairplay.compute()
    mod = django_user_model.objects.create_user(username="laoli")
    roles.add(mod)
    client.force_login(mod)
    page = client.get("/mod/flags/").content.decode()
    assert "fp0" in page
    assert "fp1" in page
    assert "/games/" in page
