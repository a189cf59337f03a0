"""Accounts: allauth sign-up / log-in / log-out / password change, Profile,
the profile page, and the RULES.md §7 level ladder (accounts.levels)."""

from __future__ import annotations

import doctest
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.urls import reverse

from accounts import levels
from accounts.levels import LEVELS, level_for, points_to_next, stake_for, title_for
from accounts.models import Profile
from shop.ledger import SIGNUP_GRANT
from tests.conftest import PASSWORD

NEW_PASSWORD = "hydrogen-Bomb-8888"

# --- allauth flows ------------------------------------------------------------


def _signup(client, username: str, **extra):
    data = {"username": username, "password1": PASSWORD, "password2": PASSWORD, **extra}
    return client.post(reverse("account_signup"), data)


@pytest.mark.django_db
def test_signup_creates_user_with_profile_and_logs_in(client):
    response = _signup(client, "xiaoming")
    assert response.status_code == 302, response.content.decode()[:2000]
    user = get_user_model().objects.get(username="xiaoming")
    assert user.profile.coins == SIGNUP_GRANT == 2000
    assert user.profile.rating_points == 0
    assert client.get(reverse("profile_self")).context["player_user"] == user


@pytest.mark.django_db
def test_signup_email_is_optional_but_accepted(client):
    assert _signup(client, "withmail", email="withmail@example.com").status_code == 302
    assert get_user_model().objects.get(username="withmail").email == "withmail@example.com"


@pytest.mark.django_db
def test_signup_rejects_mismatched_passwords(client):
    data = {"username": "typo", "password1": PASSWORD, "password2": PASSWORD + "x"}
    response = client.post(reverse("account_signup"), data)
    assert response.status_code == 200
    assert not get_user_model().objects.filter(username="typo").exists()


@pytest.mark.django_db
def test_signup_username_box_and_its_error_say_what_a_name_may_be(client):
    """A tester typed 150 characters into a box the server then said allows
    20, and read "只能包含…字母" as Latin letters only after a refused
    ``<script>`` while ``用户名中文`` was accepted."""
    page = client.get(reverse("account_signup"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    box = _field_block(page.content.decode(), "username")
    assert 'maxlength="20"' in box
    response = _signup(client, "<script>x</script>", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 200
    assert "用户名只能由文字（中文也可以）、数字和 @ . + - _ 组成。" in _field_block(
        response.content.decode(), "username")
    assert _signup(client, "用户名中文").status_code == 302
    assert get_user_model().objects.filter(username="用户名中文").exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "error"), [
    ("zh-hans", "用户名最多 20 个字符。"), ("en", "A username has at most 20 characters.")])
def test_a_name_longer_than_twenty_is_refused_not_cut(client, language, error):
    """A tester removed the box's maxlength and reported 25 × "a" signed up as
    the first 20: the server refuses it, in the page's language, under the
    username box, and creates no account (nor its first 20 characters')."""
    data = {"username": "a" * 25, "password1": PASSWORD, "password2": PASSWORD}
    response = client.post(reverse("account_signup"), data, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    assert error in _field_block(response.content.decode(), "username")
    assert not get_user_model().objects.filter(username__startswith="a" * 20).exists()
    assert "_auth_user_id" not in client.session


def _field_block(html: str, name: str) -> str:
    """The markup of one form field (templates/allauth/elements/fields.html)."""
    start = html.index(f'data-field="{name}"')
    end = html.find('data-field="', start + 1)
    return html[start:end if end > 0 else len(html)]


@pytest.mark.django_db
@pytest.mark.parametrize("browser_language", ["", "zh-CN,zh;q=0.9", "fr-FR,fr;q=0.9"])
def test_signup_short_password_error_is_chinese_under_the_password(client, browser_language):
    # Django 5.2's MinimumLengthValidator message has a msgid Django's own
    # zh_Hans catalog lacks: our catalog carries it (games/ui.py DJANGO_MSGIDS).
    # A Chinese browser, or one whose language the site lacks, gets the Chinese site.
    extra = {"HTTP_ACCEPT_LANGUAGE": browser_language} if browser_language else {}
    data = {"username": "shorty", "email": "shorty@example.com",
            "password1": "Ab1x", "password2": "Ab1x"}
    response = client.post(reverse("account_signup"), data, **extra)
    html = response.content.decode()
    assert response.status_code == 200
    assert not get_user_model().objects.filter(username="shorty").exists()
    assert "密码长度太短。密码必须包含至少 8 个字符。" in html
    assert "This password is too short" not in html
    # the error sits in the password field's own block, after its input
    password = _field_block(html, "password1")
    assert "密码长度太短" in password
    assert password.index('name="password1"') < password.index("密码长度太短")
    assert "errorlist" not in _field_block(html, "email")
    assert "errorlist" not in _field_block(html, "username")


@pytest.mark.django_db
def test_signup_short_password_in_english(client):
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    data = {"username": "shorty", "password1": "Ab1x", "password2": "Ab1x"}
    html = client.post(reverse("account_signup"), data).content.decode()
    assert "This password is too short. It must contain at least 8 characters." in html


@pytest.mark.django_db
def test_signup_mismatch_error_under_the_second_password(client):
    data = {"username": "typo2", "password1": PASSWORD, "password2": PASSWORD + "x"}
    html = client.post(reverse("account_signup"), data).content.decode()
    assert "errorlist" in _field_block(html, "password2")
    assert "errorlist" not in _field_block(html, "email")


@pytest.mark.django_db
def test_signup_is_rate_limited(client, settings):
    # A private cache so no other test or earlier run shares the counter.
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"ratelimit-{uuid.uuid4()}",
        }
    }
    settings.ACCOUNT_RATE_LIMITS = {"signup": "2/m/ip"}
    for name in ("first", "second"):
        assert _signup(client, name).status_code == 302
        client.logout()
    response = _signup(client, "third")
    assert response.status_code == 429
    # the site's own page in the site's language (a tester met a bare English one)
    assert "尝试过于频繁" in response.content.decode()
    assert not get_user_model().objects.filter(username="third").exists()


