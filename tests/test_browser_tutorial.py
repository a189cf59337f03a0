"""The 新手教程 in a real browser: a signed-up player finishes all
eight lessons by clicking cards and answers (desktop; the second lesson again on
a 360×740 phone with no horizontal scroll), and a visitor makes a wrong play
and reads its explanation, in Chinese and in English; the last lesson leads to a
game with bots; lessons finished logged out reach the account once its owner
logs in; a reload or a language switch keeps the step. The site and browser
fixtures are tests/test_browser.py's (the site is ``manage.py runsite``)."""

from __future__ import annotations

import pytest

from games import engine, tutorial
from tests import test_browser as tb
from tests.browser import Player, chromium_path

pytestmark = [
    pytest.mark.skipif(chromium_path() is None,
                       reason="browser tests need Debian's chromium at /usr/bin/chromium"),
    pytest.mark.django_db(transaction=True),
]

browser = tb.browser
site = tb.site


def _answer(step: tutorial.Step) -> list[str] | int:
    """What a learner clicks: the cards of a legal play the step wants (found
    by the engine), [] to pass, or the right option's id."""
    if step.kind == "choice":
        return next(i for i, o in enumerate(step.options) if o.why is None)
    if step.want.get("pass"):
        return []
    for play in engine.legal_plays(step.hand, tutorial.table_play(step), step.dao):
        if all(getattr(play, k) == v for k, v in step.want.items()):
            return list(play.cards)
    raise AssertionError(step)


def _click_cards(page, cards: list[str]) -> None:
    """Select ``cards`` in the hand: one button per copy held."""
    for card, count in sorted({c: cards.count(c) for c in cards}.items()):
        buttons = page.locator(f'#tut-hand button.pcard[data-card="{card}"]:not(.selected)')
        for _ in range(count):
            buttons.first.click()


def _play_lesson(page, base_url: str, n: int) -> None:
    page.goto(f"{base_url}/tutorial/{n}/")
    page.wait_for_selector("#tutorial[data-ready='1']")
    for i, step in enumerate(tutorial.lesson(n).steps):
        if i:
            page.locator("#tut-next").click()
        answer = _answer(step)
        if isinstance(answer, int):
            page.locator(f'#tut-options button[data-choice="{answer}"]').click()
        elif answer:
            _click_cards(page, answer)
            page.locator("#tut-play").click()
        else:
            page.locator("#tut-pass").click()
        page.wait_for_selector("#tut-feedback.ok")
    page.wait_for_selector("#tutorial[data-complete='1']")


