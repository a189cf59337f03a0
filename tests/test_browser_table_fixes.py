"""Four things a tester found on the table page, in a real browser (Debian
chromium through Playwright), measured as a player sees them:

* the second half's score box: the big numbers are the running game totals
  (first half + this half, what the result depends on: RULES.md §6), this
  half's points in the small line, as the game-over box has them; compact on
  phones held either way;
* a reload (or Back) of a table whose last game is over shows its player the
  result panel again, with its result page and 复盘 links;
* on a 390 × 844 phone the 托管 badges of West and East stay inside their seats;
* at 1280 × 800 the 算牌器 in use leaves the chat level with the top of the
  table (it dropped ~170 px: it was sticky, and the page scrolled).

One site process (``manage.py runsite``, SQLite file of its own) serves the
module; each test signs up its own people. Playwright's sync API is driven
directly (NOTES.md).
"""

from __future__ import annotations

import json

import pytest

from tests.browser import NEEDS_CHROMIUM, Player
from tests.servers import Site
from tests.test_browser_phone import RECTS_JS

pytestmark = NEEDS_CHROMIUM

_names = iter(range(10_000))


def _phone(width: int, height: int, locale: str = "zh-CN") -> dict:
    return {"viewport": {"width": width, "height": height}, "is_mobile": True,
            "has_touch": True, "locale": locale}


DESKTOP = {"viewport": {"width": 1280, "height": 800}}


def _person(browser, base_url: str, device: dict) -> Player:
    me = Player.open(browser, f"tf{next(_names)}", **device)
    me.sign_up(base_url)
    return me


def _server(site: Site, code: str) -> str:
    """Run ``code`` in the site's own process; returns the last line it printed."""
    out = site.manage("shell", "-c", code).strip().splitlines()
    return out[-1] if out else ""


def _practice(me: Player, base_url: str) -> int:
    """和机器人练习 from the lobby (me at North, three bots): the game runs.
    Returns the table's id."""
    page = me.page
    page.goto(base_url + "/")
    page.locator("#practice-btn").click()
    page.wait_for_url("**/tables/*/")
    page.locator("#table-app[data-status=playing]").wait_for()
    return int(page.url.split("?")[0].rstrip("/").rsplit("/", 1)[1])


def _within(inner: dict, outer: dict) -> bool:
    return (inner["x"] >= outer["x"] - 0.5 and inner["right"] <= outer["right"] + 0.5
            and inner["y"] >= outer["y"] - 0.5 and inner["bottom"] <= outer["bottom"] + 0.5)


def _overlap(a: dict, b: dict) -> bool:
    return (a["x"] < b["right"] - 0.5 and b["x"] < a["right"] - 0.5
            and a["y"] < b["bottom"] - 0.5 and b["y"] < a["bottom"] - 0.5)


# The s3 deal of tests/page_states.py played by the heuristic bot into its
# second half until points were captured there and North (me) is to move; the
# table's running game replaced by it, my clock ten minutes (the page reloads
# to it). Prints the first
# half's points per team and this half's captures per seat.
SECOND_HALF = """
import json, random
from datetime import timedelta
from django.utils import timezone
from games import engine
from games.models import Game, Table
state = engine.new_game("s3", levels=[0, 0, 0, 0])
rng = random.Random("s3")
while (state["half"] == 1 or not (state["captured"][0] + state["captured"][2] > 0
       and state["captured"][1] + state["captured"][3] > 0) or state["turn"] != 0):
    seat = state["turn"]
    state, _ = engine.apply(state, seat,
                            engine.heuristic_policy(engine.view(state, seat), rng))
    assert state["status"] == engine.PLAYING
table = Table.objects.get(pk=%(table)d)
Game.objects.filter(pk=table.current_game_id).update(
    state=state, seq=state["seq"], due_at=timezone.now() + timedelta(minutes=10))
print(json.dumps([state["halves"][0]["points"], state["captured"]]))
"""

SCORES_JS = """() => Object.fromEntries([...document.querySelectorAll('#scores .score')].map(b =>
  [b.dataset.team, {points: b.querySelector('.score-points').textContent,
                    lines: [...b.querySelectorAll('.score-last')].map(e => e.textContent),
                    title: b.title}]))"""

