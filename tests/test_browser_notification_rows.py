"""A notification arriving while /notifications/ is open, in a real browser
(Debian chromium through Playwright): a tester's browser (UTC, another
locale's date format) showed the live row as ``12/7/2026, 7:21:31 PM`` beside
server-rendered rows reading ``2026-12-08 03:19`` (the site's zone), with no
标为已读. The live row is now the server's own rendering of it: the same HTML
as after a reload, and its 标为已读 works.

One site process (``manage.py runsite``, SQLite file of its own) serves the
module (conftest's ``site`` and ``browser``). Playwright's sync API is driven
directly (NOTES.md).
"""

from __future__ import annotations

import re

from tests.browser import NEEDS_CHROMIUM, PHONE, Player

pytestmark = NEEDS_CHROMIUM

CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')

KEEP = """
from django.contrib.auth.models import User
from django.db import transaction
from accounts import inbox
with transaction.atomic():
    inbox.post(User.objects.get(username=%(name)r).pk, "friend_request",
               {"name": "laowang"}, "/friends/")
"""

WHEN = """
from django.utils import timezone
from accounts.models import Notification
n = Notification.objects.get(pk=%(pk)d)
print(timezone.localtime(n.created_at).strftime("%%Y-%%m-%%d %%H:%%M"))
"""

_names = iter(range(10_000))


def _ask(browser, site, name: str) -> None:
    """Another person asks ``name`` to be friends, on their own page (the
    site keeps the notification and sends it live)."""
    friend = Player.open(browser, f"ntrowf{next(_names)}", **PHONE)
    friend.sign_up(site.base_url)
    friend.page.goto(f"{site.base_url}/friends/?q={name}")
    friend.page.locator(f"#search-results .social-row[data-username='{name}'] button") \
        .first.click()
    friend.page.wait_for_load_state()
    friend.page.context.close()


def _row_html(page, pk: int) -> str:
    return CSRF.sub('name="csrfmiddlewaretoken" value=""', page.locator(
        f'.inbox-row[data-id="{pk}"]').evaluate("r => r.outerHTML"))


def test_a_live_row_reads_as_the_server_renders_it_and_its_mark_read_works(site, browser):
    # the tester's browser: UTC, a date format of its own
    me = Player.open(browser, "ntrow1", locale="en-US", timezone_id="UTC", **PHONE)
    me.sign_up(site.base_url)
    site.manage("shell", "-c", KEEP % {"name": me.name})
    page = me.page
    page.goto(site.base_url + "/notifications/")
    page.locator("body[data-personal=open]").wait_for()
    assert page.locator(".inbox-row").count() == 1
    first = int(page.locator(".inbox-row").first.get_attribute("data-id"))

    _ask(browser, site, me.name)  # arrives while the page is open
    page.locator(".inbox-row").nth(1).wait_for()
    row = page.locator(".inbox-row").first  # on top
    live = int(row.get_attribute("data-id"))
    assert live != first
    when = site.manage("shell", "-c", WHEN % {"pk": live}).strip().splitlines()[-1]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", when)
    assert row.locator(".inbox-time").inner_text() == when  # the site's zone and format
    assert row.locator("form.inbox-read-one button").is_visible()
    page.locator("#inbox-badge[data-unread='2']").wait_for(state="attached")
    seen = _row_html(page, live)

    page.reload()  # what the server renders for the same row: identical
    page.locator("body[data-personal=open]").wait_for()
    assert _row_html(page, live) == seen

    _ask(browser, site, me.name)  # another, while the page is open
    page.locator(".inbox-row").nth(2).wait_for()
    row = page.locator(".inbox-row").first
    live2 = int(row.get_attribute("data-id"))
    assert live2 not in (first, live)
    # its 标为已读: read without leaving the page, the badge follows, a reload agrees
    page.evaluate("() => { window.__before = true; }")
    row.locator("form.inbox-read-one button").click()
    page.locator(f'.inbox-row[data-id="{live2}"]:not(.unread)').wait_for()
    assert row.locator("form.inbox-read-one").count() == 0
    page.locator("#inbox-badge[data-unread='2']").wait_for(state="attached")
    assert page.evaluate("() => window.__before === true")  # no reload
    page.reload()
    assert "unread" not in (page.locator(f'.inbox-row[data-id="{live2}"]')
                            .get_attribute("class") or "")
    assert page.locator(".inbox-row.unread").count() == 2
    me.assert_clean()
