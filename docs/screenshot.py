"""Screenshots of the table mid-game for the README (``make screenshot``).

Starts the site as ``make run`` serves it (``manage.py runsite`` on a free port,
a fresh SQLite file of its own, bots fast), signs a user up through the real
form, opens a table, adds three bots, plays a few turns by clicking, then, on
the user's turn to follow a play, with the first hint selected, saves

* ``docs/img/table-midgame.png`` (1280×800) and
* ``docs/img/table-midgame-phone.png`` (360×740: every card a 28 px tap area);

then puts a finished two-half game in place (``tests/page_states.py``) for
``docs/img/result-sentence.png`` (the result saying why), and opens a 好友房
for ``docs/img/private-invite.png`` (its room code and invite link, phone).
Then ``docs/img/friends-phone.png``: a new player's friends page on the phone
(a friend at a table, a request each way, a block; :func:`friends_shots`).
Then ``docs/img/review-phone.png``: 复盘 of a finished practice game on the
phone, made by the site's own review worker at the default budget
(:func:`review_shots`). Last, the social hall's and the contests' pages, their
states put in place in the site's process (``tests/page_states.py``):
``lobby-friends.png`` (the lobby's friends panel, 1280×800),
``invite-phone.png`` (a table invite's live toast), ``profile-phone.png``
(avatar, 完成率, achievements), ``history-phone.png`` (战绩 with the rating
graph), ``challenge-day.png`` (a day's 每日挑战 table, 1280×800) and
``arena-phone.png`` (a running 擂台 with its standings). Every phone shot is
checked for sideways scroll first.

Needs Debian's chromium (``/usr/bin/chromium``) and ``fonts-noto-cjk`` (else
the Chinese shows as boxes). Usage::

    python docs/screenshot.py [--turns 8] [--out docs/img] [--only invite,arena]

``--only`` makes just the named shots (the keys of :data:`ONLY`), on one
fresh site.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser import Player, chromium_path, launch  # noqa: E402
from tests.servers import Site  # noqa: E402

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 360, "height": 740}
SHOTS = ("table-midgame.png", "table-midgame-phone.png", "result-sentence.png",
         "private-invite.png", "replay.png", "shop.png", "inventory.png", "friends-phone.png",
         "review-phone.png", "lobby-friends.png", "invite-phone.png", "profile-phone.png",
         "history-phone.png", "challenge-day.png", "arena-phone.png")
# what the shop shots' user buys after the grant: (item code, quantity)
PURCHASES = (("recorder", 2), ("card_counter", 3), ("timer", 1), ("sign", 1),
             ("tablecloth", 1))


def buy(page, code: str, quantity: int) -> None:
    """One purchase with the shop page's form of ``code``."""
    form = page.locator(f'.catalogue-item[data-item="{code}"] form.buy-form')
    form.locator("input[name=quantity]").fill(str(quantity))
    with page.expect_navigation():  # the post answers with a redirect to /shop/
        form.locator("button[type=submit]").click()


def shop_shots(site, me: Player, out: Path, turns: int) -> None:
    """``replay.png``, ``shop.png`` and ``inventory.png`` (module docstring)."""
    page = me.page
    page.set_viewport_size(DESKTOP)
    site.manage("grant_coins", me.name, "3000", "--reason", "README screenshots")
    page.goto(site.base_url + "/shop/")
    with page.expect_navigation():
        page.locator("#checkin-btn").click()
    for code, quantity in PURCHASES:
        held = page.locator(f'.catalogue-item[data-item="{code}"] .held')
        buy(page, code, quantity)
        assert held.inner_text().endswith(str(quantity)), (code, held.inner_text())
    page.locator('#inventory .slot[data-item="timer"]').dblclick()
    page.locator('#inventory .slot.armed[data-item="timer"]').wait_for()
    # a short practice game, left after a few turns, saved with a recorder
    page.goto(site.base_url + "/")
    me.create_table("录像桌")
    me.sit(0)
    me.add_bots()
    me.ready()
    page.locator("#table-app[data-status=playing]").wait_for()
    for _ in range(turns):
        if me.wait_turn_or_over() == "over":
            break
        me.take_turn()
    if me.status() == "playing":
        page.locator("#escape-btn").click()
        page.locator("#escape-confirm").click()
    page.locator("#table-app[data-status=over]").wait_for()
    page.locator("#use-recorder").click()
    page.wait_for_function("() => document.getElementById('items-message').textContent")
    page.goto(site.base_url + "/replays/")
    page.locator(".replay-item a").first.click()
    page.wait_for_url("**/replays/*/")
    for _ in range(6):  # a few actions in: one hand smaller, the last action shown
        page.locator("#replay-forward").click()
    page.locator("#replay-action").wait_for()
    time.sleep(0.3)
    page.screenshot(path=str(out / "replay.png"))
    page.goto(site.base_url + "/shop/")
    page.locator("#shop-panel").wait_for()
    time.sleep(0.3)
    page.screenshot(path=str(out / "shop.png"))
    page.goto(site.base_url + "/accounts/profile/")
    panel = page.locator("#shop-panel")
    panel.wait_for()
    page.locator('#inventory .slot[data-item="recorder"]').click()  # selected: 使用 enabled
    time.sleep(0.3)
    panel.screenshot(path=str(out / "inventory.png"))