# every piece of the info bar's text that shows: its rectangle, and whether its
# box cuts it
INFO_LEAVES_JS = """() => {
  const box = e => { const r = e.getBoundingClientRect();
    return {x: r.left, y: r.top, right: r.right, bottom: r.bottom, w: r.width, h: r.height}; };
  const bar = document.getElementById('game-info');
  return {bar: box(bar), width: innerWidth, leaves: [...bar.querySelectorAll(
      '.dao-text, #indicator-seat, #half-label, #stake, .score-label, .score-points, .score-last')]
    .filter(e => e.getClientRects().length).map(e => ({name: e.id || e.className,
      r: box(e), clipped: e.scrollWidth > e.clientWidth + 1}))};
}"""


@pytest.mark.parametrize("device", [_phone(360, 740), _phone(740, 360)],
                         ids=["360x740", "740x360"])
def test_the_second_half_shows_the_games_running_totals(site, browser, device):
    """In the second half the big numbers are each team's game total so far
    (first half + this half), this half's points the small line (its title
    says both halves); the bar stays whole and inside the screen."""
    me = _person(browser, site.base_url, device)
    page = me.page
    table_id = _practice(me, site.base_url)
    first, captured = json.loads(_server(site, SECOND_HALF % {"table": table_id}))
    page.reload()
    page.locator("#half-label", has_text="下半局").wait_for()
    this_half = [captured[0] + captured[2], captured[1] + captured[3]]
    scores = page.evaluate(SCORES_JS)
    for t in (0, 1):
        assert scores[str(t)] == {
            "points": str(first[t] + this_half[t]),
            "lines": [f"下半局 {this_half[t]}"],
            "title": f"上半局 {first[t]} + 下半局 {this_half[t]}",
        }, (t, first, this_half, scores)
    scores_box = page.locator("#scores")  # named for what it counts now: the game
    assert scores_box.get_attribute("aria-label") == scores_box.get_attribute("data-game-label")
    page.evaluate("window.scrollTo(0, 0)")
    seen = page.evaluate(INFO_LEAVES_JS)
    assert seen["bar"]["right"] <= seen["width"] + 0.5, seen
    leaves = seen["leaves"]
    landscape = device["viewport"]["width"] > device["viewport"]["height"]
    assert len([x for x in leaves if x["name"] == "score-last"]) == (0 if landscape else 2), leaves
    for i, a in enumerate(leaves):
        assert a["r"]["w"] > 0, a
        assert not a["clipped"], a
        assert _within(a["r"], seen["bar"]), (a, seen["bar"])
        for b in leaves[i + 1:]:
            assert not _overlap(a["r"], b["r"]), (a, b)
    me.assert_clean()


def test_a_reload_of_a_finished_game_shows_its_result_and_links(site, browser):
    """After the game's end, a reload and a Back to the table show its player
    the result panel again, with the result page and 复盘 (a tester's
    reloaded page had only 本局结束 and the scores)."""
    me = _person(browser, site.base_url, DESKTOP)
    page = me.page
    table_id = _practice(me, site.base_url)
    _server(site, f"from tests.page_states import install; install({table_id}, 'two_halves')")
    page.reload()
    panel = page.locator("#result-panel")
    panel.wait_for(state="visible")
    game_id = panel.get_attribute("data-game-id")
    table_url = page.url

    def links_shown(when: str) -> None:
        panel.wait_for(state="visible")
        assert panel.get_attribute("data-game-id") == game_id, when
        assert panel.locator(".result-headline").inner_text(), when
        link, review = page.locator("#result-link"), page.locator("#review-link")
        assert link.is_visible(), when
        assert review.is_visible(), when
        assert link.get_attribute("href") == f"/games/{game_id}/", when
        assert review.get_attribute("href") == f"/games/{game_id}/review/?ask=1", when

    links_shown("first")
    page.reload()
    links_shown("reloaded")
    page.goto(site.base_url + "/")
    page.go_back()
    page.wait_for_url(table_url)
    links_shown("back")
    # 关闭 closes it on this page
    page.locator("#result-close").click()
    panel.wait_for(state="hidden")
    me.assert_clean()


