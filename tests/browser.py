"""Playwright helpers: a player in a real browser, clicking what a person clicks.

Used by ``tests/test_browser.py`` and ``docs/screenshot.py``. Playwright's sync
API is driven directly (``sync_playwright()``), never through the
pytest-playwright plugin, whose event loop breaks the pytest-asyncio tests that
run after it in the same process (NOTES.md).

The browser is Debian's chromium (``/usr/bin/chromium``, never
``playwright install``); :func:`chromium_path` says where it is, or ``None``.
"""

from __future__ import annotations

import os
import shutil
import time
from collections import Counter
from dataclasses import dataclass, field

import pytest

CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking"]
PASSWORD = "atom-Jiaxing-2026"

# True when it is this page's turn and no move of it awaits an answer: then the
# hint button (the seat has a legal play) or the pass button (following with
# nothing that beats) is enabled (static/js/table.js renderControls).
MY_TURN_JS = """() => {
  const hint = document.getElementById('hint-btn'), pass = document.getElementById('pass-btn');
  return !!document.querySelector('.seat.is-me.is-turn') && (!hint.disabled || !pass.disabled);
}"""

# Error toasts the page showed (the server refused something), recorded as they
# appear: they fade after a few seconds.
RECORD_TOASTS_JS = """
window.__toasts = [];
new MutationObserver(function (records) {
  records.forEach(function (r) {
    r.addedNodes.forEach(function (n) {
      if (n.classList && n.classList.contains('toast')) {
        window.__toasts.push(n.className + ': ' + n.textContent);
      }
    });
  });
}).observe(document, {childList: true, subtree: true});
"""


def chromium_path() -> str | None:
    path = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
    if os.access(path, os.X_OK):
        return path
    return shutil.which("chromium")


def launch(playwright):
    return playwright.chromium.launch(
        executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
    )