def friends_shots(site, browser, out: Path) -> None:
    """``friends-phone.png``: 阿珍's friends page on a 360 px phone — 老王 a
    friend, online at his table; 小李's request waiting; hers to 阿强; 阿毛
    blocked."""
    base = site.base_url
    people = {name: Player.open(browser, name, viewport=PHONE)
              for name in ("阿珍", "老王", "小李", "阿强", "阿毛")}
    for p in people.values():
        p.sign_up(base)
    zhen = people["阿珍"]
    zhen.page.on("dialog", lambda d: d.accept())

    def act(who: Player, name: str, button: str) -> None:
        who.page.goto(f"{base}/friends/?q={name}")
        row = who.page.locator(f'#search-results .social-row[data-username="{name}"]')
        row.get_by_role("button", name=button).click()
        who.page.locator("#social-message:not(:empty)").wait_for()

    people["老王"].create_table("月河桌")
    people["老王"].sit(1)
    act(zhen, "老王", "加好友")
    wang = people["老王"].page.context.new_page()  # his table stays open: online
    wang.goto(base + "/friends/")
    wang.locator('#incoming .social-row[data-username="阿珍"]').get_by_role(
        "button", name="接受").click()
    wang.locator("#social-message:not(:empty)").wait_for()
    act(people["小李"], "阿珍", "加好友")
    act(zhen, "阿强", "加好友")
    act(zhen, "阿毛", "屏蔽")
    zhen.page.goto(base + "/friends/")
    time.sleep(0.3)
    zhen.page.screenshot(path=str(out / "friends-phone.png"), full_page=True)
    for p in people.values():
        p.assert_clean()


def review_shots(site, browser, out: Path) -> None:
    """``review-phone.png``: 小红's review of a practice game against three 高手
    (played out in the site's process, ``tests.page_states.finished_practice``),
    asked for from the result page, at its costliest moment when it has one."""
    me = Player.open(browser, "小红", viewport=PHONE, is_mobile=True, has_touch=True)
    me.sign_up(site.base_url)
    out_text = site.manage("shell", "-c", "from tests.page_states import finished_practice; "
                                          "print(finished_practice('小红', 'expert'))")
    game_id = int(out_text.strip().splitlines()[-1])
    page = me.page
    page.goto(f"{site.base_url}/games/{game_id}/")
    page.locator("#review-btn").click()
    page.locator("#review-summary").wait_for(timeout=300_000)
    goto = page.locator(".review-goto")
    if goto.count():
        goto.first.click()
    time.sleep(0.5)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(out / "review-phone.png"), full_page=True)
    me.assert_clean()


NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"


def shell(site, code: str) -> str:
    """The last line ``manage.py shell -c code`` printed, on the site's database."""
    lines = site.manage("shell", "-c", code).strip().splitlines()
    return lines[-1] if lines else ""


def lobby_friends_shots(site, browser, out: Path) -> None:
    """``lobby-friends.png`` (1280×800): 周周's lobby, its friends panel with
    老陈 online at his table 老陈的牌桌 and 小雨 offline."""
    base = site.base_url
    zhou = Player.open(browser, "周周", viewport=DESKTOP)
    chen = Player.open(browser, "老陈", viewport=DESKTOP)
    for p in (zhou, chen):
        p.sign_up(base)
    chen.create_table("老陈的牌桌")
    chen.sit(1)
    shell(site, "from tests.page_states import befriend; befriend('周周', '老陈', '小雨')")
    page = zhou.page
    page.goto(base + "/")
    page.locator('#friends-panel .social-row[data-username="老陈"]', has_text="老陈的牌桌") \
        .wait_for()
    page.locator('#friends-panel .social-row[data-username="小雨"]').wait_for()
    # from the lobby's filter down: the day's tasks, the panel, the friend's table
    page.locator("#lobby-filter-form").evaluate(
        "(el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 12)")
    time.sleep(0.3)
    assert page.evaluate(NO_SIDEWAYS_SCROLL), "lobby-friends.png: sideways scroll"
    page.screenshot(path=str(out / "lobby-friends.png"))
    for p in (zhou, chen):
        p.assert_clean()


