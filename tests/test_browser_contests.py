"""Daily tasks, the weekly board and achievements in a real browser (a 360 ×
740 touch phone in Chinese, a desktop in English): the lobby's task panel under
the lobby's head, a task's progress arriving live on the per-user channel, the
claim button paying once (the header's coins follow), the weekly board and the
profile's achievements; no sideways scroll on the phone.

The progress is counted by a ``manage.py shell`` beside the site, and its frame
reaches the site's socket through the Redis channel layer: that test runs only
with ``DATABASE_URL`` and ``REDIS_URL`` (CI sets both)."""

from __future__ import annotations

import json
import os

import pytest

from tests import test_browser as tb
from tests.browser import Player, chromium_path

pytestmark = [
    pytest.mark.skipif(chromium_path() is None,
                       reason="browser tests need Debian's chromium at /usr/bin/chromium"),
    pytest.mark.django_db(transaction=True),
]

#: today's first task of a user, as JSON (code, fact, target, reward)
FIRST_TASK = """
import json
from django.contrib.auth import get_user_model
from contests import quests
user = get_user_model().objects.get(username="{name}")
print(json.dumps(quests.assigned(user.pk, quests.today())[0]._asdict()))
"""

#: the task done (counted as a game's end would), the account past 10 rated games
COUNT = """
from django.contrib.auth import get_user_model
from django.db import transaction
from accounts.models import Profile
from contests import quests
user = get_user_model().objects.get(username="{name}")
Profile.objects.filter(user=user).update(rated_games=10, counted_games=10)
with transaction.atomic():
    quests.count(user.pk, "{fact}", {n})
"""

GRANT = """
from django.contrib.auth import get_user_model
from contests import achievements
achievements.grant(get_user_model().objects.get(username="{name}").pk, "first_atom")
"""

site = tb.site
browser = tb.browser

PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"


@pytest.mark.skipif(not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")),
                    reason="needs DATABASE_URL and REDIS_URL: the live frame crosses "
                           "from a shell to the site through Redis")
def test_a_task_done_live_then_claimed_on_a_phone(site, browser):
    base = site.base_url
    ming = Player.open(browser, "xiaoming", **PHONE)
    ming.sign_up(base)
    page = ming.page
    page.locator("#lobby-status[data-state=open]").wait_for()
    task = json.loads(site.manage("shell", "-c", FIRST_TASK.format(name="xiaoming"))
                      .strip().splitlines()[-1])
    code = task["code"]
    row = page.locator(f'#daily-tasks .task[data-task="{code}"]')
    row.wait_for()
    assert "每日任务" in page.locator("#daily-tasks h2").inner_text()
    # the panel sits under the lobby's head, above the tables
    assert page.evaluate("""() => document.querySelector('.lobby-head').nextElementSibling.id""") \
        == "daily-tasks"
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    assert row.locator(".task-count").inner_text() == "0"
    assert not row.locator(".claim-btn").is_visible()

    site.manage("shell", "-c", COUNT.format(name="xiaoming", fact=task["fact"],
                                            n=task["target"]))
    page.locator(f'#daily-tasks .task.done[data-task="{code}"]').wait_for()
    assert row.locator(".task-count").inner_text() == str(task["target"])
    coins = int(page.locator("#me-figures").get_attribute("data-coins"))
    row.locator(".claim-btn").click()
    page.locator(f'#daily-tasks .task.claimed[data-task="{code}"]').wait_for()
    assert row.locator(".task-claimed").is_visible()
    page.locator(f"#me-figures[data-coins='{coins + task['reward']}']").wait_for()

    # the weekly board and the profile's achievements on the phone
    page.goto(base + "/weekly/")
    assert "周榜" in page.locator("h1").inner_text()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    site.manage("shell", "-c", GRANT.format(name="xiaoming"))
    page.goto(base + "/accounts/profile/")
    page.locator('#achievements .achievement[data-code="first_atom"]').wait_for()
    assert "第一个原子" in page.locator("#achievements").inner_text()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    ming.assert_clean()


def test_the_weekly_board_and_tasks_in_english_on_a_desktop(site, browser):
    base = site.base_url
    hong = Player.open(browser, "xiaohong", locale="en-US",
                       viewport={"width": 1280, "height": 900})
    hong.sign_up(base)
    assert "Daily tasks" in hong.page.locator("#daily-tasks h2").inner_text()
    assert "10 rated games" in hong.page.locator("#daily-tasks .tasks-locked").inner_text()
    hong.page.locator("#daily-tasks .weekly-link").click()
    hong.page.wait_for_url(base + "/weekly/")
    assert "Weekly board" in hong.page.locator("h1").inner_text()
    assert "Nobody is on the board this week yet." in hong.page.content()
    hong.assert_clean()
