"""The wager on the table page and in the lobby, in a real browser (Debian
chromium through Playwright; fixtures of tests/test_browser.py): the owner sets
a wager with the page's control, sees it, their balance, what a game wins or
loses and whether each seated player can afford it — all as the server sent
them — is refused a bot, and the lobby filters by wager; the rungs the owner
could not sit at are greyed out, a rung that stands seated players up asks for
a confirmation, and a running wager game shows its player alone their held
coins ("N 冻结")."""

from __future__ import annotations

import pytest

from tests.browser import Player, chromium_path
from tests.test_browser import browser, site  # noqa: F401  (fixtures)

pytestmark = pytest.mark.skipif(
    chromium_path() is None,
    reason="browser tests need Debian's chromium at /usr/bin/chromium "
           "(apt-get install chromium fonts-noto-cjk; .ci/run does)",
)


def set_wager(page, wager: int) -> None:
    page.locator("#wager-select").select_option(str(wager))
    page.locator("#wager-set").click()
    page.locator(f'#wager-box[data-wager="{wager}"]').wait_for()


def test_owner_sets_a_wager_at_the_table_and_the_lobby_filters_by_it(site, browser):  # noqa: F811
    me = Player.open(browser, "yabao", viewport={"width": 1280, "height": 800})
    page = me.page
    me.sign_up(site.base_url)
    me.create_table("押宝桌")
    assert page.locator("#wager-form").is_visible()  # the owner's control
    assert page.locator("#my-coins").inner_text() == "你的金币：2000"
    assert page.locator('.seat[data-seat="1"] button.add-bot').is_visible()  # no wager yet
    assert page.locator("#wager-bots-note").is_hidden()
    # a bot: no wager control, and why
    page.locator('.seat[data-seat="1"] button.add-bot').click()
    page.locator('.seat.is-bot[data-seat="1"]').wait_for()
    assert page.locator("#wager-form").is_hidden()
    note = page.locator("#wager-bots-note").inner_text()
    assert note == "有机器人在座：移走机器人后才能设置押宝。", note
    page.locator('.seat[data-seat="1"] button.remove-bot').click()
    page.locator("#wager-form").wait_for()
    assert page.locator("#wager-bots-note").is_hidden()
    set_wager(page, 10)
    assert page.locator("#wager-amount").inner_text() == "押宝：10 金币"
    me.sit(0)
    page.locator('.seat[data-seat="0"] .wager-afford[data-afford="1"]').wait_for()
    # four 科员: stake 1 → 10 coins, 20 on a double clamp (sent by the server)
    page.wait_for_function("() => document.getElementById('wager-stakes')"
                           ".textContent.includes('20')")
    # a wager table takes no bots: no 加机器人 to press (the server refuses it anyway)
    assert page.locator('.seat[data-seat="1"] button.add-bot').is_hidden()
    assert page.locator('.seat[data-seat="1"] select.bot-level').is_hidden()
    assert page.locator(".seat.is-bot").count() == 0
    # and the owner is told why (a tester saw the controls vanish unexplained)
    assert page.locator("#wager-bots-note").inner_text() == "押宝桌不能加机器人。"

    # the owner (2,000) cannot set 40 (needs 4,000): greyed out, and why
    assert page.locator('#wager-select option[value="20"]').is_enabled()
    assert page.locator('#wager-select option[value="40"]').is_disabled()
    assert page.locator('#wager-select option[value="10240"]').is_disabled()
    assert "押宝额的 100 倍" in page.locator("#wager-why").inner_text()
    set_wager(page, 20)  # exactly 2,000: the owner stays seated
    page.locator('.seat.is-me[data-seat="0"] .wager-afford[data-afford="1"]').wait_for()

    page.goto(site.base_url + "/?wager=20")
    page.locator('.lobby-table:has(.lt-name:text-is("押宝桌")) .badge.wager[data-wager="20"]'
                 ).wait_for()
    page.locator("#lobby-status[data-state=open]").wait_for()
    assert page.locator(".lobby-table").count() == 1
    page.goto(site.base_url + "/?wager=10")
    page.locator("#lobby-status[data-state=open]").wait_for()
    assert page.locator(".lobby-table").count() == 0
    me.assert_clean()


FINISHED_WAGER_GAME = """
from tests.browser import PASSWORD
from tests.helpers import make_players
from tests.test_wagers import finish_with, finished_state, start, wager_table
players = make_players(4, "bw")
players[1].set_password(PASSWORD)
players[1].save()
table = wager_table(players, 10)
finish_with(start(table, players), finished_state("1"))
print(table.pk)
"""