def invite_shots(site, browser, out: Path) -> None:
    """``invite-phone.png``: 大刚 invites his friend 小芳 to his table (完成率
≥ 90 %) by name;
    her phone, in the lobby, shows the invite's toast with 加入 / 拒绝."""
    base = site.base_url
    gang = Player.open(browser, "大刚", viewport=DESKTOP)
    fang = Player.open(browser, "小芳", viewport=PHONE, is_mobile=True, has_touch=True)
    for p in (gang, fang):
        p.sign_up(base)
    shell(site, "from tests.page_states import befriend; befriend('大刚', '小芳')")
    gang.page.locator("#table-name-input").fill("周末牌局")
    gang.page.locator("#min-finish-input").select_option("90")  # the toast names it
    gang.page.locator("#create-table-btn").click()
    gang.page.wait_for_url("**/tables/*/")
    gang.wait_connected()
    gang.sit(0)
    fang.page.goto(base + "/")
    gang.page.locator("#table-invite-name").fill("小芳")
    gang.page.locator("#table-invite-send").click()
    gang.page.locator("#table-invite-said", has_text="小芳").wait_for()
    toast = fang.page.locator(".invite-toast")
    toast.locator("button[data-action=accept]").wait_for()
    time.sleep(0.5)  # the toast's slide-in
    assert fang.page.evaluate(NO_SIDEWAYS_SCROLL), "invite-phone.png: sideways scroll"
    fang.page.screenshot(path=str(out / "invite-phone.png"))
    for p in (gang, fang):
        p.assert_clean()


def profile_shots(site, browser, out: Path) -> None:
    """``profile-phone.png``: 明月's profile on the phone — her avatar, 完成率
    98 % over 42 rated games (``tests.page_states.reputable_profile``) and her
    achievements."""
    base = site.base_url
    me = Player.open(browser, "明月", viewport=PHONE, is_mobile=True, has_touch=True)
    me.sign_up(base)
    shell(site, "from tests.page_states import reputable_profile; reputable_profile('明月')")
    page = me.page
    page.goto(base + "/accounts/profile/明月/")
    page.locator('.profile-head .avatar[data-avatar="panda"] img').wait_for()
    time.sleep(0.3)
    # from the top through the achievements (the avatar chooser and the bag below)
    bottom = page.locator("#achievements").evaluate(
        "(el) => el.getBoundingClientRect().bottom + window.scrollY")
    assert page.evaluate(NO_SIDEWAYS_SCROLL), "profile-phone.png: sideways scroll"
    page.screenshot(path=str(out / "profile-phone.png"), full_page=True,
                    clip={"x": 0, "y": 0, "width": PHONE["width"], "height": bottom + 12})
    me.assert_clean()


def history_shots(site, browser, out: Path) -> None:
    """``history-phone.png``: 晓明's 战绩 on the phone, the rating graph on
    top (60 games, 40 rating movements: ``tests.page_states.rating_history``)."""
    base = site.base_url
    me = Player.open(browser, "晓明", viewport=PHONE, is_mobile=True, has_touch=True)
    me.sign_up(base)
    shell(site, "from tests.page_states import rating_history; rating_history('晓明')")
    page = me.page
    page.goto(base + "/history/")
    page.locator("#rating-graph-svg").wait_for()
    time.sleep(0.3)
    assert page.evaluate(NO_SIDEWAYS_SCROLL), "history-phone.png: sideways scroll"
    page.screenshot(path=str(out / "history-phone.png"))
    me.assert_clean()


def challenge_shots(site, browser, out: Path) -> None:
    """``challenge-day.png`` (1280×800): today's 每日挑战 table, eight players
    ranked, two still playing (``tests.page_states.challenge_field``), seen by
    小鹿, who has not played yet."""
    base = site.base_url
    me = Player.open(browser, "小鹿", viewport=DESKTOP)
    me.sign_up(base)
    iso = shell(site, "from tests.page_states import challenge_field; print(challenge_field("
                      "('老周', '阿美', 'kevin', '大海', '青青', '山石', '小北', '白杨')))")
    page = me.page
    page.goto(f"{base}/challenge/{iso}/")
    page.locator("main").wait_for()
    time.sleep(0.3)
    assert page.evaluate(NO_SIDEWAYS_SCROLL), "challenge-day.png: sideways scroll"
    page.screenshot(path=str(out / "challenge-day.png"))
    me.assert_clean()


