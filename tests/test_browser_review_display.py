"""复盘's step-through as a tester read it, in a real browser (Debian chromium
through Playwright): a 390×844 phone in English and a 1366×800 desktop in
Chinese, on one finished practice game reviewed by the site's embedded worker
(as in tests/test_browser_review.py, with the same cheap review budget).

What they found and what is held here: a seat's count in its language's
plural ("1 card", "40 cards"; "1 张"); the end of a half readable on the felt
(contrast at least 4.5:1, computed from the colours drawn); the six step
buttons in one row; on a phone a step shows on the board without scrolling
(the step bar held at the screen's foot under the board, the board brought
into view when it is off screen), on a desktop too; and every row of the hand
starting at the panel's edge. Playwright's sync API is driven directly
(NOTES.md).
"""

from __future__ import annotations

import pytest

from tests.browser import DESKTOP, NEEDS_CHROMIUM, Player

pytestmark = NEEDS_CHROMIUM

PHONE_390 = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}

NO_SIDEWAYS_JS = "() => document.documentElement.scrollWidth <= innerWidth"

# the step buttons: one row, inside the screen, each wide enough for a thumb
BUTTONS_JS = """() => {
  const b = [...document.querySelectorAll('.review-controls button')]
    .map((e) => e.getBoundingClientRect());
  return {n: b.length, rows: new Set(b.map((r) => Math.round(r.top))).size,
          right: Math.max(...b.map((r) => r.right)) <= innerWidth,
          narrowest: Math.min(...b.map((r) => r.width))};
}"""

# each row of the hand: how far its first card starts from the hand's own left
HAND_ROWS_JS = """() => {
  const hand = document.getElementById('review-hand').getBoundingClientRect();
  const first = new Map();
  document.querySelectorAll('#review-hand .pcard').forEach((c) => {
    const r = c.getBoundingClientRect();
    const top = Math.round(r.top);
    if (!first.has(top)) first.set(top, r.left - hand.left);
  });
  return [...first.values()];
}"""

# the board (and the verdict under it, when shown) between the screen's top
# and the step bar, when the bar is under the board (a phone), else the foot
BOARD_IN_VIEW_JS = """() => {
  const felt = document.getElementById('review-felt').getBoundingClientRect();
  const box = document.getElementById('review-judgement');
  const bottom = (box.hidden ? felt : box.getBoundingClientRect()).bottom;
  const nav = document.getElementById('review-nav').getBoundingClientRect();
  const foot = nav.top > felt.top ? nav.top : innerHeight;
  const navSeen = nav.top >= 0 && nav.bottom <= innerHeight + 0.5;
  return felt.top >= 0 && bottom <= foot + 0.5 && navSeen;
}"""

