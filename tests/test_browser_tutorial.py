"""The 新手教程 in a real browser: a signed-up player finishes all
eight lessons by clicking cards and answers (desktop; the first lesson again on
a 360×740 phone with no horizontal scroll), and a visitor makes a wrong play
and reads its explanation, in Chinese and in English. The site and browser
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
    page.goto(site.base_url + "/tutorial/")
    assert page.locator("#tut-lessons li.done").count() == tutorial.COUNT
    page.goto(site.base_url + "/")
    assert page.locator("#tutorial-offer").count() == 0  # all eight done: no offer

    phone = Player.open(browser, "shouji", viewport={"width": 360, "height": 740},
                        is_mobile=True, has_touch=True)
    phone.page.goto(f"{site.base_url}/tutorial/3/")
    kind = phone.page.locator("#tut-plays .play-kind").first
    kind.wait_for()  # the opponent's play is named on a phone too
    assert kind.is_visible()
    assert "炸弹" in kind.inner_text()
    _play_lesson(phone.page, site.base_url, 3)
    assert _no_horizontal_scroll(phone.page)
    assert "浏览器" in phone.page.locator("#tut-saved").inner_text()  # a visitor: kept here
    phone.page.goto(site.base_url + "/tutorial/")
    done = phone.page.locator("#tut-lessons li.done")
    done.first.wait_for()
    assert done.evaluate_all("els => els.map(e => e.dataset.code)") == ["atoms"]
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
    # the selection stays for another try; clearing it gives the hand back as it was
    page.locator("#tut-clear").click()
    assert page.locator("#tut-hand").inner_html() == hand_before
    assert _no_horizontal_scroll(page)
    visitor.assert_clean()