def test_the_result_panel_shows_each_seats_coin_change(site, browser):  # noqa: F811
    """A wager game just ended at the table (N–S lost 10 each): a player of it
    (East) opening the page sees the coin changes the server sent beside the
    result; someone who was not in it gets no result panel."""
    table_id = int(site.manage("shell", "-c", FINISHED_WAGER_GAME).split()[-1])
    stranger = Player.open(browser, "kanke", viewport={"width": 1280, "height": 800})
    stranger.page.goto(site.base_url + f"/tables/{table_id}/")
    stranger.wait_connected()  # the emptied table's last game is not theirs to see
    assert stranger.page.locator("#result-panel").is_hidden()
    me = Player.open(browser, "bw1", viewport={"width": 1280, "height": 800})
    me.log_in(site.base_url)
    page = me.page
    page.goto(site.base_url + f"/tables/{table_id}/")
    page.locator("#result-panel .coin-changes").wait_for()
    got = page.eval_on_selector_all(
        "#result-panel .coin-changes li", "lis => lis.map(li => Number(li.dataset.coins))")
    assert got == [-10, 10, -10, 10]
    assert "+10 金币" in page.locator("#result-panel .coin-changes").inner_text()
    me.assert_clean()


RUNNING_WAGER_GAME = """
from django.contrib.auth import get_user_model
from tests.helpers import make_players
from tests.test_wagers import start, wager_table
me = get_user_model().objects.get(username="taopao")
others = make_players(3, "bwe")
table = wager_table([me, *others], 10)
start(table, [me, *others])
print(table.pk)
"""


def test_the_escape_dialog_names_the_wager_tables_coins(site, browser):  # noqa: F811
    """At a running 10-coin wager game the escape dialog says, beside the rating
    penalty, the coins an escape costs: wager × that penalty (RULES.md §9)."""
    me = Player.open(browser, "taopao", viewport={"width": 1280, "height": 800})
    page = me.page
    me.sign_up(site.base_url)
    table_id = int(site.manage("shell", "-c", RUNNING_WAGER_GAME).split()[-1])
    page.goto(site.base_url + f"/tables/{table_id}/")
    page.locator("#table-app[data-status=playing]").wait_for()
    penalty = page.evaluate("window.YuanziTable.state().view.escape_penalty")
    assert penalty > 0
    page.locator("#escape-btn").click()
    text = page.locator("#escape-text")
    page.wait_for_function(
        "() => document.getElementById('escape-text').textContent.includes('押宝桌')")
    assert f"{penalty} 积分" in text.inner_text()
    assert f"赔 {10 * penalty} 金币" in text.inner_text()
    page.locator("#escape-cancel").click()
    assert page.locator("#escape-dialog").is_hidden()
    me.assert_clean()


HELD_GAME = """
from django.contrib.auth import get_user_model
from tests.helpers import make_players
from tests.test_wagers import start, wager_table
me = get_user_model().objects.get(username="dongjie")
others = make_players(3, "bwh")
table = wager_table([*others[:1], me, *others[1:]], 10)
start(table, [*others[:1], me, *others[1:]])
print(table.pk)
"""


def test_a_running_wager_game_shows_its_player_the_held_coins(site, browser):  # noqa: F811
    """At a running 10-coin wager game (four 科员: 200 held each) the
    player sees "200 冻结" beside their unchanged 2,000 coins; a spectator sees
    no held coins at all; the shop page says the same to the player."""
    me = Player.open(browser, "dongjie", viewport={"width": 1366, "height": 800})
    page = me.page
    me.sign_up(site.base_url)
    table_id = int(site.manage("shell", "-c", HELD_GAME).split()[-1])
    page.goto(site.base_url + f"/tables/{table_id}/")
    page.locator("#table-app[data-status=playing]").wait_for()
    page.locator("#my-held:not([hidden])").wait_for()
    assert page.locator("#my-held").inner_text() == "200 冻结"
    assert page.locator("#my-coins").inner_text() == "你的金币：2000"
    watcher = Player.open(browser, "kanke2", viewport={"width": 1366, "height": 800})
    watcher.page.goto(site.base_url + f"/tables/{table_id}/")
    watcher.page.locator("#table-app[data-status=playing]").wait_for()
    assert watcher.page.locator("#my-held").is_hidden()
    page.goto(site.base_url + "/shop/")
    assert page.locator("#shop-held").inner_text() == "200 冻结"
    me.assert_clean()
    watcher.assert_clean()


SHORT_SEATED = """
from django.contrib.auth import get_user_model
from django.db import transaction
from games import tables
from shop import ledger
from tests.helpers import make_players
me = get_user_model().objects.get(username="queren")
poor = make_players(1, "bwp")[0]
with transaction.atomic():
    ledger.debit(poor, 500, ledger.Reason.PURCHASE, item_code="sign")  # 1,500 left
table = tables.create_table(me, "确认桌")
tables.sit(table.pk, me, 0)
tables.sit(table.pk, poor, 1)
print(table.pk)
"""


def _at_a_made_table(site, browser, name: str, setup: str) -> Player:  # noqa: F811
    """``name`` signs up on a desktop, ``setup`` (run in the site's shell,
    printing the table's id last) makes their table; their page opens it."""
    me = Player.open(browser, name, viewport={"width": 1366, "height": 800})
    me.sign_up(site.base_url)
    table_id = int(site.manage("shell", "-c", setup).split()[-1])
    me.page.goto(site.base_url + f"/tables/{table_id}/")
    me.wait_connected()
    return me


