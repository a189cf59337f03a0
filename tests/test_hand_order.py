"""Every place that shows a hand shows it as the table does (static/js/state.js
displayHand): strongest first, the jokers apart at the right end, the weak end
(a lone joker plays as the lowest 3, RULES.md §3). The server's order is
``games.results.hand_as_shown``; the pages that draw a hand in JS use
``handOrder`` / ``handRow`` of static/js/cards.js.

Unit tests (SQLite): the function and the result page's 剩余手牌. Browser
tests (Debian chromium, one embedded site, seeds that put jokers in a hand):
the table's result panel, the 录像 replay, a closed daily challenge board
(the hand and its replay) and the 复盘 step-through. Last, the hand's caption
("手牌 41 张") sits clear below its cards on phones and a desktop.
"""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from games import engine
from games.models import Game
from games.results import hand_as_shown
from tests import helpers
from tests.browser import DESKTOP, NEEDS_CHROMIUM, PHONE, Player
from tests.page_states import played

JOKERS = ("RJ", "BJ")


def table_order(hand: list[str]) -> list[str]:
    """The table's order of a hand sent weakest first (as the challenge board's
    browser test states it, tests/test_browser_challenge.py)."""
    return ([c for c in reversed(hand) if c not in JOKERS]
            + [c for c in reversed(hand) if c in JOKERS])


def test_hand_as_shown_is_strongest_first_with_the_jokers_apart_at_the_right():
    assert hand_as_shown(["3C", "RJ", "AS", "BJ", "5D"], "5") == ["5D", "AS", "3C", "RJ", "BJ"]
    assert hand_as_shown(["BJ", "RJ", "BJ"], "7") == ["RJ", "BJ", "BJ"]
    assert hand_as_shown([], "7") == []
    for hand in engine.deal_half("order", 1).hands:
        ranked = engine.sort_hand(hand, "9")
        assert hand_as_shown(hand, "9") == table_order(ranked)


@pytest.mark.django_db
def test_the_result_pages_hands_left_put_the_jokers_at_the_right(client):
    """Seed s1 ends with the tens and jacks and a big joker in North's hand."""
    game = helpers.start_game(helpers.make_players(4, "ho"))
    state = played("s1")
    Game.objects.filter(pk=game.pk).update(state=state, seq=state["seq"], status=Game.OVER,
                                           due_at=None, settled=True)
    html = client.get(reverse("game_result", args=[game.pk])).content.decode()
    section = html[html.index('class="result-hands"'):]
    section = section[:section.index("</section>")]
    shown = re.findall(r'data-card="(\w\w)"', section)
    left = state["hands"][0]
    assert "RJ" in left
    assert len(left) > 1
    assert shown == hand_as_shown(left, state["dao"]) == table_order(left), shown
    assert shown[-1] == "RJ"


# --- in the browser -------------------------------------------------------------

HAND_JS = "sel => [...document.querySelectorAll(sel)].map(e => e.dataset.card)"


def _server(site, code: str) -> str:
    """Run ``code`` in the site's own process; the last line it printed."""
    return site.manage("shell", "-c", code).strip().splitlines()[-1]


@NEEDS_CHROMIUM
def test_the_tables_result_panel_shows_the_hands_left_as_at_the_table(site, browser):
    me = Player.open(browser, "horesult", **DESKTOP)
    me.sign_up(site.base_url)
    me.create_table("顺序桌")
    table_id = int(me.page.url.rstrip("/").rsplit("/", 1)[1])
    me.sit(2)
    me.add_bots()
    me.ready()
    me.page.locator("#table-app[data-status=playing]").wait_for()
    _server(site, f"from tests.page_states import install; install({table_id}, 'clamp_under')")
    me.page.reload()
    me.page.locator("#result-panel").wait_for(state="visible")
    left = played("s1")["hands"][0]
    shown = me.page.evaluate(HAND_JS, "#result-panel .result-hands .pcard")
    assert shown == table_order(left), shown
    me.assert_clean()


@NEEDS_CHROMIUM
def test_the_replay_draws_each_hand_as_at_the_table(site, browser):
    token = _server(site, "from tests.page_states import saved_replay; "
                          "print(saved_replay('horp', '顺序', '顺序'))")
    me = Player.open(browser, "horeplay", **DESKTOP)
    page = me.page
    page.goto(f"{site.base_url}/replays/{token}/")
    deal = json.loads(page.locator("#replay-deals").text_content())[0]
    for seat, hand in enumerate(deal["hands"]):
        shown = page.evaluate(HAND_JS, f'.replay-hand[data-seat="{seat}"] .pcard')
        assert shown == table_order(hand), (seat, shown)
    me.assert_clean()


