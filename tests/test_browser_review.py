"""复盘 in a real browser (Debian chromium through Playwright), on a desktop
(1366×800) and a 360×740 touch phone: a finished practice game's result page
offers the review; asked for, the page shows its progress while the embedded
review worker (runsite's own child process, ``manage.py reviewworker``) makes
it, then the summary (accuracy, labels, the thresholds) and a step-through of
the game with the player's own hand, without scrolling sideways.

One site process (``manage.py runsite``, SQLite file of its own) with a cheap
review budget (two sampled deals, two alternatives, the normal bot's
play-outs); the practice game is played to its end in the site's own process
(``tests.page_states.finished_practice``). Last, a daily challenge board,
played and its day closed in the site's own process
(``tests.page_states.closed_board``), reviewed from the day's page on a phone.
Playwright's sync API is driven directly (NOTES.md).
"""

from __future__ import annotations

import pytest

from tests.browser import DEVICES, NEEDS_CHROMIUM, PHONE, Player

pytestmark = NEEDS_CHROMIUM

NO_SIDEWAYS_JS = "() => document.documentElement.scrollWidth <= innerWidth"


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


_names = iter(range(10_000))


def _player_with_a_finished_game(site, browser, name: str, device: dict) -> tuple[Player, int]:
    """``name`` signed up in the browser, and the id of a practice game of theirs
    played to its end in the site's own process (``finished_practice``)."""
    me = Player.open(browser, name, **device)
    me.sign_up(site.base_url)
    out = site.manage("shell", "-c", "from tests.page_states import finished_practice; "
                                     f"print(finished_practice({me.name!r}))")
    return me, int(out.strip().splitlines()[-1])


@DEVICES
def test_a_finished_practice_game_is_reviewed(site, browser, device):
    me, game_id = _player_with_a_finished_game(site, browser, f"rv{next(_names)}", device)
    page = me.page
    page.goto(f"{site.base_url}/games/{game_id}/")
    button = page.locator("#review-btn")
    assert button.inner_text() == "复盘我的决定"
    button.click()
    page.wait_for_url(f"**/games/{game_id}/review/")
    # queued or running shows a progress bar; the worker's result replaces it
    summary = page.locator("#review-summary")
    summary.wait_for(timeout=60_000)
    assert page.locator("#review").get_attribute("data-status") == "done"
    accuracy = page.locator("#review-accuracy").inner_text()
    assert accuracy.endswith("%")
    assert 0 <= int(accuracy[:-1]) <= 100
    assert "准确率" in summary.inner_text()
    thresholds = page.locator(".review-thresholds").first.inner_text()
    assert all(n in thresholds for n in ("10", "25", "50"))
    labels = page.locator(".review-counts .review-label").all_inner_texts()
    assert [t.split()[0] for t in labels] == ["好", "不精确", "失误", "大错"]

    # the step-through starts at the player's first decision: their hand, judged
    steps = page.locator("#review-steps")
    steps.locator("#review-hand .pcard").first.wait_for()
    assert page.locator("#review-judgement").is_visible()
    assert page.locator("#review-judgement .review-label").inner_text() in (
        "好", "不精确", "失误", "大错")
    assert page.locator(".review-seat.is-me").count() == 1
    # each seat's card count sits inside its own chip, apart from the next name
    gaps = page.evaluate("""() => [...document.querySelectorAll('.review-seat')].map((s) => {
        const c = s.querySelector('.review-seat-count').getBoundingClientRect();
        const b = s.getBoundingClientRect();
        const next = s.nextElementSibling;
        const n = next && next.getBoundingClientRect();
        const name = s.querySelector('.review-seat-name').getBoundingClientRect();
        // the count under its own name at every width
        const stacked = c.top >= name.bottom - 1;
        return stacked && c.left >= b.left && c.right <= b.right + 0.5
            && (!n || n.top >= b.bottom || n.left - b.right >= 4);
    })""")
    assert gaps == [True] * 4, gaps
    first = page.locator("#review-step").inner_text()
    page.locator("#review-forward").click()
    assert page.locator("#review-step").inner_text() != first
    page.locator("#review-next-mine").click()
    assert page.locator("#review-judgement").is_visible()
    # a costliest moment, if any, jumps there
    goto = page.locator(".review-goto")
    if goto.count():
        goto.first.click()
        step = int(goto.first.get_attribute("data-step"))
        assert page.locator("#review").get_attribute("data-step") == str(step)
    # Home and End jump to the game's first and last moment (a tester pressed Home)
    page.keyboard.press("End")
    last = page.locator("#review").get_attribute("data-step")
    assert int(last) > 1
    page.keyboard.press("Home")
    assert page.locator("#review").get_attribute("data-step") == "0"
    page.locator("#review-last").click()  # ▶| too
    assert page.locator("#review").get_attribute("data-step") == last
    assert page.locator("#review-last").is_disabled()
    # the last move ends the game: the half's points as scored, and who won
    end = page.locator("#review-half-end")
    assert end.is_visible()
    assert "本半局结束" in end.inner_text()
    assert "赢得本局" in end.inner_text()
    assert page.evaluate(NO_SIDEWAYS_JS)
    assert not me.errors, me.errors

    # asked again from the result page: the stored review, at once
    page.goto(f"{site.base_url}/games/{game_id}/")
    assert page.locator("#review-btn").inner_text() == "查看我的复盘"
    page.locator("#review-btn").click()
    page.locator("#review-summary").wait_for()

    # and from the profile's recent games, which still fit the phone
    page.goto(f"{site.base_url}/accounts/profile/")
    assert page.evaluate(NO_SIDEWAYS_JS)
    page.locator(f'.review-btn[data-game="{game_id}"]').click()
    page.wait_for_url(f"**/games/{game_id}/review/")
    page.locator("#review-summary").wait_for()