def test_a_wager_that_stands_a_player_up_asks_the_owner_first(site, browser):  # noqa: F811
    """The owner picks 20 (2,000 to sit) while a player with 1,500 is seated:
    the page asks, naming how many would be stood up (never a balance); Cancel
    changes nothing, confirming sets it and stands that player up."""
    me = _at_a_made_table(site, browser, "queren", SHORT_SEATED)
    page = me.page
    page.locator('.seat[data-seat="1"]:not(.empty)').wait_for()
    page.locator("#wager-select").select_option("20")
    page.locator("#wager-set").click()
    page.locator("#wager-confirm:not([hidden])").wait_for()
    text = page.locator("#wager-confirm-text").inner_text()
    assert "1 位" in text
    assert "1500" not in text
    page.locator("#wager-confirm-no").click()
    assert page.locator("#wager-confirm").is_hidden()
    assert page.locator("#wager-box").get_attribute("data-wager") == "0"
    page.locator("#wager-select").select_option("20")
    page.locator("#wager-set").click()
    page.locator("#wager-confirm-yes").click()
    page.locator('#wager-box[data-wager="20"]').wait_for()
    page.locator('.seat[data-seat="1"].empty').wait_for()
    page.locator('.seat.is-me[data-seat="0"]').wait_for()
    me.assert_clean()


SHORT_ME = """
from django.contrib.auth import get_user_model
from django.db import transaction
from games import tables
from shop import ledger, wagers
from tests.helpers import make_players
me = get_user_model().objects.get(username="duanque")
owner = make_players(1, "bwo")[0]
table = tables.create_table(owner, "押宝不够桌")
tables.sit(table.pk, owner, 0)
tables.sit(table.pk, me, 1)
wagers.set_wager(table.pk, owner, 20)  # 2,000 to sit: me has them, then spends 500
with transaction.atomic():
    ledger.debit(me, 500, ledger.Reason.PURCHASE, item_code="sign")
print(table.pk)
"""


def test_a_seated_player_short_of_the_wager_cannot_press_ready_and_is_told_why(
        site, browser):  # noqa: F811
    """Seated at a wager-20 table with 1,500 coins (2,000 needed, RULES.md §9):
    准备 is off and the wager box says what is needed and what would change it,
    rather than the start standing them up once all four are ready."""
    me = _at_a_made_table(site, browser, "duanque", SHORT_ME)
    page = me.page
    page.locator('.seat.is-me[data-seat="1"] .wager-afford[data-afford="0"]').wait_for()
    assert page.locator("#ready-btn").is_visible()
    assert page.locator("#ready-btn").is_disabled()
    note = page.locator("#wager-short-note")
    assert note.is_visible()
    assert "2000" in note.inner_text(), note.inner_text()
    # each seat's mark is a pill of its words, on a side seat too (a tester saw
    # a bar across the whole plate there)
    page.locator('.seat[data-seat="0"] .wager-afford').wait_for()
    marks = page.evaluate(
        "() => [...document.querySelectorAll('.seat .wager-afford')].map((b) =>"
        " [b.getBoundingClientRect().width, b.closest('.seat').getBoundingClientRect().width])")
    assert len(marks) == 2, marks
    assert all(w < 0.8 * plate for w, plate in marks), marks
    me.assert_clean()


OWNER_AT_20 = """
from django.contrib.auth import get_user_model
from games import tables
from shop import wagers
me = get_user_model().objects.get(username="qiongle")
table = tables.create_table(me, "金币少了桌")
wagers.set_wager(table.pk, me, 20)  # 2,000 to set: me has them, then spends 1,540
print(table.pk)
"""

SPEND_1540 = """
from django.contrib.auth import get_user_model
from django.db import transaction
from shop import ledger
me = get_user_model().objects.get(username="qiongle")
with transaction.atomic():
    ledger.debit(me, 1540, ledger.Reason.PURCHASE, item_code="sign")
"""


def test_a_current_wager_the_owner_can_no_longer_afford_is_greyed_too(
        site, browser):  # noqa: F811
    """A tester's table had a 20-coin wager and their coins fell to 460: 10 was
    greyed but 20, the current one, was not, against the hint beside it ("you
    need 100 × the wager … you have 460"). The current rung is greyed like the
    rest, still the one shown."""
    me = _at_a_made_table(site, browser, "qiongle", OWNER_AT_20)
    page = me.page
    page.locator('#wager-box[data-wager="20"]').wait_for()
    current = page.locator('#wager-select option[value="20"]')
    assert current.is_enabled()  # 2,000 coins: 20 can be set
    site.manage("shell", "-c", SPEND_1540)
    page.reload()  # (live too, by a `me` frame, where the site has Redis)
    me.wait_connected()
    page.locator("#my-coins:text-is('你的金币：460')").wait_for()
    page.wait_for_function(
        "() => document.querySelector('#wager-select option[value=\"20\"]').disabled")
    assert page.locator('#wager-select option[value="10"]').is_disabled()
    assert page.locator('#wager-select option[value="0"]').is_enabled()
    assert page.locator("#wager-select").input_value() == "20"  # still the current one
    assert page.locator("#wager-amount").inner_text() == "押宝：20 金币"
    assert "（你有 460）" in page.locator("#wager-why").inner_text()
    me.assert_clean()