# WCAG's contrast ratio of an element's text against what is drawn under it:
# its own and its ancestors' background colours composited over white
CONTRAST_JS = """(id) => {
  const rgba = (c) => { const m = c.match(/[\\d.]+/g).map(Number);
                        return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const target = document.getElementById(id);
  const layers = [];
  for (let e = target; e; e = e.parentElement) {
    const bg = rgba(getComputedStyle(e).backgroundColor);
    if (bg[3] > 0) layers.push(bg);
    if (bg[3] >= 1) break;
  }
  let under = [255, 255, 255];
  layers.reverse().forEach(([r, g, b, a]) => {
    under = [r, g, b].map((v, i) => v * a + under[i] * (1 - a));
  });
  const lum = (rgb) => {
    const [r, g, b] = rgb.map((v) => { v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const a = lum(rgba(getComputedStyle(target).color).slice(0, 3)), b = lum(under);
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""

# a long summary above the step-through (many costly moments), whatever this
# game's: room to scroll the step-through to the screen's foot
LONG_SUMMARY_JS = "() => { document.getElementById('review-steps').style.marginTop = '1200px'; }"

STEP_COUNTS_JS = ("() => JSON.parse(document.getElementById('review-data').textContent)"
                  ".map((s) => s.counts)")


@pytest.fixture(scope="module")
def site():
    from tests.servers import Site

    site = Site(env={"GAMES_REVIEW_SAMPLES": "2", "GAMES_REVIEW_BUDGET": "0",
                     "GAMES_REVIEW_WIDTH": "2",
                     "GAMES_REVIEW_PLAYOUT": "normal", "GAMES_REVIEW_RUNNER": "process"})
    try:
        yield site.wait_listening()
    finally:
        site.stop()


@pytest.fixture(scope="module")
def reviewed(site, browser, tmp_path_factory) -> tuple[str, str]:
    """The review page of a finished practice game, made, and the storage
    state (the session cookie) of its player."""
    me = Player.open(browser, "rvshow", **PHONE_390)
    me.sign_up(site.base_url)
    out = site.manage("shell", "-c", "from tests.page_states import finished_practice; "
                                     f"print(finished_practice({me.name!r}))")
    url = site.url(f"/games/{int(out.strip().splitlines()[-1])}/review/")
    me.page.goto(url + "?ask=1")
    me.page.locator("#review-summary").wait_for(timeout=120_000)
    state = tmp_path_factory.mktemp("review") / "state.json"
    me.page.context.storage_state(path=str(state))
    me.page.context.close()
    return url, str(state)


def _open(browser, reviewed, locale: str, device: dict) -> Player:
    url, state = reviewed
    me = Player.open(browser, "rvshow", storage_state=state, locale=locale, **device)
    me.page.goto(url)
    me.page.locator("#review-hand .pcard").first.wait_for()
    return me


def _step_to(page, step: int, last: int) -> None:
    """Step with the keys (← →, from Home or End) to ``step``."""
    if step <= last - step:
        page.keyboard.press("Home")
        for _ in range(step):
            page.keyboard.press("ArrowRight")
    else:
        page.keyboard.press("End")
        for _ in range(last - step):
            page.keyboard.press("ArrowLeft")
    assert page.locator("#review").get_attribute("data-step") == str(step)


def _assert_layout(page) -> None:
    page.keyboard.press("Home")  # the dealt hand, which wraps on every screen
    buttons = page.evaluate(BUTTONS_JS)
    assert buttons["n"] == 6, buttons
    assert buttons["rows"] == 1, buttons
    assert buttons["right"], buttons
    assert buttons["narrowest"] >= 40, buttons
    rows = page.evaluate(HAND_ROWS_JS)
    assert len(rows) >= 2, rows  # the fault was in the second row
    assert all(abs(x) <= 0.5 for x in rows), rows


def _assert_half_end_readable(page, text: str) -> None:
    page.keyboard.press("End")
    end = page.locator("#review-half-end")
    assert end.is_visible()
    assert text in end.inner_text()
    ratio = page.evaluate(CONTRAST_JS, "review-half-end")
    assert ratio >= 4.5, ratio


def test_a_phone_shows_each_step_on_the_board(reviewed, browser):
    me = _open(browser, reviewed, "en-US", PHONE_390)
    page = me.page
    _assert_layout(page)
    assert page.evaluate(NO_SIDEWAYS_JS)

    # scrolled as the tester was: the step-through just begun at the foot of
    # the screen, the board under it; the step bar is held at the foot
    page.evaluate(LONG_SUMMARY_JS)
    page.evaluate("""() => scrollBy(0, document.getElementById('review-steps')
        .getBoundingClientRect().top - innerHeight + 150)""")
    assert not page.evaluate(BOARD_IN_VIEW_JS)
    nav = page.locator("#review-nav").bounding_box()
    assert nav["y"] + nav["height"] <= 844.5, nav
    assert nav["y"] < 844 - 40, nav
    first = page.locator("#review-step").inner_text()
    page.locator("#review-forward").tap()
    assert page.locator("#review-step").inner_text() != first
    page.wait_for_function(BOARD_IN_VIEW_JS)
    # the next decision's verdict too, under the board, above the bar
    page.locator("#review-next-mine").tap()
    assert page.locator("#review-judgement").is_visible()
    page.wait_for_function(BOARD_IN_VIEW_JS)

    # each seat's count in English's plural: "1 card", "40 cards"
    counts = page.evaluate(STEP_COUNTS_JS)
    at = int(page.locator("#review").get_attribute("data-step"))

    def words(ns):
        return [f"{n} card" if n == 1 else f"{n} cards" for n in ns]

    assert page.locator(".review-seat-count").all_inner_texts() == words(counts[at])
    one = next((i for i, c in enumerate(counts) if 1 in c), None)
    if one is not None:  # a seat down to its last card (nearly every game)
        _step_to(page, one, len(counts) - 1)
        chips = page.locator(".review-seat-count").all_inner_texts()
        assert chips == words(counts[one]), chips
        assert "1 card" in chips, chips

    _assert_half_end_readable(page, "The half is over")
    assert page.evaluate(NO_SIDEWAYS_JS)
    me.assert_clean()


def test_a_desktop_reads_the_same(reviewed, browser):
    me = _open(browser, reviewed, "zh-CN", DESKTOP)
    page = me.page
    _assert_layout(page)
    counts = page.evaluate(STEP_COUNTS_JS)
    at = int(page.locator("#review").get_attribute("data-step"))
    assert page.locator(".review-seat-count").all_inner_texts() == [f"{n} 张" for n in counts[at]]
    # the step bar at the screen's foot, the board under it: a step brings
    # the bar and the board (and the verdict) into view
    page.evaluate(LONG_SUMMARY_JS)
    page.evaluate("""() => scrollBy(0, document.getElementById('review-nav')
        .getBoundingClientRect().bottom - innerHeight + 4)""")
    assert not page.evaluate(BOARD_IN_VIEW_JS)
    page.locator("#review-forward").click()
    page.wait_for_function(BOARD_IN_VIEW_JS)
    _assert_half_end_readable(page, "本半局结束")
    me.assert_clean()
