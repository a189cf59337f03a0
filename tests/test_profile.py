"""The profile's own settings: avatars in their level frames (seats, lobby rows,
friends, profiles, /api/users), 你的数据 (one JSON download gathered through
``GamePlugin.personal_data``), deleting an account (RULES.md §12: anonymised,
never deleted), and the testers' polish: usernames folded and without
invisible characters, the fairness page rendered, bilingual default table
names, the 录像机 showing 已保存 once a game is saved."""

from __future__ import annotations

import doctest
import json

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from accounts import deletion, levels, usernames
from accounts.models import AVATARS, Notification, Profile, default_avatar
from games import events, play, snapshots, tables
from games.models import Game, GameSeat, Seat, Table
from shop import ledger
from shop.models import CoinEntry, Replay
from social import blocks, friends, lists
from social.models import Block, FriendRequest, Friendship
from tests.conftest import PASSWORD
from tests.helpers import listening, make_players, refused, start_game
from yuanzi_site import markdown

pytestmark = pytest.mark.django_db

User = get_user_model()


def _client(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


def _finished_game(users) -> Game:
    """A rated game the last of ``users`` escaped: over, with its §11 record."""
    game = start_game(users)
    play.escape(game.pk, users[3])
    game.refresh_from_db()
    assert game.status == Game.OVER
    assert game.record is not None
    return game


# --- avatars ---------------------------------------------------------------------------


def test_frames_by_level_band_and_the_doctests():
    assert [levels.frame_for(lv) for lv in (0, 3, 4, 7, 8, 11, 12, 15, 16)] == [
        0, 0, 1, 1, 2, 2, 3, 3, 4]
    with pytest.raises(ValueError, match="level must be"):
        levels.frame_for(17)
    for module in (levels, usernames, deletion, markdown, tables):
        assert doctest.testmod(module).failed == 0


def test_every_avatar_is_a_small_hand_drawn_svg(settings):
    assert len(AVATARS) == 12
    assert len(set(AVATARS)) == 12
    for code in AVATARS:
        svg = (settings.BASE_DIR / "static" / "avatars" / f"{code}.svg").read_text()
        assert svg.startswith("<svg")
        assert "viewBox" in svg
        assert "<script" not in svg
        assert len(svg) < 2000


def test_default_avatar_by_id_then_the_chosen_one(owner):
    profile = Profile.objects.get(user=owner)
    assert profile.avatar == ""
    assert profile.avatar_code == default_avatar(owner.pk)
    response = _client(owner).post(reverse("choose_avatar"), {"avatar": "panda"})
    assert response.status_code == 302
    assert Profile.objects.get(user=owner).avatar_code == "panda"


def test_a_code_not_on_the_list_changes_nothing(owner):
    c = _client(owner)
    c.post(reverse("choose_avatar"), {"avatar": "panda"})
    response = c.post(reverse("choose_avatar"), {"avatar": "../../etc/passwd"}, follow=True)
    assert Profile.objects.get(user=owner).avatar == "panda"
    assert "Choose one of the avatars" in response.content.decode() or \
        "请从头像中选择一个" in response.content.decode()
    assert c.get(reverse("choose_avatar")).status_code == 405


def test_the_chooser_only_on_your_own_profile(owner, outsider):
    Profile.objects.filter(user=owner).update(avatar="owl", rating_points=5000)
    mine = _client(owner).get(reverse("profile_self")).content.decode()
    assert 'id="avatar-chooser"' in mine
    assert mine.count('name="avatar"') == 12
    assert 'value="owl" checked' in mine
    theirs = _client(outsider).get(reverse("profile", args=["owner"])).content.decode()
    assert 'id="avatar-chooser"' not in theirs
    frame = levels.frame_for(levels.level_for(5000))
    assert f'class="avatar band-{frame} large" data-avatar="owl"' in theirs
    assert "avatars/owl" in theirs


def test_seats_and_lobby_rows_carry_avatars_without_a_query_more(
        owner, partner, django_assert_max_num_queries):
    Profile.objects.filter(user=owner).update(avatar="tiger")
    Profile.objects.filter(user=partner).update(avatar="frog", rating_points=100_000)
    table = tables.create_table(owner, "头像桌")
    tables.sit(table.pk, partner, 2)
    snap = snapshots.table_snapshot(table.pk)
    assert snap is not None
    player = snap["seats"][2]["player"]
    assert player is not None
    assert player["avatar"] == "frog"
    assert player["frame"] == levels.frame_for(levels.level_for(100_000))
    assert snap["owner_avatar"] == {"avatar": "tiger", "frame": 0}
    for t in range(5):  # more rows: the same number of queries
        other = make_players(1, prefix=f"o{t}-")[0]
        tables.create_table(other, f"桌{t}")
    with django_assert_max_num_queries(8):  # constant: one batched query per plugin
        rows = snapshots.lobby_rows()
    row = next(r for r in rows if r["id"] == table.pk)
    assert row["owner_avatar"]["avatar"] == "tiger"
    assert row["seats"][2]["player"]["avatar"] == "frog"
    assert snapshots.lobby_row(snap)["owner_avatar"] == snap["owner_avatar"]
    page = _client(owner).get(reverse("lobby")).content.decode()
    assert 'data-avatar="tiger"' in page
    assert '"avatars": {' in page


def test_api_user_and_friends_list_show_avatars(owner, partner):
    Profile.objects.filter(user=partner).update(avatar="crane")
    card = Client().get(reverse("api_user", args=["partner"])).json()
    assert card["avatar"] == "crane"
    assert card["frame"] == 0
    friends.request(owner, partner)
    friends.accept(partner, owner)
    rows = _client(owner).get(reverse("api_friends")).json()["friends"]
    assert rows[0]["username"] == "partner"
    assert rows[0]["avatar"] == "crane"
    page = _client(owner).get(reverse("friends")).content.decode()
    assert 'data-avatar="crane"' in page
    found = lists.search(owner, "part", 1).rows
    assert found[0]["avatar"] == "crane"


# --- your data -------------------------------------------------------------------------


def test_your_data_is_one_download_of_every_apps_part(players, outsider):
    owner = players[0]
    game = _finished_game(players)
    running = start_game([owner, *make_players(3, prefix="r")])
    Profile.objects.filter(user=outsider).update(avatar="moon")
    friends.request(owner, outsider)
    c = _client(owner)
    page = c.get(reverse("my_data")).content.decode()
    assert 'id="download-data"' in page
    response = c.get(reverse("my_data") + "?download=1")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert "attachment" in response["Content-Disposition"]
    data = json.loads(response.content)
    assert data["format"] == "yuanzi-personal-data"
    assert data["version"] == 1
    assert data["account"]["username"] == "owner"
    assert [g["id"] for g in data["games"]] == [game.pk]  # never the running game
    assert data["games"][0]["record"] == game.record
    assert running.pk not in {g["id"] for g in data["games"]}
    ledger_sum = sum(e["amount"] for e in data["ledger"])
    assert ledger_sum == Profile.objects.get(user=owner).coins == data["profile"]["coins"]
    assert data["friend_requests"]["sent"] == ["outsider"]
    assert isinstance(data["notifications"], list)
    assert "rating_entries" in data
    # another person's coins are never in it
    assert str(Profile.objects.get(user=players[1]).coins) not in json.dumps(
        data["friend_requests"])
    assert "balance_after" in data["ledger"][0]
    assert {e.get("other") for e in data["ledger"]} <= {None, *[u.username for u in players]}


def test_your_data_needs_a_login():
    response = Client().get(reverse("my_data") + "?download=1")
    assert response.status_code == 302


def test_a_key_with_two_owners_is_a_bug(plug, owner):
    from games import plugins
    from tests.helpers import make_plugin

    plug(make_plugin(personal_data=lambda user: {"games": []}))
    with pytest.raises(ValueError, match="two owners"):
        plugins.personal_data(owner)


# --- deleting an account -----------------------------------------------------------------


def test_deleting_asks_for_the_password(owner):
    c = _client(owner)
    assert c.get(reverse("delete_account")).status_code == 200
    response = c.post(reverse("delete_account"), {"password": "wrong"})
    assert response.status_code == 200
    owner.refresh_from_db()
    assert owner.is_active
    assert owner.username == "owner"


def test_deleting_is_refused_while_you_play(players):
    game = start_game(players)
    owner = players[0]
    response = _client(owner).post(reverse("delete_account"), {"password": PASSWORD})
    assert response.status_code == 200
    assert "account_in_game" not in response.content.decode()  # the words, not the code
    owner.refresh_from_db()
    assert owner.is_active
    assert owner.username == "owner"
    refused("account_in_game", deletion.delete_account, owner)
    assert Seat.objects.filter(user=owner, table=game.table).exists()


def test_deleting_anonymises_and_ends_every_tie(
        players, outsider, django_capture_on_commit_callbacks):
    owner, opponent, partner, rival = players
    game = _finished_game(players)
    Profile.objects.filter(user=owner).update(avatar="fox")
    friends.request(owner, opponent)
    friends.accept(opponent, owner)
    friends.request(partner, owner)
    blocks.block(owner, rival)
    blocks.block(outsider, owner)
    mine = tables.create_table(owner, "我的桌")
    tables.sit(mine.pk, outsider, 1)
    tables.sit(mine.pk, owner, 0)
    c = _client(owner)
    other_session = _client(owner)
    assert Session.objects.count() >= 2
    coins_before = {p.user_id: p.coins for p in Profile.objects.all()}
    entries_before = CoinEntry.objects.count()
    with listening(events.CloseSockets) as closed, django_capture_on_commit_callbacks(
            execute=True):
        response = c.post(reverse("delete_account"), {"password": PASSWORD})
    assert response.status_code == 302
    owner.refresh_from_db()
    name = f"已注销用户 {owner.pk}"
    assert owner.username == name
    assert owner.email == ""
    assert not owner.is_active
    assert not owner.has_usable_password()
    assert [e.user_id for e in closed] == [owner.pk]
    assert not any(s.get_decoded().get("_auth_user_id") == str(owner.pk)
                   for s in Session.objects.all())
    assert other_session.get(reverse("profile_self")).status_code == 302  # signed out
    # ties to others end; records and money stay
    assert not Friendship.objects.filter(user=owner).exists()
    assert not Friendship.objects.filter(friend=owner).exists()
    assert not FriendRequest.objects.filter(to_user=owner).exists()
    assert not Block.objects.filter(blocker=owner).exists()
    assert not Block.objects.filter(blocked=owner).exists()
    assert not Seat.objects.filter(user=owner).exists()
    assert Table.objects.get(pk=mine.pk).closed
    assert not Seat.objects.filter(table=mine, user=outsider).exists()
    assert Table.objects.get(pk=game.table_id).closed  # theirs too, and waiting
    assert GameSeat.objects.get(game=game, user=owner).username == name
    assert Game.objects.get(pk=game.pk).record == game.record
    assert CoinEntry.objects.count() == entries_before
    assert {p.user_id: p.coins for p in Profile.objects.all()} == coins_before
    assert Profile.objects.get(user=owner).avatar == ""
    assert not Notification.objects.filter(user=owner).exists()
    assert ledger.audit().ok
    call_command("check_ledger")
    # the name stays reserved; the old one is free, the anonymised one never is
    assert Client().get(reverse("api_user", args=[name])).status_code == 404  # inactive
    assert User.objects.filter(username=name).count() == 1
    signup = Client().post(reverse("account_signup"), {
        "username": name.replace(" ", ""), "password1": PASSWORD, "password2": PASSWORD})
    assert signup.status_code == 200
    assert not User.objects.filter(
        username=name.replace(" ", "")).exists()
    assert not Client().login(username=name, password=PASSWORD)


def test_the_closing_notice_is_documented():
    from pathlib import Path

    protocol = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()
    assert "`account_deleted`" in protocol
    assert "`owner_left`" in protocol


# --- polish: usernames -----------------------------------------------------------------


FULL_WIDTH_ABC = "\uff21\uff22\uff23"


def _signup(username: str):
    return Client().post(reverse("account_signup"), {
        "username": username, "password1": PASSWORD, "password2": PASSWORD})


def test_full_width_names_are_folded_so_two_spellings_cannot_both_exist():
    assert _signup(FULL_WIDTH_ABC).status_code == 302
    assert User.objects.filter(username="ABC").exists()
    assert not User.objects.filter(username=FULL_WIDTH_ABC).exists()
    assert _signup("ABC").status_code == 200  # taken
    assert _signup("abc").status_code == 200
    assert User.objects.filter(username__iexact="abc").count() == 1


@pytest.mark.parametrize("name", [
    "ab\u200bcd",  # zero-width space
    "\u3164",  # Hangul filler: a "letter" that shows nothing
    "ab\u202ecd",  # right-to-left override
    "a\u00adb",  # soft hyphen
    "ab\ufe0fc",  # variation selector
    "x\u2800y",  # braille blank
])
def test_invisible_characters_are_refused(name):
    assert _signup(name).status_code == 200
    assert User.objects.count() == 0


def test_a_new_username_is_at_most_twenty_characters():
    assert _signup("x" * 150).status_code == 200
    assert _signup("y" * 21).status_code == 200
    assert User.objects.count() == 0
    assert _signup("z" * 20).status_code == 302
    assert User.objects.filter(username="z" * 20).exists()


@pytest.mark.parametrize("name", [
    "\u0430lice",  # Cyrillic a before Latin "lice": passes for "alice" (a tester's)
    "p\u0430ypal",  # one Cyrillic letter inside
    "\u039fmega",  # Greek capital omicron for O
    "\u0410\u0412\u0421",  # all Cyrillic, reading as Latin "ABC"
])
def test_look_alike_letters_of_another_script_are_refused(name):
    assert _signup("alice").status_code == 302
    response = _signup(name)
    assert response.status_code == 200
    assert "这样可能冒充别的玩家" in response.content.decode()  # Chinese by default
    assert list(User.objects.values_list("username", flat=True)) == ["alice"]


@pytest.mark.parametrize(("name", "said"), [
    ("..", "至少要有一个字母或数字"),  # /accounts/profile/../ is /accounts/ to a browser
    (".", "至少要有一个字母或数字"),
    ("-_@+", "至少要有一个字母或数字"),
    ("管理员", "不能使用"),  # the site's own voice (ACCOUNT_USERNAME_BLACKLIST)
    ("Moderator", "不能使用"),
    ("ADMIN", "不能使用"),
])
def test_names_of_punctuation_only_or_of_the_sites_voice_are_refused(name, said):
    response = _signup(name)
    assert response.status_code == 200
    assert said in response.content.decode()
    assert User.objects.count() == 0


@pytest.mark.parametrize("name", ["原子abc", "xiao_ming", "José", "日本語テスト", "김철수",
                                  "a.b", "管理员小王", "...x"])
def test_names_mixing_latin_with_chinese_or_accents_still_sign_up(name):
    assert _signup(name).status_code == 302
    assert User.objects.filter(username=name).exists()


def test_a_plain_chinese_name_still_signs_up():
    assert _signup("小明").status_code == 302
    assert User.objects.filter(username="小明").exists()


# --- polish: the fairness page, default names, the recorder ------------------------------


def test_the_fairness_page_is_rendered_not_raw_markdown(client):
    html = client.get("/fairness/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<h1 id="provably-fair-deals">Provably fair deals</h1>' in html
    assert "<ol>" in html
    assert '<pre><code class="language-python">' in html
    assert "<strong>commitment</strong>" in html
    assert "## The recipe" not in html
    assert "```" not in html


FAIRNESS_OPENING_EN = "Nobody can change the cards of a game once it has started"


def test_the_fairness_page_speaks_chinese_to_players_first(client):
    """The default (Chinese) UI serves docs/fairness.zh.md: a plain part for
    players, in the site's words, before the developers' recipe."""
    html = client.get("/fairness/").content.decode()
    assert '<h1 id="可验证的公平发牌">可验证的公平发牌</h1>' in html
    plain, _, recipe = html.partition("给开发者：具体算法")
    assert recipe, "the recipe is under its own heading"
    for words in ("发牌承诺", "服务器种子", "校验", "哈希", "结果页", "公平发牌校验"):
        assert words in plain
    for developer in ("The code is", "random.Random", "RULES.md", "&quot;type&quot;", "SHA-256"):
        assert developer not in plain
    assert FAIRNESS_OPENING_EN not in html
    assert "Provably fair deals</h1>" not in html
    assert '<pre><code class="language-python">' in recipe  # the script is kept
    assert "random.Random" in recipe


def test_the_fairness_page_in_english_has_the_plain_part_then_the_recipe(client):
    html = client.get("/fairness/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    plain, _, recipe = html.partition("For developers: the exact recipe")
    assert FAIRNESS_OPENING_EN in plain
    assert "Deal commitment" in plain
    for developer in ("The code is", "random.Random", "RULES.md", "&quot;type&quot;", "SHA-256"):
        assert developer not in plain
        assert developer in recipe
    assert "可验证的公平发牌" not in html


def test_both_fairness_pages_carry_the_same_scripts():
    from django.conf import settings

    def scripts(name):
        text = (settings.BASE_DIR / "docs" / name).read_text(encoding="utf-8")
        return [b.split("```")[0] for b in text.split("```python")[1:]]

    assert len(scripts("fairness.md")) == 2
    assert scripts("fairness.zh.md") == scripts("fairness.md")


def test_the_renderer_never_passes_html_or_script_links():
    html = str(markdown.render("<b>x</b> [a](javascript:alert(1)) [b](https://e.org/)\n\n"
                               "# <i>t</i>"))
    assert "<b>" not in html
    assert "&lt;b&gt;" in html
    assert "javascript:" not in html.replace("[a](javascript:alert(1))", "")
    assert 'href="javascript' not in html
    assert '<a href="https://e.org/">b</a>' in html
    assert "<i>" not in html


def test_a_default_table_name_reads_the_same_in_both_languages(owner, client):
    client.force_login(owner)
    client.post(reverse("table_new"), {"name": ""}, HTTP_ACCEPT_LANGUAGE="en")
    table = Table.objects.get()
    assert table.name == f"桌 {table.pk} · Table {table.pk}"
    assert len(table.name) <= tables.NAME_MAX_LENGTH


def test_a_saved_game_shows_saved_and_its_link_not_the_recorder(players):
    owner = players[0]
    game = _finished_game(players)
    c = _client(owner)
    page = c.get(reverse("profile_self")).content.decode()
    assert f'class="record-btn small" data-game="{game.pk}"' in page
    assert c.get(reverse("api_me") + f"?game={game.pk}").json()["replay"] is None
    Replay.objects.create(user=owner, game=game, token="t" * 43)
    page = c.get(reverse("profile_self")).content.decode()
    assert f'class="record-btn small" data-game="{game.pk}"' not in page
    assert '<span class="badge saved">已保存</span>' in page
    assert f'href="/replays/{"t" * 43}/"' in page
    assert c.get(reverse("api_me") + f"?game={game.pk}").json()["replay"] == {
        "game": game.pk, "token": "t" * 43}
    assert c.get(reverse("api_me") + "?game=x").json()["replay"] is None
    # someone else's saved replay is not yours
    assert _client(players[1]).get(reverse("api_me") + f"?game={game.pk}").json()[
        "replay"] is None


def test_every_plugin_hears_of_a_deletion_inside_its_transaction(plug, owner):
    from tests.helpers import make_plugin

    heard = []

    def hook(user):
        heard.append((user.pk, user.username, User.objects.get(pk=user.pk).is_active))

    plug(make_plugin(on_account_deleted=hook))
    deletion.delete_account(owner)
    # before the name changes, in the same transaction as everything else
    assert heard == [(owner.pk, "owner", True)]
    assert not User.objects.get(pk=owner.pk).is_active


def test_a_failing_hook_changes_nothing(plug, owner, outsider):
    from tests.helpers import make_plugin

    friends.request(owner, outsider)
    friends.accept(outsider, owner)

    def boom(user):
        raise RuntimeError("a bug")

    plug(make_plugin(on_account_deleted=boom))
    with pytest.raises(RuntimeError):
        deletion.delete_account(owner)
    owner.refresh_from_db()
    assert owner.is_active
    assert owner.username == "owner"
    assert Friendship.objects.filter(user=owner).exists()