MARK_COSTLY = """
from games.models import GameReview
row = GameReview.objects.get(game_id={game_id})
j = row.result["judged"][0]
j.update(label="mistake", made=["5S", "5D", "RJ"], best=["KS", "KH", "KC", "KD"],
         made_points=110.6, best_points=186.2, loss=31.7)
row.result["costliest"] = [j["index"]]
row.save(update_fields=["result"])
"""


def test_a_review_reads_on_a_phone_with_a_long_name(site, browser):
    """At 360 px: a long name wraps inside its seat's chip (never cut to "北
    rvlongername_…"), the costliest moment's cards sit side by side, each
    readable, and its loss reads as the gap of the two expected values shown."""
    me, game_id = _player_with_a_finished_game(
        site, browser, f"rvlongername_{next(_names):05d}", PHONE)
    page = me.page
    # the table's "Review my game" link: the page asks at once, no second click
    page.goto(f"{site.base_url}/games/{game_id}/review/?ask=1")
    page.locator("#review-summary").wait_for(timeout=60_000)
    assert "ask" not in page.url
    site.manage("shell", "-c", MARK_COSTLY.format(game_id=game_id))
    page.reload()
    page.locator("#review-hand .pcard").first.wait_for()
    clipped = page.evaluate("""() => [...document.querySelectorAll('.review-seat-name')]
        .filter((n) => n.scrollWidth > n.clientWidth + 1).map((n) => n.textContent)""")
    assert clipped == []
    assert me.name in page.locator(".review-seat.is-me .review-seat-name").inner_text()
    moment = page.locator("#review-costliest li").first
    assert "约损失 75.6 分（能确定的至少 31.7 分）" in moment.inner_text()
    overlaps = page.evaluate("""() => [...document.querySelectorAll(
            '#review-costliest .cards')].flatMap((row) => {
        const cards = [...row.querySelectorAll('.pcard')].map((c) => c.getBoundingClientRect());
        return cards.slice(1).filter((c, i) => c.top === cards[i].top
                                     && c.left < cards[i].right - 0.5).map(() => 1);
    })""")
    assert overlaps == []
    assert page.locator("#review-costliest .pcard").count() == 7
    assert page.evaluate(NO_SIDEWAYS_JS)
    me.assert_clean()


def test_a_closed_challenge_board_is_reviewed_on_a_phone(site, browser):
    """每日挑战: once the day has closed, the day's page offers the 复盘 of the
    player's board; the same review page, made by the same worker, shows only
    their decisions in seat 2 (South), without scrolling sideways."""
    me = Player.open(browser, f"rvb{next(_names)}", **PHONE)
    me.sign_up(site.base_url)
    out = site.manage("shell", "-c", "from tests.page_states import closed_board; "
                                     f"print(closed_board({me.name!r}))")
    page = me.page
    page.goto(site.base_url + out.strip().splitlines()[-1])
    button = page.locator(".ch-boards .ch-review-btn")
    assert button.inner_text() == "复盘"
    button.click()
    page.wait_for_url("**/reviews/challenge/*/")
    page.locator("#review-summary").wait_for(timeout=120_000)  # the worker is at nice 19
    assert page.locator("#review").get_attribute("data-kind") == "challenge"
    assert page.locator(".review-seat.is-me").get_attribute("data-seat") == "2"
    page.locator("#review-hand .pcard").first.wait_for()
    assert page.locator("#review-judgement").is_visible()
    assert page.evaluate(NO_SIDEWAYS_JS)
    me.assert_clean()
