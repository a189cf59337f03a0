"""Pages: lobby, create table, table page, result page, profile's recent games, i18n.

Games are built through ``games.tables`` (four users sit and get ready); a
game is finished by running its turn clock out (``play.run_due`` with the
deadline moved to the past): two lost turns put a seat on 托管, so the heuristic
bot finishes the game for everyone.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import RatingEntry
from games import play, presence, queries, snapshots, tables
from games.models import Game, Table
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def fourth(django_user_model):
    """A fourth player (the other opponent)."""
    return django_user_model.objects.create_user(
        username="fourth", email="fourth@example.com", password=PASSWORD
    )


@pytest.fixture
def private_cache(settings):
    """A cache no other test shares, so rate-limit counters start at zero."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"pages-{uuid.uuid4()}",
        }
    }


def _start_game(owner, partner, opponent, fourth) -> tuple[Table, Game]:
    """owner N(0), opponent E(1), partner S(2), fourth W(3); all ready: a rated game."""
    table = tables.create_table(owner, "嘉兴老街")
    for user, seat in ((owner, 0), (opponent, 1), (partner, 2), (fourth, 3)):
        tables.sit(table.pk, user, seat)
    game = None
    for user in (owner, opponent, partner, fourth):
        game = tables.set_ready(table.pk, user) or game
    assert game is not None
    return table, game


def _finish_by_clock(game: Game) -> Game:
    for _ in range(3000):
        Game.objects.filter(pk=game.pk).update(due_at=timezone.now() - timedelta(seconds=1))
        if not play.run_due(game.pk):
            break
    game.refresh_from_db()
    assert game.status == Game.OVER
    return game


def _json_script(html: str, element_id: str):
    m = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>', html, re.S
    )
    assert m, f"no json_script #{element_id}"
    return json.loads(m.group(1))


# --- lobby and creating tables ----------------------------------------------------


def test_lobby_lists_open_tables_with_seats(client, owner, partner):
    table = tables.create_table(owner, "老街一号")
    tables.sit(table.pk, partner, 2)
    tables.add_bot(table.pk, owner, 1)
    closed = tables.create_table(owner, "关掉的桌")
    Table.objects.filter(pk=closed.pk).update(closed=True)

    html = client.get(reverse("lobby")).content.decode()

    assert f'data-table-id="{table.pk}"' in html
    assert "老街一号" in html
    assert "关掉的桌" not in html
    assert "partner" in html
    assert "科员" in html
    assert "机器人" in html
    assert "空位" in html
    assert "等待中" in html
    assert f'href="/tables/{table.pk}/"' in html
    assert "lobby.js" in html


def test_lobby_shows_playing_tables(client, owner, partner, opponent, fourth):
    _start_game(owner, partner, opponent, fourth)
    html = client.get(reverse("lobby")).content.decode()
    assert 'data-status="playing"' in html
    assert "游戏中" in html
    # all four are ready, but mid-game the badge would read as "ready for the next"
    assert 'class="badge ready"' not in html


def test_lobby_links_a_player_back_to_their_running_game(client, owner, partner, opponent,
                                                        fourth, django_user_model):
    """A tester left a game by the back button and found no way back but the
    table's row: the lobby now says the game runs and links to it, for its
    players only (one seat per person, RULES.md §12)."""
    table, _game = _start_game(owner, partner, opponent, fourth)
    client.force_login(partner)
    html = client.get(reverse("lobby")).content.decode()
    assert 'id="running-game"' in html
    assert f"你在「{table.name}」的对局正在进行。" in html
    assert f'<a class="button small" href="/tables/{table.pk}/">回到你的对局</a>' in html
    onlooker = django_user_model.objects.create_user("onlooker", password=PASSWORD)
    client.force_login(onlooker)
    assert 'id="running-game"' not in client.get(reverse("lobby")).content.decode()
    client.logout()
    assert 'id="running-game"' not in client.get(reverse("lobby")).content.decode()


