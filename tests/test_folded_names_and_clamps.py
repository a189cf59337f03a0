"""Two testers' defects: a full-width name signs up folded (``accounts.usernames``)
and must then log in and be found as typed; "double clamps won" on the profile
counts rated games only, as the figures beside it (RULES.md §7: a practice game
changes nothing)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from accounts.models import Profile
from accounts.plugin import settle_rating
from games import engine
from games.models import Game, GameSeat, Table
from games.plugins import GameEnd
from tests.conftest import PASSWORD
from tests.helpers import make_players, start_game

pytestmark = pytest.mark.django_db

User = get_user_model()

#: ``ABCdef`` with A, B, C full-width (U+FF21 …), then ASCII ``def``
FULL_WIDTH = "\uff21\uff22\uff23def"


def _logged_in_as(client: Client):
    return client.get(reverse("lobby")).context["user"]


def test_a_full_width_name_logs_in_as_it_was_signed_up():
    client = Client()
    response = client.post(reverse("account_signup"), {
        "username": FULL_WIDTH, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302
    user = User.objects.get(username="ABCdef")
    client.post(reverse("account_logout"))
    assert not _logged_in_as(client).is_authenticated

    response = client.post(reverse("account_login"), {"login": FULL_WIDTH, "password": PASSWORD})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert _logged_in_as(client) == user
    client.post(reverse("account_logout"))

    # the folded spelling and any case still log in; a wrong password does not
    for login in ("ABCdef", "abcdef", "\uff41\uff42\uff43DEF"):
        assert client.post(reverse("account_login"),
                           {"login": login, "password": PASSWORD}).status_code == 302, login
        assert _logged_in_as(client) == user
        client.post(reverse("account_logout"))
    response = client.post(reverse("account_login"), {"login": FULL_WIDTH, "password": "nope"})
    assert response.status_code == 200
    assert not _logged_in_as(client).is_authenticated


def test_a_name_stored_unfolded_before_folding_still_logs_in():
    user = User.objects.create_user(username="old", password=PASSWORD)
    User.objects.filter(pk=user.pk).update(username="\uff38\uff39z")  # full-width XY: an old row
    client = Client()
    response = client.post(reverse("account_login"),
                           {"login": "\uff38\uff39z", "password": PASSWORD})
    assert response.status_code == 302
    assert _logged_in_as(client).username == "\uff38\uff39z"


def test_the_friends_search_folds_what_is_typed(owner):
    User.objects.create_user(username="ABCdef")
    client = Client()
    client.force_login(owner)
    for q in (FULL_WIDTH, "ABC", "\uff41\uff42\uff43"):
        page = client.get(reverse("friends"), {"q": q})
        assert [row["username"] for row in page.context["found"].rows] == ["ABCdef"], q
        found = client.get(reverse("api_search"), {"q": q}).json()["users"]
        assert [u["username"] for u in found] == ["ABCdef"], q


def _end_won_by_double_clamp(game: Game, winner_seat: int) -> None:
    """Settle ``game`` (RULES.md §7) as won by ``winner_seat``'s team with a
    double clamp (§6), no rating change in a practice game."""
    game.refresh_from_db()
    team = engine.team_of(winner_seat)
    changes = [0] * 4 if game.practice else [
        2 if engine.team_of(s) == team else -2 for s in range(4)]
    settle_rating(GameEnd(
        game=game, reason=Game.NORMAL,
        result={"winner": team, "double_clamp": True, "abandoned_by": None,
                "rating_changes": changes},
        seats=list(GameSeat.objects.filter(game=game).order_by("index")), record={}))


def test_double_clamps_won_counts_rated_games_only():
    users = make_players(4, "clamp")
    me = users[0]
    practice = start_game([me], bots=(1, 2, 3))
    assert practice.practice
    _end_won_by_double_clamp(practice, 0)
    # over, its table waiting (as the finisher leaves it): ``me`` may sit elsewhere
    Game.objects.filter(pk=practice.pk).update(status=Game.OVER, due_at=None, settled=True)
    Table.objects.filter(pk=practice.table_id).update(status=Table.WAITING)
    rated = start_game(users)
    assert not rated.practice
    _end_won_by_double_clamp(rated, 0)

    p = Profile.objects.get(user=me)
    assert (p.games_played, p.rated_games, p.rated_wins, p.double_clamps) == (2, 1, 1, 1)
    client = Client()
    client.force_login(me)
    html = client.get(reverse("profile_self")).content.decode()
    for css, n in (("rated-games", 1), ("rated-wins", 1), ("double-clamps", 1)):
        assert f'<dd class="{css}">{n}</dd>' in html, css
    # the losers of the rated game won no clamp
    assert Profile.objects.get(user=users[1]).double_clamps == 0


def test_the_migration_gives_back_the_practice_clamps_counted_before():
    """accounts 0011: a profile that counted a practice game's double clamp
    gives it back (never below zero); the losers and rated clamps keep theirs."""
    from importlib import import_module

    from django.apps import apps

    users = make_players(4, "mig")
    practice = start_game([users[0]], bots=(1, 2, 3))
    state = dict(practice.state, result={"winner": 0, "double_clamp": True})
    Game.objects.filter(pk=practice.pk).update(state=state, status=Game.OVER, settled=True)
    Table.objects.filter(pk=practice.table_id).update(status=Table.WAITING)
    Profile.objects.filter(user=users[0]).update(double_clamps=3)  # 1 practice + 2 rated
    Profile.objects.filter(user=users[1]).update(double_clamps=1)  # played none of it
    migration = import_module("accounts.migrations.0011_double_clamps_rated_only")
    migration.practice_clamps_out(apps, None)
    assert Profile.objects.get(user=users[0]).double_clamps == 2
    assert Profile.objects.get(user=users[1]).double_clamps == 1
    Profile.objects.filter(user=users[0]).update(double_clamps=0)
    migration.practice_clamps_out(apps, None)
    assert Profile.objects.get(user=users[0]).double_clamps == 0