@dataclass
class Player:
    """One person: a browser context and page, with every console message,
    page error and error toast the page produced."""

    name: str
    page: object
    console: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    moves: int = 0
    ways: Counter = field(default_factory=Counter)  # how moves were chosen

    @classmethod
    def open(cls, browser, name: str, **context_options) -> Player:
        # the site follows Accept-Language: the players are Chinese by default
        context_options.setdefault("locale", "zh-CN")
        context = browser.new_context(**context_options)
        context.set_default_timeout(20_000)
        page = context.new_page()
        page.add_init_script(RECORD_TOASTS_JS)
        player = cls(name, page)
        page.on("console", lambda m: player.console.append((m.type, f"{m.text} {m.location}")))
        page.on("pageerror", lambda e: player.errors.append(str(e)))
        return player

    # --- what went wrong -----------------------------------------------------------

    def console_errors(self) -> list[str]:
        return [text for kind, text in self.console if kind == "error"]

    def toasts(self) -> list[str]:
        try:
            return self.page.evaluate("window.__toasts || []")
        except Exception:  # the page is navigating
            return []

    def assert_clean(self) -> None:
        assert not self.errors, f"{self.name}: page errors {self.errors}"
        assert not self.console_errors(), f"{self.name}: console errors {self.console_errors()}"

    # --- accounts ----------------------------------------------------------------------

    def sign_up(self, base_url: str) -> None:
        """The allauth sign-up form: username and the password twice; lands
        logged in on the lobby."""
        page = self.page
        page.goto(base_url + "/accounts/signup/")
        form = page.locator("form:has(input[name=password1])")
        form.locator("input[name=username]").fill(self.name)
        form.locator("input[name=password1]").fill(PASSWORD)
        form.locator("input[name=password2]").fill(PASSWORD)
        form.locator("button[type=submit]").click()
        page.wait_for_url(base_url + "/")
        self.wait_signed_in()

    def log_in(self, base_url: str) -> None:
        """The allauth log-in form, for an account made elsewhere with
        :data:`PASSWORD`; lands logged in on the lobby."""
        page = self.page
        page.goto(base_url + "/accounts/login/")
        form = page.locator("form:has(input[name=password])")
        form.locator("input[name=login]").fill(self.name)
        form.locator("input[name=password]").fill(PASSWORD)
        form.locator("button[type=submit]").click()
        page.wait_for_url(base_url + "/")
        self.wait_signed_in()

    def wait_signed_in(self) -> None:
        """The header names this person (their profile link: in the phone's
        menu, so attached rather than shown)."""
        self.page.locator(".site-nav a[href='/accounts/profile/']", has_text=self.name) \
            .wait_for(state="attached")

    # --- tables ------------------------------------------------------------------------

    def wait_connected(self) -> None:
        self.page.locator("#conn-status[data-state=open]").wait_for()

    def create_table(self, name: str) -> str:
        """Open a table from the lobby; returns the table's URL."""
        page = self.page
        page.locator("#table-name-input").fill(name)
        page.locator("#create-table-btn").click()
        page.wait_for_url("**/tables/*/")
        self.wait_connected()
        assert page.locator("#table-name").inner_text() == name
        return page.url

    def open_from_lobby(self, base_url: str, table_name: str) -> None:
        page = self.page
        page.goto(base_url + "/")
        page.locator(f".lobby-table:has(.lt-name:text-is('{table_name}')) a.lt-name").click()
        page.wait_for_url("**/tables/*/")
        self.wait_connected()

    def sit(self, seat: int) -> None:
        """Sit at ``seat`` (the creator of a table already sits at North, 0)."""
        page = self.page
        if page.locator(f'.seat.is-me[data-seat="{seat}"]').count():
            return
        page.locator(f'.seat[data-seat="{seat}"] button.sit').click()
        page.locator(f'.seat.is-me[data-seat="{seat}"]').wait_for()

    def add_bots(self, level: str | None = None) -> int:
        """As the owner, put a bot in every empty seat, one click each, at
        ``level`` (the seat's level picker) or the default."""
        page = self.page
        added = 0
        while page.locator(".seat button.add-bot").count():
            before = page.locator(".seat.is-bot").count()
            if level is not None:
                page.locator(".seat select.bot-level").first.select_option(level)
            page.locator(".seat button.add-bot").first.click()
            page.wait_for_function(
                "n => document.querySelectorAll('.seat.is-bot').length > n", arg=before
            )
            added += 1
        return added

    def ready(self) -> None:
        page = self.page
        page.locator("#ready-btn").click()
        page.wait_for_function(
            "() => document.getElementById('ready-btn').dataset.ready === '1' || "
            "document.getElementById('table-app').dataset.status === 'playing'"
        )

    # --- playing -----------------------------------------------------------------------

    def status(self) -> str:
        return self.page.locator("#table-app").get_attribute("data-status")

    def my_turn(self) -> bool:
        return self.page.evaluate(MY_TURN_JS)

    def wait_turn_or_over(self, timeout_ms: float = 60_000) -> str:
        """Wait until it is this page's turn ("turn") or the game is over ("over")."""
        self.page.wait_for_function(
            f"() => document.getElementById('table-app').dataset.status === 'over' || "
            f"({MY_TURN_JS})()",
            timeout=timeout_ms,
        )
        return "over" if self.status() == "over" else "turn"

    def take_turn(self) -> str:
        """Act once on this page's turn by clicking, as a cautious player would:

        * leading, in turn: the first hint (the weakest single); the weakest
          card clicked directly (at its left edge: hand cards overlap); the
          weakest rank held twice or more, picked whole with its rank chip;
        * following: the first hint, unless there is none or it would spend a
          bomb (4 or more cards) — then pass.

        Returns what it did ("play N" or "pass") once the move was sent.
        """
        page = self.page
        hint, pass_btn, play = (page.locator(s) for s in ("#hint-btn", "#pass-btn", "#play-btn"))
        seq = page.evaluate("window.YuanziTable.state().view.seq")
        toasts = len(self.toasts())
        following = pass_btn.is_enabled()
        if following or self.moves % 3 == 0:
            how = "hint"
            if hint.is_enabled():
                hint.click()
        elif self.moves % 3 == 1:
            how = "card"
            card = page.locator("#hand .pcard").last
            card.click(position={"x": 5, "y": 12})
            assert card.get_attribute("aria-pressed") == "true"
        else:
            how = "rank label"
            groups = page.locator("#hand .rank-group:has(.pcard + .pcard)")
            group = (groups if groups.count() else page.locator("#hand .rank-group")).last
            group.locator(".rank-label").click()
        selected = page.locator("#hand .pcard.selected").count()
        self.moves += 1
        if following and (selected == 0 or selected >= 4):
            pass_btn.click()
            action = how = "pass"
        else:
            assert selected > 0, "a lead with nothing selected"
            page.wait_for_function("() => !document.getElementById('play-btn').disabled")
            play.click()
            action = f"play {selected}"
        self.ways[how] += 1
        # the move is on its way (the controls stay disabled until the answer),
        # already answered, or refused (an error toast)
        page.wait_for_function(
            "([seq, n]) => { const s = window.YuanziTable.state();"
            " return s.pending || s.view.seq !== seq || window.__toasts.length > n; }",
            arg=[seq, toasts],
        )
        refused = self.toasts()[toasts:]
        assert not refused, f"{self.name}: {action} refused: {refused}"
        return action


def play_to_the_end(players: list[Player], deadline_s: float = 600,
                    log=print) -> int:
    """Round-robin over the pages: whichever shows its turn acts, until every
    page shows the game over. Returns the number of moves made by clicking."""
    moves = 0
    started = time.monotonic()
    last_report = started
    while True:
        statuses = [p.status() for p in players]
        if all(s == "over" for s in statuses):
            return moves
        acted = False
        for p in players:
            if p.status() == "playing" and p.my_turn():
                action = p.take_turn()
                moves += 1
                acted = True
                if log and (moves % 10 == 0 or time.monotonic() - last_report > 15):
                    last_report = time.monotonic()
                    log(f"  {time.monotonic() - started:5.1f} s: {moves} moves; "
                        f"{p.name} {action}")
        elapsed = time.monotonic() - started
        assert elapsed < deadline_s, f"the game did not end in {deadline_s} s ({moves} moves)"
        if not acted:
            if len(players) == 1:
                players[0].wait_turn_or_over()
            else:
                time.sleep(0.05)


#: the mark of a browser test module: skipped (a failure under CI=true) without chromium
NEEDS_CHROMIUM = pytest.mark.skipif(
    chromium_path() is None,
    reason="browser tests need Debian's chromium at /usr/bin/chromium",
)
#: a desktop window and a 360 px touch phone, and a test run on each
DESKTOP = {"viewport": {"width": 1366, "height": 800}}
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
DEVICES = pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])


def nav_link(page, href: str):
    """The header's link to ``href``, opening the phone's ☰ menu first when the
    link is folded into it (base.html: one compact row on a phone)."""
    link = page.locator(f".site-nav a[href='{href}']")
    if not link.is_visible() and page.locator(".site-menu-button").is_visible():
        page.locator(".site-menu-button").click()
    return link