def test_lobby_rows_send_no_ready_flag_while_a_table_plays(owner, partner, opponent, fourth):
    """Both row paths (the page's list, the socket's per-change row) decide it
    on the server, so neither renderer has to; the table's own snapshot keeps
    the flags its players see."""
    table, _game = _start_game(owner, partner, opponent, fourth)
    snap = snapshots.table_snapshot(table.pk)
    assert snap is not None
    assert all(s["ready"] for s in snap["seats"])
    listed = next(r for r in snapshots.lobby_rows() if r["id"] == table.pk)
    for row in (listed, snapshots.lobby_row(snap)):
        assert row["status"] == "playing"
        assert [s["ready"] for s in row["seats"]] == [False] * 4
        assert all(set(s) == {"index", "player", "bot", "ready"} for s in row["seats"])


def test_lobby_shows_who_is_ready_at_a_waiting_table(client, owner, partner):
    table = tables.create_table(owner, "老街二号")
    tables.sit(table.pk, partner, 2)
    tables.set_ready(table.pk, partner)
    html = client.get(reverse("lobby")).content.decode()
    assert html.count('class="badge ready"') == 1
    snap = snapshots.table_snapshot(table.pk)
    assert snap is not None
    assert [s["ready"] for s in snapshots.lobby_row(snap)["seats"]] == [False, False, True, False]


def test_create_table_requires_login(client):
    response = client.post(reverse("table_new"), {"name": "x"})
    assert response.status_code == 302
    assert reverse("account_login") in response["Location"]
    assert not Table.objects.exists()


def test_create_table_default_name_and_redirect(client, owner, private_cache):
    client.force_login(owner)
    response = client.post(reverse("table_new"), {"name": "  "})
    table = Table.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("table", args=[table.pk])
    assert table.name == f"桌 {table.pk} · Table {table.pk}"
    assert table.owner == owner
    assert table.seats.count() == 4


def test_create_table_with_name(client, owner, private_cache):
    client.force_login(owner)
    client.post(reverse("table_new"), {"name": "嘉兴原子"})
    assert Table.objects.get().name == "嘉兴原子"


def test_create_table_rate_limited_with_message(client, owner, settings, private_cache):
    settings.GAMES_TABLE_CREATE_RATE = (2, 60)
    client.force_login(owner)
    for _ in range(2):
        assert client.post(reverse("table_new"), {"name": ""}).status_code == 302
    response = client.post(reverse("table_new"), {"name": ""}, follow=True)
    assert Table.objects.count() == 2
    assert response.redirect_chain[-1][0] == reverse("lobby")
    html = response.content.decode()
    # the message is shown on the lobby page, as an error
    m = re.search(r'<ul class="messages">(.*?)</ul>', html, re.S)
    assert m, "no messages on the lobby"
    assert 'class="message error"' in m.group(1)
    assert "开桌太频繁" in m.group(1)
    # and only once: the next page has no stale message
    assert "开桌太频繁" not in client.get(reverse("lobby")).content.decode()


def test_too_many_empty_tables_message_in_chinese_on_the_lobby(
    client, owner, settings, private_cache
):
    settings.GAMES_MAX_IDLE_TABLES = 1
    client.force_login(owner)
    client.post(reverse("table_new"), {"name": "一号"})
    # someone else is looking at 一号, so it is not closed to make room
    presence.touch_presence("c1", Table.objects.get(owner=owner).pk, None)
    html = client.post(reverse("table_new"), {"name": "二号"}, follow=True).content.decode()
    m = re.search(r'<ul class="messages">(.*?)</ul>', html, re.S)
    assert m
    assert "你已经开了 1 张空桌" in m.group(1)


def test_create_table_get_goes_to_lobby(client, owner):
    client.force_login(owner)
    assert client.get(reverse("table_new"))["Location"] == reverse("lobby")


