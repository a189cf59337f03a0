"""Arenas (比赛, RULES.md §12 "Arenas"): joining, the queue in fours, the
30-second confirmation, points, standings, the payout, refunds; the ledger's
zero sum throughout (conftest proves it after each test)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Notification, Profile
from contests import arena, arena_pairing, arena_read, arena_run
from contests.models import Arena, ArenaEntry, ArenaSeating
from games import events, play, presence, seatview, snapshots, tables
from games.models import Game, Seat, Table
from moderation.models import AuditEntry
from shop import ledger
from shop.models import CoinEntry
from social import blocks
from tests.helpers import (
    fresh,
    listening,
    make_players,
    play_human_turn,
    refused,
    start_game,
)

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


def here(*users):
    """``users`` are connected (a lobby or /ws/me/ socket heartbeats): the arena seats them."""
    for u in users:
        presence.touch_person(f"test.here!{u.pk}", u)


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
    assert a.pool.is_active is False
    assert a.prize_split == [50, 30, 20]
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
    assert refunds.count() == 4
    assert len({e.transfer_id for e in refunds}) == 1
    # the cancelled arena still says who entered (a tester found "0 players, nobody yet")
    shown = arena_read.detail(Arena.objects.get(pk=a.pk), users[0].pk)
    assert shown["players"] == 3
    assert len(shown["standings"]["rows"]) == 3
    assert shown["me"]["status"] == ArenaEntry.DONE


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
    game = start_game(users[:4])
    why = refused("seated_elsewhere", arena.join, c.pk, users[0])
    assert why.params == {"table_id": game.table_id}  # the page links back to it
    # a waiting seat is given up on joining
    table = tables.create_table(users[4])
    tables.sit(table.pk, users[4], 0)
    d = new_arena(mod, entry_fee=0)
    arena.join(d.pk, users[4])
    assert not Seat.objects.filter(user=users[4]).exists()
    assert coins(users[4]) == 2000  # a free arena takes nothing


def test_an_arena_of_eight_pairs_requeues_pauses_scores_and_pays(mod, django_user_model):
    users = make_players(8, "ar")
    here(*users)
    by_id = {u.pk: u for u in users}
    a = new_arena(mod, house_prize=200)
    for u in users:
        arena.join(a.pk, u)
    blocks.block(users[0], users[1])
    assert begin(a) is True
    assert coins(a.pool) == 8 * FEE + 200
    assert AuditEntry.objects.filter(action=AuditEntry.GRANT, target_user=a.pool).count() == 1

    assert arena_run.pair(a.pk, random.Random(1)) == 2
    seatings = list(ArenaSeating.objects.filter(arena=a).order_by("pk"))
    assert sorted(u for s in seatings for u in s.user_ids) == sorted(by_id)
    for s in seatings:  # the block is honoured where the queue allows
        assert not {users[0].pk, users[1].pk} <= set(s.user_ids)
        table = Table.objects.get(pk=s.table_id)
        assert table.private
        assert table.owner_id == a.pool_id
        assert [Seat.objects.get(table=table, index=i).user_id for i in range(4)] == s.user_ids
    # an outsider cannot sit at an arena table, nor rename it
    outsider = make_players(1, "out")[0]
    first = by_id[seatings[0].user_ids[0]]
    tables.stand(seatings[0].table_id, first)
    refused("arena_table", tables.sit, seatings[0].table_id, outsider, 0)
    tables.sit(seatings[0].table_id, first, 0)
    refused("arena_table", tables.rename, seatings[0].table_id, first, "我的桌")

    # off the lobby, shown under the arena, open to spectators by its link
    from contests import arena_read
    from games import snapshots

    lobby_ids = {row["id"] for row in snapshots.lobby_rows()}
    assert not lobby_ids & {s.table_id for s in seatings}
    shown = arena_read.detail(a, None)["tables"]
    assert [t["table_id"] for t in shown] == [s.table_id for s in seatings]
    assert Client().get(shown[0]["path"]).status_code == 200  # anyone may watch
    assert Client().get(f"/tables/{seatings[0].table_id}/").status_code == 404

    confirm(seatings[0])
    confirm(seatings[1])
    games = [Game.objects.get(table_id=s.table_id) for s in seatings]
    assert ArenaEntry.objects.filter(arena=a, status=ArenaEntry.PLAYING).count() == 8
    # a pause asked during a game takes effect after it
    pauser = by_id[seatings[0].user_ids[1]]
    arena.pause(a.pk, pauser)
    refused("arena_in_game", arena.withdraw, a.pk, pauser)

    # game 0 is played out; in game 1 someone escapes
    g0 = play_out(games[0])
    escaper = by_id[seatings[1].user_ids[2]]
    play.escape(games[1].pk, escaper)
    entries = {e.user_id: e for e in ArenaEntry.objects.filter(arena=a)}
    winner = g0.state["result"]["winner"]
    won = 3 if g0.state["result"]["double_clamp"] else 2
    for seat, uid in enumerate(seatings[0].user_ids):
        assert entries[uid].points == (won if seat % 2 == winner else 0)
        assert entries[uid].games == 1
    for uid in seatings[1].user_ids:
        assert entries[uid].points == 0
        assert entries[uid].games == 0
    assert entries[escaper.pk].status == ArenaEntry.REMOVED
    # out of the arena, and told so (not "you are not in this arena")
    for action in (arena.withdraw, arena.pause, arena.join):
        refused("arena_removed", action, a.pk, escaper)
    assert entries[pauser.pk].status == ArenaEntry.PAUSED
    queued = [u for u, e in entries.items() if e.status == ArenaEntry.QUEUED]
    assert len(queued) == 6
    # everyone left the arena tables
    assert not Seat.objects.filter(table__owner=a.pool, user__isnull=False).exists()
    # and each one's view of the game says why and what comes next (not "sit down again")
    for seat, uid in enumerate(seatings[0].user_ids):
        reason = seatview.view_for(g0, seat)["stood_reason"]
        assert reason["en"] == ("Game over: you are back in the arena's queue."
                                if uid != pauser.pk else
                                "You are paused in this arena: resume on its page to be "
                                "seated again."), (uid, reason)
        assert reason["zh-hans"] != reason["en"]
    assert "stood_reason" not in seatview.view_for(g0, None)

    # next round: four of the six get a table; the other two wait
    assert arena_run.pair(a.pk, random.Random(2)) == 1
    nxt = ArenaSeating.objects.filter(arena=a, done=False).get()
    assert nxt.table_id in {s.table_id for s in seatings}  # a free arena table is reused
    # one does not confirm in 30 s: paused; the others back at the head of the queue
    late = nxt.user_ids[3]
    for uid in nxt.user_ids[:3]:
        tables.set_ready(nxt.table_id, by_id[uid])
    ArenaSeating.objects.filter(pk=nxt.pk).update(confirm_by=timezone.now())
    arena_run.tick()
    entries = {e.user_id: e for e in ArenaEntry.objects.filter(arena=a)}
    assert entries[late].status == ArenaEntry.PAUSED
    assert all(entries[u].status in (ArenaEntry.QUEUED, ArenaEntry.SEATED)
               for u in nxt.user_ids[:3])
    # (the tick already seated again whoever could be: 3 + 2 queued makes one table)
    arena.pause(a.pk, by_id[late], paused=False)

    # time is up: unconfirmed tables let go, then the payout
    Arena.objects.filter(pk=a.pk).update(starts_at=timezone.now() - timedelta(hours=2))
    arena_run.tick()
    a.refresh_from_db()
    assert a.status == Arena.FINISHED
    # a visitor is not asked to log in to join an arena that is over
    assert "arena-standings" in (anon := Client().get(f"/arenas/{a.pk}/").content.decode())
    assert "登录后报名" not in anon
    assert "?next=/arenas/" not in anon
    assert seatview.view_for(g0, 0)["stood_reason"]["en"] == "The arena is over."
    assert coins(a.pool) == 0
    pool = 8 * FEE + 200
    ranked = list(ArenaEntry.objects.filter(arena=a).exclude(status=ArenaEntry.REMOVED)
                  .order_by("place"))
    assert len(ranked) == 7
    assert [e.place for e in ranked] == list(range(1, 8))
    # paid out: nobody is left "paused" or "queued" in a finished arena
    assert {e.status for e in ranked} == {ArenaEntry.DONE}
    assert sum(e.prize for e in ranked) == pool
    # the two winners of game 0 tie on points: they share 1st and 2nd (80 %)
    assert ranked[0].points == ranked[1].points == won
    assert ranked[0].prize + ranked[1].prize == pool * 80 // 100
    assert abs(ranked[0].prize - ranked[1].prize) <= 1
    # the five on 0 points share third place's 20 %, a coin at a time in order
    shares = [e.prize for e in ranked[2:]]
    assert sum(shares) == pool * 20 // 100
    assert max(shares) - min(shares) <= 1
    assert shares == sorted(shares, reverse=True)
    for e in ranked:
        assert coins(e.user) == 2000 - FEE + e.prize
    prize_entries = CoinEntry.objects.filter(reason=ledger.Reason.ARENA_PRIZE)
    assert len({e.transfer_id for e in prize_entries}) == 1
    assert sum(e.amount for e in prize_entries) == 0
    # the finished arena's page: the pool as paid out, the reader's final place and prize
    reader = Client()
    reader.force_login(ranked[0].user)
    page = reader.get(f"/arenas/{a.pk}/").content.decode()
    assert f"奖池已发放 {pool}" in page
    assert "奖池 0" not in page
    assert f"最终名次：第 1 名，奖金 {ranked[0].prize} 金币。" in page
    assert "你已报名。" not in page
    assert reader.get("/api/arenas").json()["recent"][0]["paid_out"] == pool


def test_the_api_and_pages_list_join_and_show_standings(client, mod):
    users = make_players(5, "api")
    a = new_arena(mod, name="擂台API")
    client.force_login(users[0])
    listed = client.get("/api/arenas").json()
    assert [r["id"] for r in listed["upcoming"]] == [a.pk]
    assert listed["upcoming"][0]["starts_in"] > 0
    answer = client.post(f"/api/arenas/{a.pk}/join", HTTP_ACCEPT="application/json").json()
    assert answer["ok"]
    assert answer["arena"]["me"]["status"] == ArenaEntry.QUEUED
    again = client.post(f"/api/arenas/{a.pk}/join", HTTP_ACCEPT="application/json")
    assert again.status_code == 400
    assert again.json()["reason"] == "already_joined"
    for u in users[1:]:
        arena.join(a.pk, u)
    detail = client.get(f"/api/arenas/{a.pk}").json()
    assert detail["players"] == 5
    assert detail["pool"] == 5 * FEE
    assert len(detail["standings"]["rows"]) == 5
    assert "coins" not in detail["standings"]["rows"][0]  # no one's balance
    page = client.get(f"/arenas/{a.pk}/").content.decode()
    assert "擂台API" in page
    assert "arena-standings" in page
    assert "擂台API" in client.get("/").content.decode()  # the lobby's panel
    assert client.get("/arenas/new/").status_code == 404  # not a moderator
    client.force_login(mod)
    assert client.get("/arenas/new/").status_code == 200
    start = (timezone.localtime() + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    made = client.post("/arenas/new/", {"name": "表单", "starts_at": start,
                                        "duration_minutes": 30, "entry_fee": 0, "min_level": 0,
                                        "max_players": 8, "prize_split": "60,40",
                                        "house_prize": 100})
    assert made.status_code == 302
    assert Arena.objects.get(name="表单").prize_split == [60, 40]
    # the start is typed in Beijing time, whatever the site's time zone
    assert "北京时间" in client.get("/arenas/new/").content.decode()
    with timezone.override("UTC"):
        made = client.post("/arenas/new/", {"name": "北京", "starts_at": "2030-01-01T20:00",
                                            "duration_minutes": 30, "entry_fee": 0,
                                            "min_level": 0, "max_players": 8,
                                            "prize_split": "100", "house_prize": 0})
    assert made.status_code == 302
    assert Arena.objects.get(name="北京").starts_at == datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
    # every field's error at once, a start in the past among them
    past = (timezone.localtime() - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    both = client.post("/arenas/new/", {"name": "两错", "starts_at": past,
                                        "duration_minutes": 30, "entry_fee": 0,
                                        "min_level": 0, "max_players": 8,
                                        "prize_split": "60,30", "house_prize": 0})
    assert both.status_code == 200
    assert set(both.context["form"].errors) == {"starts_at", "prize_split"}
    assert not Arena.objects.filter(name="两错").exists()


def test_standings_page_by_fifty_in_constant_queries(mod, django_assert_max_num_queries):
    from contests import arena_read

    a = new_arena(mod, entry_fee=0, max_players=256)
    users = make_players(60, "many")
    now = timezone.now()
    ArenaEntry.objects.bulk_create(ArenaEntry(arena=a, user=u, joined_at=now, queued_at=now,
                                              points=i % 7, games=1, wins=i % 2)
                                   for i, u in enumerate(users))
    with django_assert_max_num_queries(6):
        data = arena_read.detail(a, users[0].pk, page=2)
    assert len(data["standings"]["rows"]) == 10
    assert data["standings"]["pages"] == 2
    first = arena_read.standings(a, 1)["rows"]
    assert [r["points"] for r in first] == sorted((r["points"] for r in first), reverse=True)


def test_pairing_avoids_last_partners_and_blocks_where_it_can():
    rng = random.Random(3)
    # 1 and 2 were partners: a fresh split is chosen
    for _ in range(20):
        (t,) = arena_pairing.plan([1, 2, 3, 4], {1: 2, 2: 1}, set(), rng)
        assert {t[0], t[2]} != {1, 2}
        assert {t[1], t[3]} != {1, 2}
    # a block between 1 and 2 keeps them apart when eight are queued
    for _ in range(20):
        tables_ = arena_pairing.plan(list(range(1, 9)), {}, {frozenset((1, 2))}, rng)
        assert all(not {1, 2} <= set(t) for t in tables_)
    assert arena_run.prizes(100, [50, 30, 20], [3, 3, 0, 0]) == [40, 40, 10, 10]


def _four_seated(mod, prefix, capture):
    users = make_players(4, prefix)
    here(*users)
    a = new_arena(mod, entry_fee=0)
    for u in users:
        arena.join(a.pk, u)
    begin(a)
    with listening(events.UserFrame) as frames, capture(execute=True):
        assert arena_run.pair(a.pk, random.Random(0)) == 1
    seating = ArenaSeating.objects.get(arena=a, done=False)
    table = Table.objects.get(pk=seating.table_id)
    seated = {f.user_id: f.frame for f in frames if f.frame["type"] == "arena_seated"}
    assert set(seated) == {u.pk for u in users}  # each told where to go
    assert {f["path"] for f in seated.values()} == {arena_run.table_path(table)}
    return a, users, seating


def test_a_pause_while_seated_stands_up_and_a_moderators_ending_scores_zero(
        mod, django_capture_on_commit_callbacks):
    from django.db import transaction

    a, users, seating = _four_seated(mod, "mp", django_capture_on_commit_callbacks)
    quitter = users[0]
    arena.pause(a.pk, quitter)
    assert not Seat.objects.filter(user=quitter).exists()
    assert ArenaEntry.objects.get(arena=a, user=quitter).status == ArenaEntry.PAUSED
    for u in users[1:]:  # the other three confirm; the table lapses without the fourth
        tables.set_ready(seating.table_id, u)
    ArenaSeating.objects.filter(pk=seating.pk).update(confirm_by=timezone.now())
    arena_run.lapse(seating.pk)
    statuses = dict(ArenaEntry.objects.filter(arena=a).values_list("user_id", "status"))
    assert statuses == {quitter.pk: ArenaEntry.PAUSED,
                        **{u.pk: ArenaEntry.QUEUED for u in users[1:]}}
    assert not Seat.objects.filter(table_id=seating.table_id, user__isnull=False).exists()
    assert arena_run.pair(a.pk) == 0  # three queued: no table
    arena.pause(a.pk, quitter, paused=False)
    assert arena_run.pair(a.pk) == 1
    again = ArenaSeating.objects.get(arena=a, done=False)
    confirm(again)
    game = Game.objects.get(table_id=again.table_id, status=Game.PLAYING)
    with transaction.atomic():
        play.end_game(game.pk, Game.MODERATOR_CLOSE)
    for e in ArenaEntry.objects.filter(arena=a):
        assert (e.points, e.games, e.status) == (0, 0, ArenaEntry.QUEUED)


def test_a_reseating_at_the_same_table_tells_all_four_anew(
        mod, client, django_capture_on_commit_callbacks):
    """A tester's arena: three confirmed, one lapsed, resumed; the new
    seating reuses the table (same path), so the frame and the arena API
    name the seating: every page (table or arena page) goes to it again."""
    a, users, first = _four_seated(mod, "rs", django_capture_on_commit_callbacks)
    client.force_login(users[1])
    api = f"/api/arenas/{a.pk}"
    assert client.get(api).json()["me"]["seating"] == first.pk
    for u in users[1:]:
        tables.set_ready(first.table_id, u)
    ArenaSeating.objects.filter(pk=first.pk).update(confirm_by=timezone.now())
    arena_run.lapse(first.pk)
    assert client.get(api).json()["me"]["seating"] is None
    arena.pause(a.pk, users[0], paused=False)
    with listening(events.UserFrame) as frames, django_capture_on_commit_callbacks(
            execute=True) as callbacks:
        assert arena_run.pair(a.pk) == 1
        assert frames == []  # nothing before the seating commits
    assert callbacks
    again = ArenaSeating.objects.get(arena=a, done=False)
    assert again.table_id == first.table_id  # the same table, the same path
    seated = {f.user_id: f.frame for f in frames if f.frame["type"] == "arena_seated"}
    assert set(seated) == {u.pk for u in users}  # the three who confirmed too
    assert {(f["seating"], f["path"]) for f in seated.values()} == {
        (again.pk, arena_run.table_path(again.table))}
    me = client.get(api).json()["me"]
    assert (me["status"], me["seating"], me["table"]) == (
        "seated", again.pk, arena_run.table_path(again.table))
    # the inbox keeps the latest "your table is ready" of the arena, not one a seating
    for u in users:
        assert Notification.objects.filter(user=u, kind="arena_seated").count() == 1


def test_a_queued_player_who_plays_elsewhere_is_paused_at_pairing(mod):
    users = make_players(4, "busy")
    here(*users)
    others = make_players(3, "oth")
    a = new_arena(mod, entry_fee=0)
    for u in users:
        arena.join(a.pk, u)
    begin(a)
    start_game([users[2], *others])  # a normal game elsewhere, after joining
    assert arena_run.pair(a.pk) == 0
    statuses = dict(ArenaEntry.objects.filter(arena=a).values_list("user_id", "status"))
    assert statuses[users[2].pk] == ArenaEntry.PAUSED
    assert [statuses[u.pk] for u in (users[0], users[1], users[3])] == [ArenaEntry.QUEUED] * 3
    # the failed table left nothing behind
    assert not ArenaSeating.objects.filter(arena=a).exists()
    assert not Seat.objects.filter(table__owner=a.pool, user__isnull=False).exists()


def test_the_tick_is_a_periodic_job_celery_knows():
    from yuanzi_site.celery import app
    from yuanzi_site.jobs import PERIODIC_JOBS

    dotted = {task for _, task, _ in PERIODIC_JOBS}
    assert "contests.arena_tasks.arena_tick" in dotted
    assert "contests.arena_tasks.arena_tick" in app.tasks


def test_only_the_connected_are_seated_and_a_seated_player_finds_their_seat(
        mod, django_capture_on_commit_callbacks):
    """bob is away at the start: no table of four is formed without him and
    he is not paused for it; once he is back the tick seats all four in
    their seats, the table's snapshot names it an arena table with the
    deadline, and an old table socket of carol's going stale (she is still on
    the lobby) does not stand her up; a paused player is never seated."""
    import time

    bob, carol, dave, eve = make_players(4, "conn")
    a = new_arena(mod, entry_fee=0)
    for u in (bob, carol, dave, eve):
        arena.join(a.pk, u)
    here(carol, dave, eve)
    presence.touch_presence("test.old!carol", 999999, carol, at=time.time() - 3600)
    Arena.objects.filter(pk=a.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    arena_run.tick(random.Random(0))
    assert Arena.objects.get(pk=a.pk).status == Arena.RUNNING
    assert not ArenaSeating.objects.filter(arena=a).exists()  # three connected: no table
    statuses = dict(ArenaEntry.objects.filter(arena=a).values_list("user_id", "status"))
    assert set(statuses.values()) == {ArenaEntry.QUEUED}  # bob is not paused for being away

    here(bob)
    arena_run.tick(random.Random(0))
    seating = ArenaSeating.objects.get(arena=a, done=False)
    seats = dict(Seat.objects.filter(table_id=seating.table_id).values_list("index", "user_id"))
    assert [seats[i] for i in range(4)] == list(seating.user_ids)
    assert sorted(seating.user_ids) == sorted(u.pk for u in (bob, carol, dave, eve))
    snap = snapshots.table_snapshot(seating.table_id)
    assert snap is not None
    assert [s["player"]["id"] for s in snap["seats"]] == list(seating.user_ids)
    keys = snap["arena"]  # type: ignore[typeddict-item]
    assert keys["id"] == a.pk
    assert keys["seated"] == list(seating.user_ids)
    assert keys["confirm_by"] == seating.confirm_by.isoformat()

    with django_capture_on_commit_callbacks(execute=True):
        assert presence.expire_presence() == 1  # carol's old table socket; her lobby one lives
    assert Seat.objects.filter(table_id=seating.table_id, user=carol).exists()

    confirm(seating)
    game = Game.objects.get(table_id=seating.table_id, status=Game.PLAYING)
    assert ArenaSeating.objects.get(pk=seating.pk).game_id == game.pk
    assert snapshots.table_snapshot(seating.table_id)["arena"]["confirm_by"] is None  # type: ignore[index,typeddict-item]

    with_pause = make_players(4, "pz")
    here(*with_pause)
    for u in with_pause:
        arena.join(a.pk, u)
    arena.pause(a.pk, with_pause[0])
    arena_run.tick(random.Random(0))
    assert not ArenaSeating.objects.filter(arena=a, done=False, game=None).exists()
    assert not Seat.objects.filter(user=with_pause[0]).exists()


def test_a_friends_room_is_no_arena_table_and_asks_no_arena_query(mod):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    owner = make_players(1, "room")[0]
    room = tables.create_table(owner, "好友房", True)
    loaded = Table.objects.select_related("owner__profile").get(pk=room.pk)
    with CaptureQueriesContext(connection) as ctx:
        snap = snapshots.table_snapshot(room.pk, loaded)
    assert snap is not None
    assert "arena" not in snap
    assert snap["room_code"]  # a friend's room keeps its code and invite link
    assert not [q for q in ctx.captured_queries if "contests_arena" in q["sql"]]


def test_an_arenas_pool_is_no_person_to_moderators_or_visitors(client, mod):
    """A tester found the pool ``#arena-…`` in /mod/users/, revoked its coins
    and stuck the arena (and the ticker): a house account is not listed,
    has no moderator page and no profile, and no moderator action reaches it."""
    from moderation import actions

    a = new_arena(mod)
    pool = a.pool.username
    assert pool.startswith("#arena-")
    client.force_login(mod)
    found = client.get("/mod/users/", {"q": "arena"})
    assert found.status_code == 200
    assert pool not in found.content.decode()
    assert client.get(f"/mod/users/{quote(pool)}/").status_code == 404
    assert client.get(f"/accounts/profile/{quote(pool)}/").status_code == 404
    refused("no_user", actions.target_user, mod, pool)
