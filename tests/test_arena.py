"""Arenas (比赛, RULES.md §12 "Arenas"): joining, the queue in fours, the
30-second confirmation, points, standings, the payout, refunds; the ledger's
zero sum throughout (conftest proves it after each test)."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import Profile
from contests import arena, arena_pairing, arena_run
from contests.models import Arena, ArenaEntry, ArenaSeating
from games import play, tables
from games.models import Game, Seat, Table
from moderation.models import AuditEntry
from shop import ledger
from shop.models import CoinEntry
from social import blocks
from tests.helpers import fresh, make_players, play_human_turn, refused, start_game

pytestmark = pytest.mark.django_db

FEE = 100


def give(users, coins=1000):
    """Coins for each of ``users`` (an audited-style grant through the ledger)."""
    from django.db import transaction

    with transaction.atomic():
        for u in users:
            ledger.credit(u, coins, ledger.Reason.GRANT)


def new_arena(mod, **kw):
    spec = arena.ArenaSpec(name=kw.pop("name", "周三擂台"),
                           starts_at=kw.pop("starts_at", timezone.now() + timedelta(minutes=5)),
                           duration_minutes=kw.pop("duration_minutes", 60),
                           entry_fee=kw.pop("entry_fee", FEE), **kw)
    return arena.create(mod, spec)


def begin(a):
    """Make ``a`` due and run the tick's start."""
    Arena.objects.filter(pk=a.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    return arena_run.start(a.pk)


def coins(user):
    return Profile.objects.get(user=user).coins


def confirm(seating):
    for uid in seating.user_ids:
        user = Profile.objects.get(user_id=uid).user
        tables.set_ready(seating.table_id, user)


def play_out(game):
    while fresh(game).status == Game.PLAYING:
        play_human_turn(game)
    return fresh(game)


def test_only_a_holder_of_the_permission_creates_an_arena(mod, outsider):
    refused("arena_forbidden", new_arena, outsider)
    a = new_arena(mod, house_prize=50)
    assert a.pool.is_active is False and a.prize_split == [50, 30, 20]
    refused("bad_arena", lambda: new_arena(mod, duration_minutes=10))
    refused("bad_arena", lambda: new_arena(mod, prize_split=(60, 30)))


def test_fewer_than_four_entrants_refunds_every_entry(mod):
    users = make_players(3, "few")
    a = new_arena(mod, house_prize=500)
    for u in users:
        arena.join(a.pk, u)
    assert [coins(u) for u in users] == [1900] * 3
    assert coins(a.pool) == 300
    assert begin(a) is False
    assert [coins(u) for u in users] == [2000] * 3
    assert coins(a.pool) == 0  # and no house prize
    assert Arena.objects.get(pk=a.pk).status == Arena.CANCELLED
    refunds = CoinEntry.objects.filter(reason=ledger.Reason.ARENA_REFUND)
    assert refunds.count() == 4 and len({e.transfer_id for e in refunds}) == 1


def test_withdrawing_before_the_start_refunds_and_after_does_not(mod):
    users = make_players(4, "wd")
    a = new_arena(mod)
    for u in users:
        arena.join(a.pk, u)
    refused("already_joined", arena.join, a.pk, users[0])
    assert arena.withdraw(a.pk, users[0]) == FEE
    assert coins(users[0]) == 2000
    arena.join(a.pk, users[0])
    assert begin(a) is True
    assert arena.withdraw(a.pk, users[1]) == 0
    assert coins(users[1]) == 1900
    assert ArenaEntry.objects.get(arena=a, user=users[1]).status == ArenaEntry.WITHDRAWN


def test_join_refusals_level_coins_and_a_running_game_elsewhere(mod):
    users = make_players(5, "ref")
    a = new_arena(mod, min_level=1)
    refused("arena_level", arena.join, a.pk, users[0])
    b = new_arena(mod, entry_fee=5000)
    refused("not_enough_coins", arena.join, b.pk, users[0])
    c = new_arena(mod)
    start_game(users[:4])
    refused("seated_elsewhere", arena.join, c.pk, users[0])
    # a waiting seat is given up on joining
    table = tables.create_table(users[4])
    tables.sit(table.pk, users[4], 0)
    d = new_arena(mod, entry_fee=0)
    arena.join(d.pk, users[4])
    assert not Seat.objects.filter(user=users[4]).exists()
    assert coins(users[4]) == 2000  # a free arena takes nothing