@NEEDS_CHROMIUM
def test_a_closed_challenge_board_shows_the_hands_as_during_play(site, browser):
    me = Player.open(browser, "hoboard", **PHONE)
    me.sign_up(site.base_url)
    day = _server(site, "from tests.page_states import closed_board; "
                        f"print(closed_board({me.name!r}))")
    page = me.page
    page.goto(f"{site.base_url}{day}1/")
    frame = json.loads(page.locator("#ch-frame").text_content())
    assert frame["status"] == "done"
    assert frame["closed"]
    shown = page.evaluate(HAND_JS, "#ch-hand .ch-card")
    assert shown == table_order(frame["hand"]), shown
    # the replay's four hands as dealt, as text: "南：K♠ K♥ … 大王"
    names = {"RJ": "大王", "BJ": "小王"}
    suits = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}

    def text(c: str) -> str:
        return names.get(c) or ("10" if c[0] == "T" else c[0]) + suits[c[1]]

    lines = page.locator("#ch-replay-hands li").all_inner_texts()
    for line, hand in zip(lines, frame["hands"], strict=True):
        assert line.split("：", 1)[1].split() == [text(c) for c in table_order(hand)], line
    me.assert_clean()


# a practice game of {name}'s with a joker among other cards in their first
# deal (a new game until one has), and a done review of it with nothing judged
REVIEWED = """
from django.contrib.auth import get_user_model
from django.utils import timezone
from games.models import Game, GameReview
from tests.page_states import finished_practice
while True:
    game = Game.objects.get(pk=finished_practice({name!r}))
    hand = game.record["halves"][0]["hands"][0]
    if any(c in ("RJ", "BJ") for c in hand):
        break
GameReview.objects.create(
    game=game, ref=game.pk, seat=0, user=get_user_model().objects.get(username={name!r}),
    status="done", finished_at=timezone.now(),
    result={{"judged": [], "costliest": [], "accuracy": 1.0, "thresholds": [10, 25, 50],
             "counts": {{"good": 0, "inexact": 0, "mistake": 0, "blunder": 0}}}})
print(game.pk)
"""


@NEEDS_CHROMIUM
def test_the_review_shows_the_hand_as_at_the_table(site, browser):
    me = Player.open(browser, "horeview", **DESKTOP)
    me.sign_up(site.base_url)
    game_id = _server(site, REVIEWED.format(name=me.name))
    page = me.page
    page.goto(f"{site.base_url}/games/{game_id}/review/")
    page.locator("#review-hand .pcard").first.wait_for()
    assert page.locator("#review").get_attribute("data-step") == "0"
    hand = json.loads(page.locator("#review-data").text_content())[0]["hand"]
    assert any(c in JOKERS for c in hand)
    shown = page.evaluate(HAND_JS, "#review-hand .pcard")
    assert shown == table_order(hand), shown
    me.assert_clean()


# --- the hand's caption ("手牌 41 张") -------------------------------------------

# How far the caption sits below the lowest card of #hand, in px (negative: it
# overlaps a card's row), and how far inside the hand's box it ends.
CAPTION_JS = """() => {
  const count = document.querySelector('#hand .hand-count').getBoundingClientRect();
  const box = document.getElementById('hand').getBoundingClientRect();
  const low = Math.max(...[...document.querySelectorAll('#hand .pcard')]
                       .map((c) => c.getBoundingClientRect().bottom));
  return {gap: count.top - low, inside: box.bottom - count.bottom, height: count.height,
          below: box.bottom - low};
}"""
PHONE_390 = {**PHONE, "viewport": {"width": 390, "height": 844}}
LANDSCAPE = {**PHONE, "viewport": {"width": 844, "height": 390}}


@NEEDS_CHROMIUM
@pytest.mark.parametrize("device", [PHONE_390, PHONE, LANDSCAPE, DESKTOP],
                         ids=["390", "360", "landscape", "desktop"])
def test_the_hand_count_sits_clear_below_the_cards(site, browser, device):
    """A tester's 390×844 phone at a practice table: "手牌 41 张" touched the
    lower edge of the last card (a joker). It sits below every card's row: 3
    px clear, 1 px on a landscape phone, whose screen has no pixel to spare
    (tests/test_browser_phone.py test_landscape_fits_one_screen)."""
    size = device["viewport"]
    me = Player.open(browser, f"hocount{size['width']}x{size['height']}", **device)
    me.sign_up(site.base_url)
    me.page.locator("#practice-btn").click()
    me.page.wait_for_url("**/tables/*/")
    me.page.locator("#table-app[data-status=playing]").wait_for(timeout=60_000)
    me.page.locator("#hand .hand-count").wait_for()
    assert "张" in me.page.locator("#hand .hand-count").inner_text()
    where = me.page.evaluate(CAPTION_JS)
    assert where["gap"] >= (1 if device is LANDSCAPE else 3), where
    assert where["inside"] >= 0, where
    me.assert_clean()
