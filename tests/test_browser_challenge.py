"""每日挑战 in a real browser on a 360 px phone: a new account opens the
challenge from the lobby, starts board 1 and plays it to the end by tapping
cards (a lone single when leading, a pass when following), then sees its
score and the field, with no horizontal scroll. Long: a whole board. Then a
play the rules refuse, which says why, and 开始 pressed twice, then Back."""

from __future__ import annotations

import json

import pytest

from tests import test_browser as tb
from tests.browser import NEEDS_CHROMIUM, PHONE, Player

pytestmark = [NEEDS_CHROMIUM, pytest.mark.django_db(transaction=True)]

browser = tb.browser
site = tb.site


def _no_horizontal_scroll(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


FOLLOW_A_PAIR = ("import json; from contests.models import ChallengeBoard; "
                 "from tests.test_challenge import follow_a_dao_pair; "
                 "print(json.dumps(follow_a_dao_pair(ChallengeBoard.objects.get("
                 "user__username='{name}', number=1))))")


CLOCK_OUT = ("from django.conf import settings; from contests.models import ChallengeBoard; "
             "ChallengeBoard.objects.filter(user__username='{name}', number=1).update("
             "clock_ms=settings.CHALLENGE_TURN_SECONDS * 1000)")


def _without_refusals(me: Player) -> None:
    """Drop the refused requests' 400s from the console: expected, the one line each."""
    me.console[:] = [(k, t) for k, t in me.console
                     if not (k == "error" and "status of 400" in t)]


def test_a_whole_board_on_a_phone(site, browser):
    me = Player.open(browser, "tiaozhan", **PHONE)
    me.sign_up(site.base_url)
    page = me.page
    page.locator("#challenge-entry a").click()
    page.wait_for_url("**/challenge/")
    assert "每日挑战" in page.locator("h1").inner_text()
    assert _no_horizontal_scroll(page)
    page.locator("#ch-start").click()
    page.wait_for_url("**/challenge/*/1/")
    board = page.locator("#ch-board")
    # the hand as at the table: strongest first, the jokers apart at the right
    hand = json.loads(page.locator("#ch-frame").text_content())["view"]["hand"]
    page.locator("#ch-hand .ch-card").first.wait_for()
    shown = page.locator("#ch-hand .ch-card").evaluate_all("els => els.map(e => e.dataset.card)")
    jokers = ("RJ", "BJ")
    assert shown == ([c for c in reversed(hand) if c not in jokers]
                     + [c for c in reversed(hand) if c in jokers]), (shown, hand)
    for _ in range(200):
        page.wait_for_selector("#ch-board[data-status='done'], #ch-board[data-mine='1']")
        if board.get_attribute("data-status") == "done":
            break
        seq = board.get_attribute("data-seq")
        # a trick's last round only, the rest counted (a long trick pushed the
        # hand off a 1280×800 screen)
        assert page.locator("#ch-trick li:not(.ch-earlier)").count() <= 4
        if page.locator("#ch-pass").is_enabled():
            page.locator("#ch-pass").click()
        else:  # a lead: 提示 selects the server's weakest legal play, which plays
            page.locator("#ch-hint").click()
            assert page.locator("#ch-hand .ch-card.selected").count() >= 1
            page.locator("#ch-play").click()
        page.wait_for_function(
            "seq => document.getElementById('ch-board').dataset.seq !== seq"
            " || document.getElementById('ch-board').dataset.status === 'done'", arg=seq)
    assert board.get_attribute("data-status") == "done"
    result = page.locator("#ch-result").inner_text()
    assert "你的得分" in result
    assert "比赛分：" in result  # a full-width colon in Chinese
    assert ": " not in result
    plays = page.locator("#ch-log li").count()
    assert plays > 10
    assert page.locator("#ch-log-title").is_visible()  # shown once the board is over
    # the log scrolls in its box, so its title counts the plays (a tester saw
    # 11 lines of a 92-play board and took the board for cut short)
    assert page.locator("#ch-log-count").inner_text() == f"({plays})"
    # "由 西（机器人） 摸到", not the seat's brackets inside brackets
    assert "摸到" in page.locator("#ch-info").inner_text()
    assert "））" not in page.locator("#ch-info").inner_text()
    assert _no_horizontal_scroll(page)
    page.goto(site.base_url + "/challenge/")
    assert "1" in page.locator("#ch-progress").inner_text()
    # the board's score is named (points) and explained under the list
    assert page.locator(".ch-boards .ch-raw").first.inner_text().endswith(" 分")
    assert "双夹" in page.locator(".ch-legend").inner_text()
    me.assert_clean()


def test_a_refusal_while_playing_links_back_to_the_game(site, browser):
    """During a practice game the challenge cannot start (one seat per
    person, RULES.md §12): the page says so before any press, how to be free
    of it, and links back to the game (a tester found no way back). A start
    sent anyway is refused the same way (tests/test_challenge.py)."""
    me = Player.open(browser, "tiaozhan2", **PHONE)
    me.sign_up(site.base_url)
    page = me.page
    page.locator("#practice-btn").click()
    page.wait_for_url("**/tables/*/")
    page.locator("#table-app[data-status=playing]").wait_for()
    table_path = page.url.split(site.base_url, 1)[1].split("?")[0]
    page.goto(site.base_url + "/challenge/")
    # said before any press: 开始 is disabled beside the reason and the way back
    assert page.locator("#ch-start").is_disabled()
    back = page.locator("#ch-busy a")
    assert "打练习局" in page.locator("#ch-busy").inner_text()
    assert back.inner_text() == "回到你的对局"
    assert back.get_attribute("href") == table_path
    back.click()
    page.wait_for_url("**" + table_path)
    me.assert_clean()


def test_a_refused_play_says_why_and_the_sign_of_life_keeps_it(site, browser):
    """East has led a pair, South picks a triple (RULES.md §3): 出牌 stays off
    and the rule is named; sent anyway (a page out of date), the server's sentence shows under the
    buttons and stays through the signs of life (every 2 s they redrew the
    board and wiped it: a tester saw nothing) until the player's next step;
    the cards stay picked. A pick the clock's pass overtakes goes with it, and
    the page says the clock acted."""
    me = Player.open(browser, "tiaozhan3", **PHONE)
    me.sign_up(site.base_url)
    page = me.page
    page.goto(site.base_url + "/challenge/")
    page.locator("#ch-start").click()
    page.wait_for_url("**/challenge/*/1/")
    board_url = page.url
    page.goto(site.base_url + "/challenge/")  # no sign of life while the board is rewritten
    triple = json.loads(site.manage("shell", "-c", FOLLOW_A_PAIR.format(name="tiaozhan3"))
                        .strip().splitlines()[-1])
    page.goto(board_url)
    page.locator("#ch-board[data-mine='1']").wait_for()
    for card in triple:
        page.locator(f"#ch-hand button[data-card='{card}']").click()
    # nothing in the hand beats the dao's pair: 提示 is off and says so, as at the table
    assert page.locator("#ch-hint").is_disabled()
    assert page.locator("#ch-hint").get_attribute("title") == "没有大得过桌上的牌，只能不要。"
    # not a legal play now: 出牌 is off, the three cards pressed, and after a
    # pause the page says which rule (…/why, the tutorial's sentence)
    assert page.locator("#ch-play").is_disabled()
    assert page.locator("#ch-hand .ch-card[aria-pressed='true']").count() == 3
    error = page.locator("#ch-error")
    page.wait_for_function("() => document.getElementById('ch-error').textContent !== ''")
    said = error.inner_text()
    assert said.startswith("规则 §3：对子只能被更大的对子"), said
    # a page out of date may still send one: the server refuses with the same sentence
    with page.expect_response(lambda r: r.url.endswith("/act") and r.status == 400):
        page.evaluate("() => { const b = document.getElementById('ch-play');"
                      " b.disabled = false; b.click(); }")
    assert error.inner_text() == said
    for _ in range(2):  # two signs of life answered since: the board redrawn
        with page.expect_response(lambda r: r.url.endswith("/sync") and r.ok):
            pass
    assert error.inner_text() == said
    assert page.locator("#ch-hand .ch-card.selected").count() == 3
    page.locator("#ch-clear").click()  # the player's next step: the sentence goes
    assert error.inner_text() == ""
    # a card picked, then the clock acts for the player at the next sign of
    # life: the pick was for that turn, and goes with it
    page.locator("#ch-hand .ch-card").first.click()
    seq = page.locator("#ch-board").get_attribute("data-seq")
    site.manage("shell", "-c", CLOCK_OUT.format(name="tiaozhan3"))
    page.wait_for_function(
        "seq => document.getElementById('ch-board').dataset.seq !== seq", arg=seq)
    assert page.locator("#ch-hand .ch-card.selected").count() == 0
    # and the page says the clock acted (it happened unseen)
    assert error.inner_text() == "时间到：已替你过牌（轮到你首出时随机出一张）。"
    _without_refusals(me)
    me.assert_clean()


def test_start_pressed_twice_asks_once_and_back_shows_continue(site, browser):
    """开始 double-clicked sends one request (the second was a 400); Back from
    the board shows the page as it is now, 继续, not the 开始 of before."""
    me = Player.open(browser, "tiaozhan4", **PHONE)
    me.sign_up(site.base_url)
    page = me.page
    page.goto(site.base_url + "/challenge/")
    start = page.locator("#ch-start")
    assert start.inner_text() == "开始"
    starts = []
    page.on("request", lambda r: starts.append(r.url) if r.url.endswith("/start") else None)
    start.dblclick()
    page.wait_for_url("**/challenge/*/1/")
    assert len(starts) == 1
    page.go_back()
    page.wait_for_url("**/challenge/")
    page.locator("#ch-start").wait_for()
    assert page.locator("#ch-start").inner_text() == "继续"
    assert page.locator("#ch-start").is_enabled()
    me.assert_clean()


def test_leave_for_now_frees_the_player_at_once(site, browser):
    """暂时离开 on a board in progress goes back to the challenge page (继续
    there) and the board holds the player no longer: a table they open at
    once seats them (not after the 10 s the clock's gap would take)."""
    me = Player.open(browser, "tiaozhan5", **PHONE)
    me.sign_up(site.base_url)
    page = me.page
    page.goto(site.base_url + "/challenge/")
    page.locator("#ch-start").click()
    page.wait_for_url("**/challenge/*/1/")
    page.wait_for_selector("#ch-board[data-mine='1']")
    leave = page.locator("#ch-leave")
    assert leave.inner_text() == "暂时离开"
    assert _no_horizontal_scroll(page)
    leave.click()
    page.wait_for_url("**/challenge/")
    assert page.locator("#ch-start").inner_text() == "继续"
    page.goto(site.base_url + "/")
    me.create_table("离开后开桌")
    page.locator('.seat.is-me[data-seat="0"]').wait_for(timeout=3000)
    me.assert_clean()