# Two people (not bots) take East and West of the running game, both on 托管.
AUTO_SIDES = """
from django.contrib.auth.models import User
from games import events
from games.models import GameSeat, Seat, Table
table = Table.objects.get(pk=%(table)d)
for i, name in ((1, "east_is_away_%(table)d"), (3, "west_%(table)d")):
    user = User.objects.create_user(name, password="x")
    Seat.objects.filter(table=table, index=i).update(user=user, is_bot=False, bot_policy="")
    GameSeat.objects.filter(game=table.current_game, index=i).update(
        user=user, username=name, bot="", auto_play=True)
events.publish(events.TableChanged(table.pk))
"""

BADGES_JS = """() => [1, 3].map(i => {
  const seat = document.querySelector(`.seat[data-seat="${i}"]`);
  const badge = seat.querySelector('.badge.auto');
  const box = e => { const r = e.getBoundingClientRect();
    return {x: r.left, y: r.top, right: r.right, bottom: r.bottom, w: r.width, h: r.height}; };
  return {seat: i, pos: seat.dataset.pos, auto: seat.classList.contains('is-auto'),
          text: badge && badge.textContent, box: box(seat), badge: badge && box(badge),
          clipped: !!badge && (badge.scrollWidth > badge.clientWidth + 1
                               || badge.scrollHeight > badge.clientHeight + 1)};
})"""


@pytest.mark.parametrize("device", [_phone(390, 844, "zh-CN"), _phone(390, 844, "en-US")],
                         ids=["390x844-zh", "390x844-en"])
def test_side_seats_auto_play_badges_fit_on_a_phone(site, browser, device):
    """West and East on 托管 on a 390 × 844 phone: each seat's badge is whole
    and inside its seat's box ("Auto-play" stuck out of the right edge)."""
    me = _person(browser, site.base_url, device)
    page = me.page
    table_id = _practice(me, site.base_url)
    _server(site, AUTO_SIDES % {"table": table_id})
    page.reload()
    page.locator("#table-app[data-status=playing]").wait_for()
    page.wait_for_function("() => document.querySelectorAll('.seat.is-auto').length === 2")
    word = "托管" if device["locale"] == "zh-CN" else "Auto-play"
    for seen in page.evaluate(BADGES_JS):
        assert seen["pos"] in ("left", "right"), seen
        assert seen["auto"], seen
        assert seen["text"] == word, seen
        assert seen["badge"]["w"] > 0, seen
        assert _within(seen["badge"], seen["box"]), seen
        assert not seen["clipped"], seen
    me.assert_clean()


def test_the_card_counter_leaves_the_chat_level_with_the_table(site, browser):
    """1280 × 800: the chat's top is the table bar's before the 算牌器 is used,
    after it (the page scrolled to its button and the counter came in above
    the hand) and scrolled to the bottom of the page."""
    me = _person(browser, site.base_url, DESKTOP)
    page = me.page
    page.goto(site.base_url + "/shop/")
    page.locator('.catalogue-item[data-item="card_counter"] button[type=submit]').click()
    page.wait_for_load_state()
    _practice(me, site.base_url)
    assert me.wait_turn_or_over() == "turn"

    def level(when: str) -> None:
        r = page.evaluate(RECTS_JS, [".table-bar", ".chat", "#felt"])
        assert r[".chat"]["h"] > 0, (when, r)
        assert abs(r[".chat"]["y"] - r[".table-bar"]["y"]) <= 1, (when, r)
        assert r[".chat"]["x"] >= r["#felt"]["right"], (when, r)  # beside the table

    level("before")
    page.locator("#use-counter").scroll_into_view_if_needed()  # below the hand
    level("scrolled to the items")
    page.locator("#use-counter").click()
    page.locator("#card-counter:not([hidden]) .cc-group").first.wait_for()
    level("counter shown")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    level("scrolled down")
    me.assert_clean()
