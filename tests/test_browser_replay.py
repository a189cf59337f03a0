"""The replay page in a real browser (Debian chromium through Playwright): it
draws the table — four seats 北东南西 with their hands as card faces, the
trick, the scores — step by step with buttons and keys, titled with the
table's name as the game was played, on a desktop (1366×800) and a 360×740
touch phone.

One site process (``manage.py runsite``, SQLite file of its own) serves the
module; the finished game and its replay are made in the site's own process
(``tests.page_states.saved_replay``). Playwright's sync API is driven
directly (NOTES.md).
"""

from __future__ import annotations

from tests.browser import DESKTOP, DEVICES, NEEDS_CHROMIUM, Player

pytestmark = NEEDS_CHROMIUM

IN_VIEW_JS = """sel => {
  const r = document.querySelector(sel).getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0 &&
    r.right <= innerWidth && r.bottom <= innerHeight;
}"""
NO_SIDEWAYS_JS = "() => document.documentElement.scrollWidth <= innerWidth"
# cards left per seat, by seat index
COUNTS_JS = """() => Object.fromEntries([...document.querySelectorAll('.replay-seat')].map(
  s => [s.dataset.seat, Number(s.querySelector('.replay-count').dataset.n)]))"""


def _step(page) -> tuple[int, int]:
    at, total = page.locator("#replay-step").inner_text().split("/")
    return int(at), int(total)


@DEVICES
def test_the_replay_draws_the_table_step_by_step(site, browser, device):
    prefix = "rp" + ("d" if device is DESKTOP else "p")
    out = site.manage("shell", "-c", "from tests.page_states import saved_replay; "
                                     f"print(saved_replay({prefix!r}, '旧桌名', '新桌名'))")
    token = out.strip().splitlines()[-1]
    me = Player.open(browser, "viewer", **device)
    page = me.page
    page.goto(f"{site.base_url}/replays/{token}/")  # anyone with the link, logged out

    # titled as it was played, not with the table's current name
    title = page.locator("#replay-title").inner_text()
    assert "旧桌名" in title
    assert "新桌名" not in title
    assert "旧桌名" in page.title()

    # four seats, the saver (South) at the bottom, counterclockwise play
    where = {pos: page.locator(f'.replay-seat[data-pos="{pos}"] .replay-compass').inner_text()
             for pos in ("top", "left", "right", "bottom")}
    assert where == {"top": "北", "left": "西", "right": "东", "bottom": "南"}
    assert f"{prefix}2" in page.locator('.replay-seat[data-pos="bottom"]').inner_text()
    # the deal: every card as a face (rank and suit, jokers named), 162 in all
    assert _step(page)[0] == 0
    assert sum(page.evaluate(COUNTS_JS).values()) == 162
    faces = page.locator(".replay-hand .pcard")
    assert faces.count() == 162
    labels = set(faces.evaluate_all("els => els.map(e => e.getAttribute('aria-label'))"))
    assert {"大王", "小王"} <= labels
    assert any(label.endswith("♠") for label in labels)
    assert "0" in page.locator("#replay-score").inner_text()
    assert page.evaluate(NO_SIDEWAYS_JS)
    assert page.evaluate(IN_VIEW_JS, "#replay-forward")  # the controls stay on screen

    # a key steps forward: the lead is on the table and out of its hand
    page.keyboard.press("ArrowRight")
    assert _step(page)[0] == 1
    lead = page.locator(".replay-slot.is-last .pcard")
    played = lead.count()
    assert played >= 1
    assert sum(page.evaluate(COUNTS_JS).values()) == 162 - played
    assert page.locator("#replay-action").inner_text().count(":") == 1
    # the buttons: forward, back
    page.locator("#replay-forward").click()
    assert _step(page)[0] == 2
    page.locator("#replay-back").click()
    page.locator("#replay-back").click()
    assert _step(page)[0] == 0
    assert page.locator("#replay-back").is_disabled()
    # a jump to trick 3, then End: the last step shows the halves' scores
    page.locator("#replay-trick").select_option("3")
    assert "第 3 墩" in page.locator("#replay-half").inner_text()
    page.locator("#replay-title").click()  # the keys are the page's, not the select's
    page.keyboard.press("End")
    at, total = _step(page)
    assert at == total
    assert page.locator("#replay-forward").is_disabled()
    halves = page.locator("#replay-halves").inner_text()
    assert "上半局" in halves
    assert "南北" in halves
    assert "东西" in halves
    page.keyboard.press("Home")
    assert _step(page)[0] == 0
    # play runs by itself, and pauses
    page.locator("#replay-play").click()
    page.wait_for_function("() => document.getElementById('replay-step')"
                           ".textContent.startsWith('2 /')")
    page.locator("#replay-play").click()
    assert page.locator("#replay-play").inner_text() == "播放"
    assert page.evaluate(NO_SIDEWAYS_JS)
    me.assert_clean()