def _no_horizontal_scroll(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


def test_an_account_finishes_every_lesson_on_desktop_and_one_on_a_phone(site, browser):
    me = Player.open(browser, "xuetu", viewport={"width": 1366, "height": 800})
    me.sign_up(site.base_url)
    page = me.page
    page.locator("#tutorial-offer a").click()
    page.wait_for_url("**/tutorial/")
    for n in range(1, tutorial.COUNT + 1):
        _play_lesson(page, site.base_url, n)
        assert page.locator("#tut-saved").inner_text() == "已保存到你的账号。"
    # after the last lesson the next step is a game with bots (the lobby's 和机器人练习)
    page.locator("#tut-practice-btn").click()
    page.wait_for_url("**/tables/*/")
    page.locator("#table-app").wait_for(state="attached")
    page.goto(site.base_url + "/tutorial/")
    assert page.locator("#tut-lessons li.done").count() == tutorial.COUNT
    page.goto(site.base_url + "/")
    assert page.locator("#tutorial-offer").count() == 0  # all eight done: no offer

    phone = Player.open(browser, "shouji", viewport={"width": 360, "height": 740},
                        is_mobile=True, has_touch=True)
    phone.page.goto(f"{site.base_url}/tutorial/2/")
    kind = phone.page.locator("#tut-plays .play-kind").first
    kind.wait_for()  # the opponent's play is named on a phone too
    assert kind.is_visible()
    assert "炸弹" in kind.inner_text()
    _play_lesson(phone.page, site.base_url, 2)  # a 16-card hand on a phone
    assert _no_horizontal_scroll(phone.page)
    assert "浏览器" in phone.page.locator("#tut-saved").inner_text()  # a visitor: kept here
    phone.page.goto(site.base_url + "/tutorial/")
    done = phone.page.locator("#tut-lessons li.done")
    done.first.wait_for()
    assert done.evaluate_all("els => els.map(e => e.dataset.code)") == ["bombs"]
    me.assert_clean()
    phone.assert_clean()


@pytest.mark.parametrize(("locale", "words"), [
    ("zh-CN", ("规则 §3", "单张只能被更大的单张", "一对 6")),
    ("en-US", ("Rules §3", "a single beats only a single", "a pair of 6s")),
])
def test_a_wrong_play_is_explained(site, browser, locale, words):
    visitor = Player.open(browser, "fangke", viewport={"width": 360, "height": 740},
                          locale=locale)
    page = visitor.page
    page.goto(site.base_url + "/tutorial/1/")
    page.wait_for_selector("#tutorial[data-ready='1']")
    hand_before = page.locator("#tut-hand").inner_html()
    _click_cards(page, ["6H", "6D"])
    page.locator("#tut-play").click()
    feedback = page.locator("#tut-feedback.wrong")
    feedback.wait_for()
    text = feedback.inner_text()
    assert all(w in text for w in words), text
    assert page.locator("#tut-next").is_hidden()
    # the refused cards go back: the next pick is judged alone (a tester's
    # second card joined the refused one)
    assert page.locator("#tut-hand .pcard.selected").count() == 0
    assert page.locator("#tut-hand").inner_html() == hand_before
    assert _no_horizontal_scroll(page)
    visitor.assert_clean()


def _step_of(page) -> str:
    return page.locator("#tut-step-of").inner_text()


def _hand(page) -> list[str]:
    return sorted(page.locator("#tut-hand button.pcard").evaluate_all(
        "els => els.map(e => e.dataset.card)"))


def test_progress_made_logged_out_reaches_the_account(site, browser):
    """Lessons 1 and 2 finished logged out, then sign-up in the same browser:
    the lobby it lands on counts them at once; then lesson 3: the account holds
    all three, on the index, in the lobby's offer and in another browser logged
    in as the same person."""
    me = Player.open(browser, "laixue", viewport={"width": 1280, "height": 800})
    page = me.page
    for n in (1, 2):
        _play_lesson(page, site.base_url, n)
        assert page.locator("#tut-saved").inner_text() == \
            "已保存在这个浏览器里。登录后可以把进度保存到账号。"
    me.sign_up(site.base_url)
    # the lobby, the first page after signing up, already counts them
    badge = page.locator("#tutorial-offer .badge")
    badge.filter(has_text="2/8").wait_for()
    assert badge.is_visible()
    assert page.evaluate("localStorage.getItem('yuanzi.tutorial.done')") is None
    _play_lesson(page, site.base_url, 3)
    assert page.locator("#tut-saved").inner_text() == "已保存到你的账号。"
    page.goto(site.base_url + "/")
    assert page.locator("#tutorial-offer .badge").inner_text() == "3/8"
    page.goto(site.base_url + "/tutorial/")
    done = page.locator("#tut-lessons li.done")
    assert done.evaluate_all("els => els.map(e => e.dataset.code)") == [
        "basics", "bombs", "atoms"]

    other = Player.open(browser, "laixue", viewport={"width": 1280, "height": 800})
    other.log_in(site.base_url)
    other.page.goto(site.base_url + "/tutorial/")
    codes = other.page.locator("#tut-lessons li.done").evaluate_all(
        "els => els.map(e => e.dataset.code)")
    assert codes == ["basics", "bombs", "atoms"]
    me.assert_clean()
    other.assert_clean()


def test_a_reload_or_a_language_switch_keeps_the_step(site, browser):
    visitor = Player.open(browser, "chongzai", viewport={"width": 1280, "height": 800})
    page = visitor.page
    page.goto(site.base_url + "/tutorial/1/")
    page.wait_for_selector("#tutorial[data-ready='1']")
    first = tutorial.lesson(1).steps[0]
    _click_cards(page, _answer(first))
    page.locator("#tut-play").click()
    page.wait_for_selector("#tut-feedback.ok")
    page.locator("#tut-next").click()
    assert _step_of(page) == "第 2 步，共 4 步"
    second = sorted(tutorial.lesson(1).steps[1].hand)
    assert _hand(page) == second

    page.reload()
    page.wait_for_selector("#tutorial[data-ready='1']")
    assert _step_of(page) == "第 2 步，共 4 步"
    assert _hand(page) == second

    page.locator("#lang-select").select_option("en")
    page.locator(".lang-switch button[type=submit]").click()
    page.wait_for_selector("html[lang='en']")
    page.wait_for_selector("#tutorial[data-ready='1']")
    assert _step_of(page) == "Step 2 of 4"
    assert _hand(page) == second

    # a step that is not the lesson's falls back to the first
    page.evaluate("() => sessionStorage.setItem('yuanzi.tutorial.step.1', '99')")
    page.reload()
    page.wait_for_selector("#tutorial[data-ready='1']")
    assert _step_of(page) == "Step 1 of 4"
    visitor.assert_clean()


TENS_JS = """async () => {
  // a hand's group of three 10s, drawn by the site's own cards.js and CSS
  const {cardEl} = await import("/static/js/cards.js");
  const hand = document.createElement("div");
  hand.className = "hand";
  const group = document.createElement("div");
  group.className = "rank-group";
  const row = document.createElement("div");
  row.className = "group-cards";
  for (const c of ["TS", "TH", "TD"]) row.appendChild(cardEl(c, {tag: "button"}));
  group.appendChild(row);
  hand.appendChild(group);
  document.body.prepend(hand);
  const cards = [...row.querySelectorAll(".pcard")];
  return cards.slice(0, -1).map((card, i) => ({
    rank: card.querySelector(".card-rank.ten").getBoundingClientRect().right,
    next: cards[i + 1].getBoundingClientRect().left,
  }));
}"""


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800},
                                      {"width": 360, "height": 740}])
def test_an_overlapped_ten_shows_both_digits(site, browser, viewport):
    """A tester read "1(" on the 10s of a desktop hand: the next card covered
    the "0". Each 10's rank ends before the card laid over it begins."""
    visitor = Player.open(browser, "shiwan", viewport=viewport)
    visitor.page.goto(f"{site.base_url}/tutorial/1/")
    visitor.page.wait_for_selector("#tutorial[data-ready='1']")
    strips = visitor.page.evaluate(TENS_JS)
    assert len(strips) == 2
    for s in strips:
        assert s["rank"] <= s["next"] + 0.5, strips
    visitor.assert_clean()
