"""周榜, 每日任务, 成就 (contests.weekly, contests.quests, contests.achievements;
RULES.md §12 "Coin sources", "Rated game"): the week's boundary in Beijing
time, tasks' progress from real finished games and their claim (once, also
under parallel claims on PostgreSQL), achievements from real games and none
from practice games, no reward under 10 rated games, the pages and the JSON."""

from __future__ import annotations

import os
import threading
from collections import Counter
from datetime import datetime, timedelta, timezone

import pytest
from django.core.management import call_command
from django.db import close_old_connections, connection

from accounts import inbox
from accounts.models import Notification, Profile, RatingEntry
from contests import achievements, gamefacts, quests, weekly
from contests.models import Achievement, TaskProgress, WeeklyBadge, WeeklyEntry
from games import engine, play
from games.models import Game
from shop.models import CoinEntry
from tests import helpers
from yuanzi_site.refusals import Refused

pytestmark = pytest.mark.django_db

BJ = timezone(timedelta(hours=8))
ONE_TASK = (("play1", "rated_game", 1, 100),)


def finish(game: Game) -> Game:
    """Play ``game`` to its end, every human turn by the heuristic bot."""
    for _ in range(3000):
        game = helpers.fresh(game)
        if game.status == Game.OVER:
            return game
        if engine.to_act(game.state) is None or game.state["bots"][game.state["turn"]]:
            helpers.force_due(game)
            from games import play
            play.run_due(game.pk)
        else:
            helpers.play_human_turn(game)
    raise AssertionError("no end")


def coins(user) -> int:
    return Profile.objects.get(user=user).coins


@pytest.fixture
def one_task(settings):
    settings.CONTESTS_TASK_POOL = ONE_TASK
    settings.CONTESTS_TASKS_PER_DAY = 1


# --- 周榜 ------------------------------------------------------------------------------


def test_weeks_begin_on_monday_midnight_beijing_time():
    sunday = datetime(2026, 11, 29, 23, 59, tzinfo=BJ)
    monday = datetime(2026, 11, 30, 0, 0, tzinfo=BJ)
    assert weekly.week_of(sunday).isoformat() == "2026-11-23"
    assert weekly.week_of(monday).isoformat() == "2026-11-30"
    start, end = weekly.week_bounds(weekly.week_of(monday))
    assert start == monday
    assert end == monday + timedelta(days=7)


def _entry(user, delta, at, reason=RatingEntry.GAME):
    e = RatingEntry.objects.create(user=user, delta=delta, reason=reason)
    RatingEntry.objects.filter(pk=e.pk).update(created_at=at)


def test_sunday_2359_counts_for_last_week_and_monday_0000_for_this_one():
    a, b, c, d = helpers.make_players(4, "wk")
    sunday = datetime(2026, 11, 29, 23, 59, tzinfo=BJ)
    monday = datetime(2026, 11, 30, 0, 0, tzinfo=BJ)
    _entry(a, 40, sunday)
    _entry(b, 20, sunday)
    _entry(b, -5, sunday, RatingEntry.ESCAPE)  # an escape penalty counts
    _entry(c, 10, sunday - timedelta(days=1))
    _entry(d, 99, sunday, RatingEntry.GEM)     # gems never count
    _entry(c, 30, monday)
    _entry(a, -10, monday + timedelta(hours=1))
    assert weekly.recompute(now=monday + timedelta(hours=2)) == 1
    rows = list(WeeklyEntry.objects.order_by("rank").values_list("user_id", "points"))
    assert rows == [(c.pk, 30)]  # a's -10 is no place on the board
    # the week that closed at Monday 00:00 gave its top three their badges, once
    badges = list(WeeklyBadge.objects.order_by("place").values_list("user_id", "place", "points"))
    assert badges == [(a.pk, 1, 40), (b.pk, 2, 15), (c.pk, 3, 10)]
    assert Notification.objects.filter(kind="weekly_badge").count() == 3
    weekly.recompute(now=monday + timedelta(hours=3))
    assert WeeklyBadge.objects.count() == 3


