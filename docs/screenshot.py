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

Needs Debian's chromium (``/usr/bin/chromium``) and ``fonts-noto-cjk`` (else
the Chinese shows as boxes). Usage::

    python docs/screenshot.py [--turns 8] [--out docs/img]
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=8, help="own moves before the shots (8)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args()
    if chromium_path() is None:
        print("chromium not found: apt-get install chromium fonts-noto-cjk", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    site = Site(bot_delay=0.05).wait_listening()
    try:
        with sync_playwright() as pw:
            browser = launch(pw)
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
            me.assert_clean()
            browser.close()
    finally:
        site.stop(show_output=False)
    for name in ("table-midgame.png", "table-midgame-phone.png", "result-sentence.png",
                 "private-invite.png"):
        print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
