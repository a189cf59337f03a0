"""Practice games in a real browser (Debian chromium through Playwright): the lobby's
和机器人练习 button on a desktop (1366×800) and a 360×740 touch phone, and a
result panel that never opens for a game the viewer was not part of.

One site process (``manage.py runsite``, SQLite file of its own) serves the
whole module; each test signs up its own people. Playwright's sync API is
driven directly (NOTES.md).
"""

from __future__ import annotations

from tests.browser import DESKTOP, DEVICES, NEEDS_CHROMIUM, PHONE, Player

pytestmark = NEEDS_CHROMIUM

# The element's rectangle lies inside the viewport, and the page does not
# scroll sideways.
IN_VIEW_JS = """sel => {
  const r = document.querySelector(sel).getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0 &&
    r.right <= innerWidth && r.bottom <= innerHeight &&
    document.documentElement.scrollWidth <= innerWidth;
}"""


_names = iter(range(10_000))


def _person(browser, base_url: str, device: dict) -> Player:
    me = Player.open(browser, f"p16u{next(_names)}", **device)
    me.sign_up(base_url)
    return me


def _table_id(player: Player) -> int:
    return int(player.page.url.split("?")[0].rstrip("/").rsplit("/", 1)[1])


def _practice(me: Player, level: str) -> None:
    """From the lobby: pick the bots' level, one click: a practice game runs."""
    page = me.page
    page.locator("#practice-level").select_option(level)
    page.locator("#practice-btn").click()
    page.wait_for_url("**/tables/*/")
    page.locator("#table-app[data-status=playing]").wait_for()


@DEVICES
def test_practice_with_bots_is_one_click_to_a_started_game(site, browser, device):
    me = _person(browser, site.base_url, device)
    page = me.page
    button = page.locator("#practice-btn")
    assert button.inner_text() == "和机器人练习"
    assert page.evaluate(IN_VIEW_JS, "#practice-btn")
    assert page.evaluate(IN_VIEW_JS, "#practice-level")
    levels = page.locator("#practice-level option").all_inner_texts()
    assert levels == ["新手", "普通", "高手", "大师"]
    _practice(me, "expert")
    # seated at North with three 高手 bots; my hand is dealt; a practice game
    page.locator('.seat.is-me[data-seat="0"]').wait_for()
    bots = page.locator(".seat.is-bot")
    assert bots.count() == 3
    assert all("高手" in t for t in bots.all_inner_texts())
    page.locator("#hand .pcard").first.wait_for()
    assert page.locator("#hand .pcard").count() in (40, 41)
    assert page.locator("#stake").inner_text() == "练习局"
    tid = _table_id(me)
    # stored in both languages, shown in the page's (games/names.py)
    assert page.locator("#table-name").inner_text() == f"练习桌 {tid}"

    # one seat per person: from the running game, the button is refused clearly
    page.goto(site.base_url + "/")
    page.locator("#practice-btn").click()
    page.wait_for_url(site.base_url + "/")
    error = page.locator(".messages .message.error")
    assert "打练习局：回到那里点离开即可（不罚）" in error.inner_text()
    assert "练习桌" in error.inner_text()
    assert me.toasts() == []
    me.assert_clean()


def test_no_old_result_for_someone_who_arrives_after_the_game(site, browser):
    """A tester landed at someone else's finished bot table and was shown its
    result. The game's own player sees the result; someone who opens
    the table after it ended does not, and quick start never seats them there."""
    me = _person(browser, site.base_url, DESKTOP)
    _practice(me, "beginner")
    table_id = _table_id(me)
    site.manage("shell", "-c", "from tests.page_states import install; "
                               f"install({table_id}, 'two_halves')")
    me.page.reload()
    me.page.locator("#result-panel").wait_for(state="visible")

    other = _person(browser, site.base_url, PHONE)
    page = other.page
    page.goto(f"{site.base_url}/tables/{table_id}/")
    other.wait_connected()
    page.locator("#table-app[data-status=over]").wait_for()
    assert page.locator("#result-panel").is_hidden()
    # 快速开始: not the practice table; their own, waiting for people
    page.goto(site.base_url + "/")
    page.locator("#quick-start-btn").click()
    page.wait_for_url("**/tables/*/?waiting=1")
    other.wait_connected()
    assert _table_id(other) != table_id
    page.locator('.seat.is-me[data-seat="0"]').wait_for()
    assert page.locator("#result-panel").is_hidden()
    for p in (me, other):
        p.assert_clean()