def arena_shots(site, browser, out: Path) -> None:
    """``arena-phone.png``: a running 擂台 of eight on 阿飞's phone (not in it
    yet: the page offers 报名), its two tables playing and the standings
    (``tests.page_states.running_arena``)."""
    base = site.base_url
    me = Player.open(browser, "阿飞", viewport=PHONE, is_mobile=True, has_touch=True)
    me.sign_up(base)
    arena_id = shell(site, "from tests.page_states import running_arena; print(running_arena("
                           "('铁柱', '翠花', '石头', 'lucy', '二妞', '胖虎', '阿杰', '大壮')))")
    page = me.page
    page.goto(f"{base}/arenas/{arena_id}/")
    page.locator("#arena-standings tbody tr", has_text="铁柱").wait_for()
    time.sleep(0.3)
    assert page.evaluate(NO_SIDEWAYS_SCROLL), "arena-phone.png: sideways scroll"
    page.screenshot(path=str(out / "arena-phone.png"), full_page=True)
    me.assert_clean()


#: the shots ``--only`` may name, each made by a function of (site, browser, out dir)
ONLY = {"friends": friends_shots, "review": review_shots,
        "lobby-friends": lobby_friends_shots, "invite": invite_shots,
        "profile": profile_shots, "history": history_shots,
        "challenge": challenge_shots, "arena": arena_shots}
#: what each of :data:`ONLY` saves
ONLY_SHOTS = {"friends": ("friends-phone.png",), "review": ("review-phone.png",),
              "lobby-friends": ("lobby-friends.png",), "invite": ("invite-phone.png",),
              "profile": ("profile-phone.png",), "history": ("history-phone.png",),
              "challenge": ("challenge-day.png",), "arena": ("arena-phone.png",)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=8, help="own moves before the shots (8)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    parser.add_argument("--only", default="",
                        help=f"comma-separated, of {', '.join(ONLY)}: just those shots")
    args = parser.parse_args()
    only = [name for name in args.only.split(",") if name]
    unknown = sorted(set(only) - set(ONLY))
    if unknown:
        parser.error(f"unknown --only {', '.join(unknown)} (of {', '.join(ONLY)})")
    if chromium_path() is None:
        print("chromium not found: apt-get install chromium fonts-noto-cjk", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    site = Site(bot_delay=0.05).wait_listening()
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
            if only:
                for name in only:
                    ONLY[name](site, browser, args.out)
                browser.close()
                return report(args.out, [f for name in only for f in ONLY_SHOTS[name]])
            me = Player.open(browser, "小明", viewport=DESKTOP)
            me.sign_up(site.base_url)
            me.create_table("南湖一号桌")
            me.sit(2)
            me.add_bots()
            me.ready()
            me.page.locator("#table-app[data-status=playing]").wait_for()
            done = 0
            while done < args.turns:
                if me.wait_turn_or_over() == "over":
                    break
                me.take_turn()
                done += 1
            page = me.page
            # the shot: the user's turn following a play, with a hint to show
            for _ in range(40):
                if me.wait_turn_or_over() == "over":
                    raise SystemExit("the game ended before a shot: run again")
                following = page.locator("#pass-btn").is_enabled()
                if following and page.locator("#hint-btn").is_enabled():
                    break
                me.take_turn()
            page.locator("#hint-btn").click()
            time.sleep(0.3)  # let the countdown text settle
            page.screenshot(path=str(args.out / "table-midgame.png"))
            page.set_viewport_size(PHONE)
            time.sleep(0.3)
            page.screenshot(path=str(args.out / "table-midgame-phone.png"))
            # the result's sentence: a two-half game put in place, the page reloaded
            table_id = int(page.url.split("?")[0].rstrip("/").rsplit("/", 1)[1])
            site.manage("shell", "-c", "from tests.page_states import install; "
                        f"install({table_id}, 'two_halves')")
            page.set_viewport_size(DESKTOP)
            page.reload()
            panel = page.locator("#result-panel")
            panel.wait_for(state="visible")
            panel.scroll_into_view_if_needed()
            time.sleep(0.3)
            panel.screenshot(path=str(args.out / "result-sentence.png"))
            # a 好友房 and its invite, on the phone
            page.set_viewport_size(PHONE)
            page.goto(site.base_url + "/")
            page.locator("#table-name-input").fill("好友房")
            page.locator("#private-input").check()
            page.locator("#create-table-btn").click()
            page.wait_for_url("**/tables/*/")
            me.wait_connected()
            page.locator("#room-code").wait_for()
            time.sleep(0.3)
            page.screenshot(path=str(args.out / "private-invite.png"))
            shop_shots(site, me, args.out, args.turns)
            friends_shots(site, browser, args.out)
            review_shots(site, browser, args.out)
            for name in ("lobby-friends", "invite", "profile", "history", "challenge", "arena"):
                ONLY[name](site, browser, args.out)
            me.assert_clean()
            browser.close()
    finally:
        site.stop(show_output=False)
    return report(args.out, SHOTS)


def report(out: Path, names) -> int:
    """Print each saved shot's path and size; returns 0 (the exit status)."""
    for name in names:
        print(out / name, f"{(out / name).stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