# --- the table page ----------------------------------------------------------------


def test_table_page_renders_waiting_table(client, owner):
    table = tables.create_table(owner, "老街")
    response = client.get(reverse("table", args=[table.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    boot = _json_script(html, "table-boot")
    assert boot["table"]["id"] == table.pk
    assert boot["view"] is None
    assert boot["ws_path"] == f"/ws/table/{table.pk}/"
    assert boot["me"] == {"id": None, "username": None}
    # never from a cache: Back to a table must not show a board since gone (a tester's)
    assert "no-store" in response["Cache-Control"]
    strings = _json_script(html, "table-strings")
    assert strings["sit"] == "坐下"
    assert strings["pass_mark"] == "不要"
    for hook in ('id="table-app"', 'data-status="waiting"', 'id="play-btn"', 'id="pass-btn"',
                 'id="hint-btn"', 'id="ready-btn"', 'id="escape-btn"', 'id="result-panel"',
                 'id="chat-input"', 'maxlength="200"', 'id="closed-notice"',
                 '<script type="module" src="/static/js/table.js">', '<script type="importmap">'):
        assert hook in html


def test_table_page_404_for_missing_or_closed_table(client, owner):
    assert client.get(reverse("table", args=[999])).status_code == 404
    table = tables.create_table(owner)
    Table.objects.filter(pk=table.pk).update(closed=True)
    assert client.get(reverse("table", args=[table.pk])).status_code == 404


def test_table_page_embeds_only_the_viewers_own_hand(
    client, owner, partner, opponent, fourth, outsider
):
    table, game = _start_game(owner, partner, opponent, fourth)
    state = game.state
    client.force_login(partner)  # seat 2
    html = client.get(reverse("table", args=[table.pk])).content.decode()
    boot = _json_script(html, "table-boot")
    view = boot["view"]

    assert 'data-status="playing"' in html
    assert view["seat"] == 2
    assert view["game_id"] == game.pk
    assert view["hand"] == state["hands"][2]
    assert view["counts"] == [len(h) for h in state["hands"]]
    assert "hands" not in view
    assert "seed" not in view
    assert state["seed"] not in html
    # nothing but the own hand is a list of cards as long as a hand
    blob = json.dumps(boot)
    for seat in (0, 1, 3):
        assert json.dumps(state["hands"][seat]) not in blob
    # the player objects carry names and levels only
    assert set(view["players"][0]) <= {"user_id", "username", "level", "bot", "bot_policy",
                                       "auto_play", "auto_by_clock"}

    client.force_login(outsider)  # a spectator: no hand at all
    spectator = _json_script(
        client.get(reverse("table", args=[table.pk])).content.decode(), "table-boot"
    )["view"]
    assert spectator["seat"] is None
    assert spectator["hand"] is None
    assert state["seed"] not in json.dumps(spectator)


def test_an_emptied_table_shows_its_last_game_only_to_its_players(
    client, owner, partner, opponent, fourth, outsider
):
    table, game = _start_game(owner, partner, opponent, fourth)
    _finish_by_clock(game)

    def view(user):
        client.force_login(user)
        html = client.get(reverse("table", args=[table.pk])).content.decode()
        return _json_script(html, "table-boot")["view"]

    # the clock played for all four, so all four were stood up at the end
    assert not any(s["player"] for s in snapshots.table_snapshot(table.pk)["seats"])
    # nobody seated: a newcomer finds a fresh table, not the old 刀 and scores
    assert view(outsider) is None
    mine = view(partner)  # a player still reads their result
    assert (mine["game_id"], mine["status"]) == (game.pk, "over")
    tables.sit(table.pk, outsider, 0)
    assert view(fourth)["game_id"] == game.pk


# --- the result page ------------------------------------------------------------------


def test_result_page_hides_a_running_game(client, owner, partner, opponent, fourth):
    table, game = _start_game(owner, partner, opponent, fourth)
    client.force_login(owner)
    response = client.get(reverse("game_result", args=[game.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'data-status="playing"' in html
    assert reverse("table", args=[table.pk]) in html
    assert game.state["seed"] not in html
    for hand in game.state["hands"]:
        assert " ".join(hand[:5]) not in html
    assert "rating-changes" not in html


def test_result_page_404_for_missing_game(client):
    assert client.get(reverse("game_result", args=[12345])).status_code == 404


def test_result_page_of_a_finished_game(client, owner, partner, opponent, fourth, outsider):
    _table, game = _start_game(owner, partner, opponent, fourth)
    game = _finish_by_clock(game)
    result = game.state["result"]
    client.force_login(outsider)
    html = client.get(reverse("game_result", args=[game.pk])).content.decode()
    assert 'data-status="over"' in html
    assert "上半局" in html
    assert "合计" in html
    assert "获胜" in html
    if result["double_clamp"]:
        assert "双夹" in html
    assert f"对局分：{result['stake']} 积分" in html
    for name in ("owner", "partner", "opponent", "fourth"):
        assert name in html


def test_result_page_shows_leftover_hands_as_cards(client, owner, partner, opponent, fourth):
    _, game = _start_game(owner, partner, opponent, fourth)
    game = _finish_by_clock(game)
    left = [h for h in game.state["hands"] if h]
    assert left  # someone always holds cards at the end
    html = client.get(reverse("game_result", args=[game.pk])).content.decode()
    section = html[html.index('class="result-hands"'):]
    section = section[:section.index("</section>")]
    for hand in left:
        for card in set(hand):
            assert f'data-card="{card}"' in section
    assert section.count('class="pcard') == sum(len(h) for h in left)
    text = re.sub(r"<[^>]+>", " ", section)  # what is shown: no raw codes like "JS JC"
    assert not re.search(r"\b(?:[2-9TJQKA][SHCD]|RJ|BJ)\b", text), text
    for card in {c for h in left for c in h}:
        if card in ("RJ", "BJ"):
            assert ("大王" if card == "RJ" else "小王") in section
        else:
            rank = "10" if card[0] == "T" else card[0]
            suit = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}[card[1]]
            assert f'aria-label="{rank}{suit}"' in section
    if any(c[1:] in ("H", "D") for h in left for c in h if c not in ("RJ", "BJ")):
        assert 'class="pcard red' in section


def test_card_face():
    from games.results import card_face

    assert card_face("TH", "9") == {"code": "TH", "joker": False, "color": "red", "rank": "10",
                                    "suit": "♥", "label": "10♥", "dao": False}
    assert card_face("9S", "9")["dao"]
    assert card_face("9S", "9")["color"] == "black"
    assert card_face("JC")["label"] == "J♣"
    big, small = card_face("RJ"), card_face("BJ")
    assert big["joker"]
    assert big["color"] == "red"
    assert big["rank"] == "大王"
    assert small["color"] == "black"
    assert small["rank"] == "小王"


def test_abandoned_game_result_names_the_escaper(client, owner, partner, opponent, fourth):
    _, game = _start_game(owner, partner, opponent, fourth)
    play.escape(game.pk, opponent)
    html = client.get(reverse("game_result", args=[game.pk])).content.decode()
    assert "对局作废" in html
    assert "opponent 逃跑，扣 20 积分" in html  # max(2 × 1, 20) in the first half


# --- profile: recent games ----------------------------------------------------------------


def test_profile_lists_recent_games(client, owner, partner, opponent, fourth):
    _, game = _start_game(owner, partner, opponent, fourth)
    game = _finish_by_clock(game)
    result = game.state["result"]
    delta = result["rating_changes"][0]
    assert RatingEntry.objects.get(user=owner, game=game).delta == delta

    client.force_login(owner)
    response = client.get(reverse("profile_self"))
    rows = response.context["recent_games"]
    assert [r.game_id for r in rows] == [game.pk]
    assert rows[0].rating_change == delta
    assert rows[0].seat == 0
    html = response.content.decode()
    assert f'data-game-id="{game.pk}"' in html
    assert reverse("game_result", args=[game.pk]) in html
    assert "嘉兴老街" in html
    assert (f"+{delta}" if delta > 0 else str(delta)) in html
    won = result["winner"] == 0
    label = {(True, False): "胜", (False, False): "负", (True, True): "双夹胜",
             (False, True): "被双夹"}[(won, result["double_clamp"])]
    assert f'<td class="result">{label}</td>' in html


def test_recent_games_results_escape_and_practice(owner, partner, opponent, fourth):
    _table, game = _start_game(owner, partner, opponent, fourth)
    play.escape(game.pk, owner)
    rows = queries.recent_games(owner)
    assert rows[0].result == queries.ESCAPED
    assert rows[0].rating_change == -20
    assert queries.recent_games(partner)[0].result == queries.ABANDONED
    assert queries.recent_games(partner)[0].rating_change == 0

    # a practice game (bots at the table): "practice", no rating change
    practice = tables.create_table(partner, "练习")
    tables.sit(practice.pk, partner, 0)
    for seat in (1, 2, 3):
        tables.add_bot(practice.pk, partner, seat)
    pgame = tables.set_ready(practice.pk, partner)
    play.escape(pgame.pk, partner)
    latest = queries.recent_games(partner)[0]
    assert latest.game_id == pgame.pk
    assert latest.practice
    assert latest.rating_change is None


def test_recent_games_limit_and_outsider(owner, partner, opponent, fourth, outsider):
    for _ in range(12):
        table, game = _start_game(owner, partner, opponent, fourth)
        play.escape(game.pk, fourth)
        Table.objects.filter(pk=table.pk).update(closed=True)
    rows = queries.recent_games(owner)
    assert len(rows) == 10
    assert rows[0].game_id > rows[-1].game_id
    assert queries.recent_games(outsider) == []


# --- language ------------------------------------------------------------------------------


def test_language_switch_to_english(client, owner):
    tables.create_table(owner)
    html = client.get(reverse("lobby")).content.decode()
    assert "大厅" in html
    assert "等待中" in html
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    html = client.get(reverse("lobby")).content.decode()
    assert "Lobby" in html
    assert "Waiting" in html
    assert "Open a table" not in html
    assert "等待中" not in html
    table = Table.objects.get()
    strings = _json_script(
        client.get(reverse("table", args=[table.pk])).content.decode(), "table-strings"
    )
    assert strings["sit"] == "Sit here"
    assert strings["lang"] == "en"


def test_nav_links_the_shop_and_the_link_works(client, owner):
    for logged_in in (False, True):
        if logged_in:
            client.force_login(owner)
        html = client.get(reverse("lobby")).content.decode()
        nav = html[html.index('<nav class="site-nav"'):html.index("</nav>")]
        assert '<a href="/shop/">商店</a>' in nav  # the shop is in the nav
        assert reverse("rules") in nav
        assert reverse("leaderboard") in nav
        assert client.get("/shop/").status_code == 200


def test_table_strings_explain_stand_up_and_auto_play(client, owner):
    table = tables.create_table(owner)
    strings = _json_script(
        client.get(reverse("table", args=[table.pk])).content.decode(), "table-strings"
    )
    assert strings["stood_up"] == "你已离座：连接中断或逃跑后会被请离座位。点击空位重新坐下。"
    assert strings["not_seated"] == "你现在不在座位上。点击空位即可坐下。"
    assert strings["auto_by_timeout"] == (
        "连续两次超时，已为你托管。点击「取消托管」即可恢复自己出牌。"
    )
    assert strings["auto_off"] == "取消托管"
    assert strings["empty_seat"] == "空位"
    assert "bot_badge" not in strings  # a bot seat shows its name once
    # a count's words in both forms (fmt() picks by n): one form in Chinese
    assert strings["stake_line"] == {"one": "对局分：%(stake)s 积分",
                                     "other": "对局分：%(stake)s 积分"}
    en = _json_script(client.get(reverse("table", args=[table.pk]),
                                 HTTP_ACCEPT_LANGUAGE="en").content.decode(), "table-strings")
    assert en["stake_line"] == {"one": "Stake: %(stake)s rating point",
                                "other": "Stake: %(stake)s rating points"}
    assert en["rating_delta"]["one"] == "%(delta)s rating point"
    # a stake of 1 in a result's "why" (a tester read "1 rating points")
    assert en["why_stake"]["one"].startswith("The stake is %(stake)s rating point:")
    assert strings["why_stake"]["one"] == strings["why_stake"]["other"] == (
        "对局分 %(stake)s：赢家各得 %(stake)s 积分，输家各扣 %(stake)s 积分。")


def test_table_strings_word_leaving_a_practice_game_as_leaving(client, owner):
    """Leaving a practice game is no escape (RULES.md §7): its button, dialog and
    stand-up banner say 离开 / Leave; a rated game's button keeps 逃跑."""
    table = tables.create_table(owner)
    zh = _json_script(
        client.get(reverse("table", args=[table.pk])).content.decode(), "table-strings"
    )
    assert zh["leave_rated"] == "逃跑"
    assert zh["leave_title_rated"] == "要逃跑吗？"
    assert zh["leave_practice"] == "离开"
    assert zh["leave_title_practice"] == "要离开练习局吗？"
    assert "逃跑" not in zh["stood_up_practice"]
    assert "离开练习局" in zh["stood_up_practice"]
    en = _json_script(client.get(reverse("table", args=[table.pk]),
                                 HTTP_ACCEPT_LANGUAGE="en").content.decode(), "table-strings")
    assert en["leave_practice"] == "Leave"
    assert en["leave_rated"] == "Leave game"
    assert "practice game" in en["stood_up_practice"]


def test_lobby_lists_newest_tables_first(client, owner):
    first = tables.create_table(owner, "第一桌")
    second = tables.create_table(owner, "第二桌")
    html = client.get(reverse("lobby")).content.decode()
    assert html.index(f'data-table-id="{second.pk}"') < html.index(f'data-table-id="{first.pk}"')


def test_every_page_links_a_served_icon(client):
    # regression: no icon was linked, so every browser asked for /favicon.ico
    # and logged a 404 console error on every page (seen by tests/test_browser.py)
    html = client.get(reverse("lobby")).content.decode()
    m = re.search(r'<link rel="icon" href="([^"]+)"', html)
    assert m, "no <link rel=icon>"
    response = client.get(m.group(1))
    assert response.status_code == 200
    assert b"<svg" in b"".join(response.streaming_content)


def test_chinese_names_a_challenge_board_a_ju_and_a_table_wager_yabao(client, owner):
    """A tester read 八副牌 as "eight decks" (原子 is played with three) and saw
    押金 beside 押宝 in one wager panel: a challenge board is a 局, the wager 押宝."""
    client.force_login(owner)
    page = client.get("/challenge/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "8 局牌，人人相同" in page
    assert "8 局中已完成 0 局" in page
    assert "副牌" not in page
    assert "matchpoints" not in page
    lobby = client.get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "八局牌" in lobby
    assert "副牌" not in lobby
    table = tables.create_table(owner, "老街")
    html = client.get(reverse("table", args=[table.pk]),
                      HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    for words in (_json_script(html, "wager-strings"), _json_script(lobby, "wager-strings")):
        text = json.dumps(words, ensure_ascii=False)
        assert "押宝" in text
        assert "押金" not in text
    assert "押金" not in html
    assert "押金" not in lobby