def test_only_a_week_above_zero_is_ranked_or_badged(client):
    """An escape's penalty alone (-20), or a week that nets 0, is no place on
    the board and earns no badge when the week closes."""
    escaper, even, winner = helpers.make_players(3, "wz")
    now = datetime.now(BJ) - timedelta(seconds=1)
    _entry(escaper, -20, now, RatingEntry.ESCAPE)
    _entry(even, 10, now)
    _entry(even, -10, now)
    _entry(winner, 5, now)
    assert weekly.recompute() == 1
    client.force_login(escaper)
    data = client.get("/api/weekly").json()
    assert data["rows"] == [{"rank": 1, "username": "wz2", "points": 5}]
    assert data["me"] is None
    page = client.get("/weekly/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    ranking = page[page.index('<table class="ranking">'):page.index("</table>")]
    assert "wz2" in ranking
    assert "wz0" not in ranking
    assert "wz1" not in ranking
    assert "You are not on this week" in page
    badges = weekly.close(weekly.week_of(now))
    assert [(b.user_id, b.place, b.points) for b in badges] == [(winner.pk, 1, 5)]
    assert list(Notification.objects.filter(kind="weekly_badge")
                .values_list("user_id", flat=True)) == [winner.pk]


def test_the_weekly_board_is_a_periodic_job_beside_the_all_time_one(settings):
    from yuanzi_site.jobs import PERIODIC_JOBS

    assert ("recompute-weekly", "contests.tasks.recompute_weekly", 60.0) in PERIODIC_JOBS
    assert settings.CELERY_BEAT_SCHEDULE["recompute-weekly"]["task"] == (
        "contests.tasks.recompute_weekly")
    from contests import tasks

    assert tasks.recompute_weekly() == 0


def test_the_weekly_page_and_json_show_the_board_and_your_rank(client, owner):
    others = helpers.make_players(3, "wj")
    now = datetime.now(BJ)
    for i, u in enumerate([owner, *others]):
        _entry(u, 10 * (i + 1), now - timedelta(seconds=1))
    weekly.recompute()
    client.force_login(owner)
    data = client.get("/api/weekly").json()
    assert [r["username"] for r in data["rows"]] == ["wj2", "wj1", "wj0", "owner"]
    assert data["me"] == {"rank": 4, "username": "owner", "points": 10}
    page = client.get("/weekly/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "周榜" in page
    assert "wj2" in page
    english = client.get("/weekly/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Weekly board" in english


def test_the_weekly_board_takes_a_fixed_number_of_queries(client, owner,
                                                         django_assert_max_num_queries):
    users = helpers.make_players(150, "many")
    now = datetime.now(BJ) - timedelta(seconds=1)
    RatingEntry.objects.bulk_create(
        [RatingEntry(user=u, delta=i, reason=RatingEntry.GAME) for i, u in enumerate(users)])
    RatingEntry.objects.update(created_at=now)
    weekly.recompute()
    client.force_login(owner)
    # session, user, the middleware's sanction check; top 100, own row
    with django_assert_max_num_queries(5):
        data = client.get("/api/weekly").json()
    assert len(data["rows"]) == 50
    assert data["rows"][0]["points"] == 149
    assert data["me"] is None
    assert data["next"] == "/api/weekly?page=2"
    with django_assert_max_num_queries(5):
        second = client.get(data["next"]).json()
    assert [r["rank"] for r in second["rows"]] == list(range(51, 101))
    assert second["next"] is None  # the board is the top 100
    page = client.get("/weekly/?page=2").content.decode()
    assert "many50" in page  # rank 100 (points 50)
    assert "many49" not in page


# --- 每日任务 ------------------------------------------------------------------------


def test_a_day_draws_three_tasks_deterministically():
    day = quests.today()
    first = quests.assigned(7, day)
    assert len(first) == 3
    assert first == quests.assigned(7, day)
    codes = {c for c, *_ in quests.pool()}
    assert {t.code for t in first} <= codes
    # another day or player draws from the same pool, not always the same three
    draws = {tuple(t.code for t in quests.assigned(u, day - timedelta(days=d)))
             for u in range(5) for d in range(5)}
    assert len(draws) > 1


def test_a_rated_game_counts_and_the_claim_pays_once(one_task, client):
    users = helpers.make_players(4, "tq")
    game = finish(helpers.start_game(users))
    assert game.end_reason == "normal"
    for u in users:
        row = TaskProgress.objects.get(user=u, code="play1")
        assert row.progress == 1
        assert row.claimed_at is None
    # new accounts may not claim yet: told how many rated games are needed, not "claim"
    assert not Notification.objects.filter(kind="task_done").exists()
    locked = Notification.objects.filter(kind="task_done_locked")
    assert locked.count() == 4
    assert locked.first().params == {"reward": 100, "needed": 10, "rated": 1}
    said = inbox.render("task_done_locked", locked.first().params)
    assert "大厅" not in said, said
    assert "10 局积分对局" in said, said
    me = users[0]
    client.force_login(me)
    status = client.get("/api/tasks").json()
    (task,) = status["tasks"]
    assert task["text"] == "完成 1 局积分对局"
    assert task == {"id": "play1", "fact": "rated_game", "text": task["text"], "target": 1,
                    "progress": 1, "reward": 100, "done": True, "claimed": False}
    assert status["eligible"] is False
    assert status["rated_games"] == 1
    # fewer than 10 rated games: no reward (RULES.md §12)
    before = coins(me)
    refused = client.post("/api/tasks/play1/claim", HTTP_ACCEPT="application/json")
    assert refused.status_code == 400
    assert refused.json()["reason"] == "reward_locked"
    assert coins(me) == before
    Profile.objects.filter(user=me).update(rated_games=10, counted_games=10)
    ok = client.post("/api/tasks/play1/claim", HTTP_ACCEPT="application/json").json()
    assert ok["ok"] is True
    assert ok["task"]["claimed"] is True
    assert coins(me) == before + 100
    again = client.post("/api/tasks/play1/claim", HTTP_ACCEPT="application/json")
    assert again.json()["reason"] == "task_claimed"
    assert client.post("/api/tasks/nope/claim").json()["reason"] == "task_unknown"
    assert CoinEntry.objects.filter(user=me, reason=CoinEntry.Reason.TASK).count() == 1
    call_command("check_ledger")


def test_task_words_take_the_count_s_plural_form_in_english():
    from django.utils import translation
    one, three = quests.Task("t1", "first_out", 1, 10), quests.Task("t3", "atom", 3, 10)
    with translation.override("en"):
        assert quests.task_dict(one, 0, False)["text"] == "Go out first (上游) 1 time"
        assert quests.task_dict(three, 0, False)["text"] == "Play 3 atoms (原子)"
        assert quests.task_dict(quests.Task("f", "friend_game", 1, 10), 0, False)["text"] == \
            "Play 1 rated game with a friend"
    with translation.override("zh-hans"):
        assert quests.task_dict(one, 0, False)["text"] == "拿到上游 1 次"
        assert quests.task_dict(three, 0, False)["text"] == "打出 3 个原子"


def test_a_task_not_done_is_refused_and_other_parts_count_facts(settings):
    settings.CONTESTS_TASK_POOL = (("challenge", "challenge", 2, 50),)
    settings.CONTESTS_TASKS_PER_DAY = 1
    (u,) = helpers.make_players(1, "ch")
    Profile.objects.filter(user=u).update(rated_games=10, counted_games=10)
    with pytest.raises(Refused) as e:
        quests.claim(u.pk, "challenge")
    assert e.value.reason == "task_not_done"
    from django.db import transaction
    with transaction.atomic():
        assert quests.count(u.pk, "challenge") == []
    with transaction.atomic():
        assert quests.count(u.pk, "challenge") == ["challenge"]
        assert quests.count(u.pk, "challenge") == []  # capped at the target
    assert TaskProgress.objects.get(user=u).progress == 2
    with transaction.atomic():
        quests.claim(u.pk, "challenge")
    assert CoinEntry.objects.get(user=u, reason="task").amount == 50


def test_a_friend_at_the_table_and_an_item_used_count_from_a_real_game(settings):
    from django.db import transaction

    from shop import items, ledger, purchase
    from shop.models import InventorySlot
    from social import friends

    settings.CONTESTS_TASK_POOL = (("friend", "friend_game", 1, 100), ("item", "item_game", 1, 80))
    settings.CONTESTS_TASKS_PER_DAY = 2
    users = helpers.make_players(4, "fi")
    friends.request(users[0], users[2])
    friends.accept(users[2], users[0])
    price = purchase.Item.objects.get(code="card_counter").price
    with transaction.atomic():
        ledger.credit(users[1], price, ledger.Reason.GRANT)
    purchase.buy(users[1], "card_counter", 1, price)
    slot = InventorySlot.objects.get(user=users[1], item__code="card_counter").slot
    game = helpers.start_game(users)
    items.use(users[1], slot, "card_counter", "k1", table_id=game.table_id)
    finish(game)
    done = set(TaskProgress.objects.filter(progress=1).values_list("user_id", "code"))
    assert done == {(users[0].pk, "friend"), (users[2].pk, "friend"), (users[1].pk, "item")}


def test_an_escape_counts_for_the_three_who_stay_not_the_escaper(one_task):
    from games import play

    users = helpers.make_players(4, "esc")
    game = helpers.start_game(users)
    play.escape(game.pk, users[1])
    assert helpers.fresh(game).end_reason == "escape"
    done = set(TaskProgress.objects.filter(progress=1).values_list("user_id", flat=True))
    assert done == {users[0].pk, users[2].pk, users[3].pk}


def test_a_practice_game_counts_nothing(one_task):
    (human,) = helpers.make_players(1, "pr")
    game = finish(helpers.start_game([human], bots=(1, 2, 3)))
    assert game.practice
    assert not TaskProgress.objects.exists()
    assert not Achievement.objects.exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not os.environ.get("DATABASE_URL"),
                    reason="needs PostgreSQL (DATABASE_URL): SQLite serialises every writer, "
                           "so parallel claims prove nothing there")
def test_parallel_claims_pay_once(one_task):
    assert connection.vendor == "postgresql"
    users = helpers.make_players(4, "par")
    finish(helpers.start_game(users))
    me = users[0]
    Profile.objects.filter(user=me).update(rated_games=10, counted_games=10)
    before = coins(me)
    results: list[str] = []
    barrier = threading.Barrier(8)

    def one() -> None:
        try:
            barrier.wait()
            quests.claim(me.pk, "play1")
            results.append("ok")
        except Refused as e:
            results.append(e.reason)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert Counter(results) == {"ok": 1, "task_claimed": 7}
    assert coins(me) == before + 100
    assert CoinEntry.objects.filter(user=me, reason="task").count() == 1
    call_command("check_ledger")


# --- 成就 -----------------------------------------------------------------------------


def _expected_firsts(game: Game) -> dict[int, set[str]]:
    """The "first …" achievements the game's record and result earn each player."""
    seats = {r.index: r.user_id for r in game.seats.all()}
    out: dict[int, set[str]] = {uid: set() for uid in seats.values()}
    result = game.record["result"]
    for seat, uid in seats.items():
        if result["winner"] == engine.team_of(seat):
            out[uid].add("first_win")
            if result["double_clamp"]:
                out[uid].add("first_double_clamp")
    for half in game.record["halves"]:
        for seat, cards in half["actions"]:
            play = engine.classify(cards, half["dao"]) if cards else None
            if play is not None and play.kind == "atom":
                out[seats[seat]].add("first_atom")
            if play is not None and play.kind == "hydrogen":
                out[seats[seat]].add("first_hydrogen")
    for ev in game.events.values_list("events", flat=True):
        for e in ev:
            if e["type"] == "jiefeng":
                out[seats[e["to"]]].add("first_jiefeng")
    return out


def test_achievements_from_a_real_game_unpaid_under_ten_rated_games():
    users = helpers.make_players(4, "ach")
    game = finish(helpers.start_game(users))
    expected = _expected_firsts(game)
    assert any(expected.values())
    for u in users:
        got = set(Achievement.objects.filter(user=u).values_list("code", flat=True))
        firsts = {c for c in got if c.startswith("first_")}
        assert firsts == expected[u.pk]
        assert not Achievement.objects.filter(user=u, paid=True).exists()
        notes = Notification.objects.filter(user=u, kind__startswith="achievement_")
        assert notes.count() == len(got)
    assert not CoinEntry.objects.filter(reason=CoinEntry.Reason.ACHIEVEMENT).exists()


def test_the_tenth_rated_game_pays_what_was_earned_before(client):
    users = helpers.make_players(4, "ten")
    Profile.objects.filter(user__in=users).update(rated_games=9, counted_games=9)
    (early,) = helpers.make_players(1, "early")
    game = finish(helpers.start_game(users))
    assert Achievement.objects.filter(user__in=users).exists()
    for u in users:
        earned = Achievement.objects.filter(user=u)
        assert not earned.filter(paid=False).exists()
        paid = sum(CoinEntry.objects.filter(user=u, reason="achievement")
                   .values_list("amount", flat=True))
        assert paid == sum(a.reward for a in earned)
    winners = [r.user_id for r in game.seats.all()
               if engine.team_of(r.index) == game.record["result"]["winner"]]
    assert all(Achievement.objects.filter(user_id=w, code="first_win").exists() for w in winners)
    # granted by another part (the challenge), an account under 10: kept unpaid
    assert achievements.grant(early.pk, "challenge_top10") is True
    assert achievements.grant(early.pk, "challenge_top10") is False
    assert not Achievement.objects.get(user=early).paid
    call_command("check_ledger")
    # an unpaid reward reads as pending on the profile, a paid one as coins
    page = client.get(f"/accounts/profile/{early.username}/",
                      HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "paid after 10 rated games" in page
    assert "+200 coins" not in page
    assert client.get(f"/api/users/{early.username}/achievements").json()[
        "achievements"][0]["paid"] is False
    # the profile page and the JSON show them (a winner's: first_win pays coins,
    # whichever team the deal favoured)
    name = next(u.username for u in users if u.pk == winners[0])
    page = client.get(f"/accounts/profile/{name}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert 'id="achievements"' in page
    assert "成就" in page
    assert "满 10 局积分对局后发放" not in page
    assert " 金币</span>" in page  # paid: "+N 金币"
    data = client.get(f"/api/users/{name}/achievements").json()
    assert {a["code"] for a in data["achievements"]} == set(
        Achievement.objects.filter(user_id=winners[0]).values_list("code", flat=True))
    assert client.get("/api/users/nobody/achievements").status_code == 404


def test_levels_and_the_hundredth_game_and_a_check_in_streak():
    from django.db import transaction

    from shop.models import CheckIn

    (u,) = helpers.make_players(1, "lv")
    with transaction.atomic():
        achievements.award(u.pk, achievements.earned_by_facts(["win"], 100, 250), {}, True)
    codes = set(Achievement.objects.filter(user=u).values_list("code", flat=True))
    assert codes == {"first_win", "games_100", "level_1", "level_2", "level_3"}
    assert sum(CoinEntry.objects.filter(user=u).exclude(reason="signup")
               .values_list("amount", flat=True)) == sum(achievements.reward_of(c) for c in codes)
    today = quests.today()
    for i in range(7):
        CheckIn.objects.create(user=u, day=today - timedelta(days=6 - i), streak=i + 1)
    assert achievements.grant_checkin_streaks() == 1
    assert achievements.grant_checkin_streaks() == 0
    assert Achievement.objects.filter(user=u, code="checkin_7").exists()


def test_facts_of_a_moderator_ending_count_nothing():
    users = helpers.make_players(4, "mc")
    game = helpers.start_game(users)
    from games.plugins import GameEnd
    end = GameEnd(game=game, reason="moderator_close", result=game.state["result"] or {},
                  seats=list(game.seats.all()), record={})
    assert gamefacts.facts_of(end) == {}


# --- the lobby panel ----------------------------------------------------------------


def test_a_done_task_under_ten_rated_games_shows_a_disabled_claim_with_the_reason(
        one_task, client, owner):
    TaskProgress.objects.create(user=owner, day=quests.today(), code="play1", progress=1)
    client.force_login(owner)
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'class="small primary claim-btn" disabled' in page
    assert "after 10 rated games" in page
    Profile.objects.filter(user=owner).update(rated_games=10, counted_games=10)
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert 'class="small primary claim-btn">' in page
    assert "局积分对局后可领取" not in page


def test_the_lobby_shows_todays_tasks_with_a_claim_button(one_task, client, owner):
    client.force_login(owner)
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert 'id="daily-tasks"' in page
    assert 'data-task="play1"' in page
    assert "每日任务" in page
    assert "contests/tasks.js" in page
    assert client.get("/api/tasks").json()["tasks"][0]["progress"] == 0
    assert client.logout() is None
    assert client.get("/api/tasks").status_code == 401
    assert 'id="daily-tasks"' not in client.get("/").content.decode()
    assert inbox.render("task_done", {"reward": 100})


def test_a_game_a_moderator_ended_is_rated_but_counts_toward_no_threshold():
    """RULES.md §12: thresholds ("10 rated games") use rated games that ended
    normally or by an escape. A tester's three moderator-ended games counted
    toward the tasks' 10 (the lobby said "you have 5"; 2 had ended so)."""
    users = helpers.make_players(4, "modend")
    Profile.objects.filter(user__in=users).update(rated_games=9, counted_games=9)
    game = helpers.start_game(users)
    play.end_game(game.pk, Game.MODERATOR_CLOSE)
    me = users[0]
    profile = Profile.objects.get(user=me)
    assert (profile.rated_games, profile.counted_games) == (10, 9)
    got = quests.status(me.pk)
    assert (got["rated_games"], got["eligible"]) == (9, False)
    assert not Achievement.objects.filter(user=me, paid=True).exists()