@pytest.mark.django_db
def test_production_settings_limit_signup():
    from django.conf import settings as live

    # The project's own value (the autouse fixture only switches it off in tests).
    from yuanzi_site import settings as project

    assert project.ACCOUNT_RATE_LIMITS["signup"] == "20/m/ip"
    assert {"username"} == live.ACCOUNT_LOGIN_METHODS


def test_login_and_logout(client, owner):
    response = client.post(reverse("account_login"), {"login": "owner", "password": PASSWORD})
    assert response.status_code == 302
    assert client.get(reverse("lobby")).context["user"] == owner
    response = client.post(reverse("account_logout"))
    assert response.status_code == 302
    assert not client.get(reverse("lobby")).context["user"].is_authenticated


def test_login_with_wrong_password_fails(client, owner):
    response = client.post(reverse("account_login"), {"login": "owner", "password": "nope"})
    assert response.status_code == 200
    assert not response.context["user"].is_authenticated


def test_change_password(client, owner):
    client.force_login(owner)
    response = client.post(
        reverse("account_change_password"),
        {"oldpassword": PASSWORD, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert response.status_code == 302
    owner.refresh_from_db()
    assert owner.check_password(NEW_PASSWORD)


# --- Profile model --------------------------------------------------------------


def test_every_user_gets_a_profile(owner, partner, opponent, outsider):
    for user in (owner, partner, opponent, outsider):
        assert Profile.objects.get(user=user).coins == 2000


def test_profile_level_properties(owner):
    profile = owner.profile
    profile.rating_points = 262_000
    assert (profile.level, profile.title, profile.stake) == (13, "助省", 500)
    profile.rating_points = -40
    assert (profile.level, profile.title, profile.points_to_next) == (0, "科员", 90)


@pytest.mark.django_db(transaction=True)
def test_negative_coins_rejected_by_database(django_user_model):
    user = django_user_model.objects.create_user(username="broke", password=PASSWORD)
    # .update() bypasses model validation: only the database constraint stops it.
    with pytest.raises(IntegrityError), transaction.atomic():
        Profile.objects.filter(user=user).update(coins=-1)
    user.profile.refresh_from_db()
    assert user.profile.coins == 2000


def test_rating_points_may_go_negative(owner):
    Profile.objects.filter(user=owner).update(rating_points=-25)
    owner.profile.refresh_from_db()
    assert owner.profile.rating_points == -25


# --- Profile page -----------------------------------------------------------------


def test_profile_page_shows_title_and_points_to_next(client, owner):
    response = client.get(reverse("profile", args=["owner"]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "科员" in html
    assert "距下一级" in html
    assert "50 积分" in html
    assert response.context["recent_games"] == []


def test_a_profiles_coins_show_to_its_owner_and_moderators_only(client, owner, outsider, mod):
    """Another player's balance is private, as at the table."""
    url = reverse("profile", args=["owner"])
    for viewer in (None, outsider):
        if viewer:
            client.force_login(viewer)
        html = client.get(url).content.decode()
        # the profile's own card (the header may show the viewer's own coins)
        card = html.split('<section class="card profile">', 1)[1].split("</section>", 1)[0]
        assert 'class="coins"' not in card
        assert "2000" not in card
        assert "金币" not in card
    for viewer in (owner, mod):
        client.force_login(viewer)
        html = client.get(url).content.decode()
        assert '<dd class="coins">2000</dd>' in html


def test_profile_page_in_english(client, owner):
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    html = client.get(reverse("profile", args=["owner"])).content.decode()
    assert "To the next level" in html
    assert "50 points" in html
    assert "Clerk" in html


def test_own_profile_requires_login(client, owner):
    response = client.get(reverse("profile_self"))
    assert response.status_code == 302
    assert reverse("account_login") in response["Location"]
    client.force_login(owner)
    response = client.get(reverse("profile_self"))
    assert response.context["player_user"] == owner
    assert response.context["is_self"]


def test_unknown_profile_is_404(client, db):
    assert client.get(reverse("profile", args=["nobody"])).status_code == 404


def test_site_follows_the_browser_language_and_is_chinese_otherwise(client, db):
    # Accept-Language decides when the visitor has not chosen (LocaleMiddleware)
    html = client.get("/", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9").content.decode()
    assert '<html lang="en">' in html
    html = client.get("/", HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9").content.decode()
    assert '<html lang="zh-hans">' in html
    assert "大厅" in html


# --- Level ladder (RULES.md §7) ----------------------------------------------------


@pytest.mark.parametrize(
    ("points", "level"),
    [
        (0, 0),
        (49, 0),
        (50, 1),
        (99, 1),
        (100, 2),
        (261_999, 12),
        (262_000, 13),
        (1_999_999, 15),
        (2_000_000, 16),
        (10**12, 16),
        (-1, 0),
        (-5_000, 0),
    ],
)
def test_level_for(points, level):
    assert level_for(points) == level


def test_ladder_matches_rules():
    assert [rung.number for rung in LEVELS] == list(range(17))
    assert [rung.threshold for rung in LEVELS] == [
        0, 50, 100, 200, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000,
        128_000, 262_000, 500_000, 1_000_000, 2_000_000,
    ]  # fmt: skip
    assert [rung.stake for rung in LEVELS] == [
        1, 5, 10, 20, 40, 60, 80, 100, 150, 200, 260, 300, 400, 500, 600, 700, 800,
    ]  # fmt: skip
    assert (title_for(0), title_for(13), title_for(16)) == ("科员", "助省", "原子弹")
    assert stake_for(16) == 800


def test_points_to_next():
    assert points_to_next(0) == 50
    assert points_to_next(49) == 1
    assert points_to_next(50) == 50
    assert points_to_next(-10) == 60
    assert points_to_next(1_999_999) == 1
    assert points_to_next(2_000_000) is None


@pytest.mark.parametrize("bad", [-1, 17])
def test_out_of_range_level_raises(bad):
    for function in (title_for, stake_for, levels.title_en_for):
        with pytest.raises(ValueError, match=r"level must be 0\.\.16"):
            function(bad)


def test_levels_doctests():
    assert doctest.testmod(levels).failed == 0
