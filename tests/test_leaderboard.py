"""The leaderboard and the gem cap (RULES.md §9).

``accounts.leaderboard.recompute`` builds the ranking in bulk; the page reads it
in a bounded number of queries; beat runs the recompute every minute through the
real worker (the last test, which skips without ``DATABASE_URL``/``REDIS_URL``).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import leaderboard
from accounts.models import GemCap, LeaderboardEntry, Profile
from tests.helpers import wait_for

pytestmark = pytest.mark.django_db


def players(n: int, prefix: str = "r", points=lambda i: 1000 - i, won=lambda i: 0,
            played: int = 1) -> list:
    """``n`` users (joined one minute apart, oldest first) with their profiles set."""
    User = get_user_model()
    start = timezone.now() - timedelta(days=30)
    users = User.objects.bulk_create(
        User(username=f"{prefix}{i:03}", date_joined=start + timedelta(minutes=i))
        for i in range(n)
    )
    Profile.objects.bulk_create(
        Profile(user=u, rating_points=points(i), games_won=won(i), rated_wins=won(i),
                games_played=played, rated_games=played)
        for i, u in enumerate(users)
    )
    return users


def ranking() -> list[str]:
    return list(LeaderboardEntry.objects.order_by("rank").values_list("user__username",
                                                                        flat=True))


def test_order_is_points_then_rated_wins_then_the_older_account():
    # r000 oldest … r004 newest
    players(5, points=lambda i: [100, 200, 100, 100, 100][i], won=lambda i: [3, 0, 3, 5, 3][i])
    assert leaderboard.recompute() == 5
    # 200 first; among the 100s: 5 wins, then the 3-win players by join date
    assert ranking() == ["r001", "r003", "r000", "r002", "r004"]
    rows = list(LeaderboardEntry.objects.order_by("rank"))
    assert [r.rank for r in rows] == [1, 2, 3, 4, 5]
    assert [r.rating_points for r in rows] == [200, 100, 100, 100, 100]


def test_negative_points_rank_below_zero():
    players(3, points=lambda i: [-20, 0, 5][i])
    leaderboard.recompute()
    assert ranking() == ["r002", "r001", "r000"]


def test_players_without_a_finished_game_are_not_ranked():
    players(2, prefix="played", played=1)
    players(2, prefix="new", played=0, points=lambda i: 5000)
    assert leaderboard.recompute() == 2
    assert ranking() == ["played000", "played001"]


def test_practice_games_alone_do_not_rank_a_player():
    """Games against bots are practice (RULES.md §7): they count as played but
    put nobody on the board."""
    rated = players(1, prefix="rated")
    practice = players(1, prefix="practice", played=0)
    Profile.objects.filter(user=practice[0]).update(games_played=5, rating_points=10_000)
    assert leaderboard.recompute() == 1
    assert ranking() == [rated[0].username]


def test_recompute_replaces_the_old_ranking():
    users = players(3)
    leaderboard.recompute()
    Profile.objects.filter(user=users[2]).update(rating_points=9999)
    Profile.objects.filter(user=users[0]).update(games_played=0, rated_games=0)
    leaderboard.recompute()
    assert ranking() == ["r002", "r001"]


def test_gem_cap_is_the_100th_place_points_with_100_ranked():
    players(150, points=lambda i: 10_000 - 7 * i)
    assert leaderboard.recompute() == 150
    hundredth = LeaderboardEntry.objects.get(rank=100)
    assert hundredth.rating_points == 10_000 - 7 * 99
    assert GemCap.objects.get(pk=1).points == hundredth.rating_points
    assert leaderboard.gem_cap() == hundredth.rating_points


def test_gem_cap_exactly_100_ranked():
    players(100, points=lambda i: 500 - i)
    leaderboard.recompute()
    assert leaderboard.gem_cap() == 401


def test_no_gem_cap_below_100_ranked():
    players(99)
    assert leaderboard.recompute() == 99
    assert GemCap.objects.get(pk=1).points is None
    assert leaderboard.gem_cap() is None


def test_moderators_override_wins():
    players(120)
    leaderboard.recompute()
    GemCap.objects.filter(pk=1).update(override=12345)
    assert leaderboard.gem_cap() == 12345
    leaderboard.recompute()  # a recompute keeps the override
    assert leaderboard.gem_cap() == 12345


def test_no_gem_cap_before_any_recompute():
    assert leaderboard.gem_cap() is None


# --- the page ----------------------------------------------------------------------------


def _page_queries(client) -> tuple[object, int]:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get("/leaderboard/")
    assert response.status_code == 200
    return response, len(ctx.captured_queries)


def test_page_shows_the_top_100_only_and_my_rank(client, django_assert_max_num_queries):
    users = players(150)
    leaderboard.recompute()
    me = users[119]  # rank 120: not on the page's table, but told their rank
    client.force_login(me)

    with django_assert_max_num_queries(8):
        response = client.get("/leaderboard/")
    assert response.status_code == 200
    rows = response.context["rows"]
    assert [r.rank for r in rows] == list(range(1, 101))
    assert rows[0].user.username == "r000"
    assert rows[-1].user.username == "r099"
    html = response.content.decode()
    assert "r099" in html
    assert "r100" not in html
    assert "r149" not in html
    assert response.context["mine"].rank == 120
    assert "120" in html.split('class="my-rank"')[1].split("</p>")[0]
    # one point is a point, not "1 rating points" (a tester's leaderboard)
    Profile.objects.filter(user=me).update(rating_points=1)
    LeaderboardEntry.objects.filter(user=me).update(rating_points=1)
    en = client.get("/leaderboard/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "(1 rating point)" in en.split('class="my-rank"')[1].split("</p>")[0]


def test_page_marks_my_row_and_titles(client):
    users = players(3, points=lambda i: [600, 50, 0][i])
    leaderboard.recompute()
    client.force_login(users[1])
    response = client.get("/leaderboard/")
    rows = response.context["rows"]
    assert [r.title for r in rows] == ["助处", "助科", "科员"]
    assert response.content.decode().count('class="me"') == 1
    assert response.context["mine"].rank == 2


def test_page_queries_do_not_grow_with_the_number_of_players(client, django_user_model):
    viewer = django_user_model.objects.create_user(username="viewer")
    client.force_login(viewer)
    players(5, prefix="few")
    leaderboard.recompute()
    _, few = _page_queries(client)
    players(150, prefix="many")
    leaderboard.recompute()
    _, many = _page_queries(client)
    assert many == few


def test_unranked_and_anonymous_visitors(client, django_user_model):
    players(3)
    leaderboard.recompute()
    response = client.get("/leaderboard/")
    assert response.status_code == 200
    assert response.context["mine"] is None
    newcomer = django_user_model.objects.create_user(username="newcomer")
    client.force_login(newcomer)
    response = client.get("/leaderboard/")
    assert response.context["mine"] is None
    assert 'class="my-rank"' in response.content.decode()
    # a practice game does not rank you: the hint names the rated game (a tester's)
    zh = client.get("/leaderboard/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "打完一局积分局（四位真人，没有机器人）即可上榜" in zh


def test_empty_leaderboard_page(client):
    response = client.get("/leaderboard/")
    assert response.status_code == 200
    assert list(response.context["rows"]) == []


# --- through Celery --------------------------------------------------------------------


def test_beat_schedules_the_recompute_every_minute():
    entry = django_settings.CELERY_BEAT_SCHEDULE["recompute-leaderboard"]
    assert entry["task"] == "accounts.tasks.recompute_leaderboard"
    assert entry["schedule"] == 60.0
    from accounts.tasks import recompute_leaderboard

    assert recompute_leaderboard.name == entry["task"]


@pytest.mark.django_db(transaction=True)
def test_recompute_runs_in_the_real_worker(celery_worker):
    from accounts.tasks import recompute_leaderboard

    players(120)
    recompute_leaderboard.delay()
    wait_for(lambda: LeaderboardEntry.objects.count() == 120, 15,
             message="the worker to rebuild the leaderboard")
    assert ranking()[:2] == ["r000", "r001"]
    assert GemCap.objects.get(pk=1).points == LeaderboardEntry.objects.get(rank=100).rating_points
    assert "accounts.tasks.recompute_leaderboard" in celery_worker.log()
