"""A table's name as shown (games/names.py, static/js/i18n.js ``tableName``):
the names the site gives (practice, default) are stored once in both
languages, and each page shows only its own language's half — the lobby's
rows (server-rendered and redrawn by lobby.js), the table page's title and
heading (and info.js's redraw), a profile's recent games. Other names, and
the stored value, are unchanged."""

from __future__ import annotations

import doctest
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from games import names, tables
from games.models import Table
from tests.helpers import make_players

I18N_JS = Path(__file__).resolve().parent.parent / "static" / "js" / "i18n.js"
NODE = shutil.which("node") or shutil.which("nodejs")

CASES = [
    ("练习桌 3 · Practice 3", "练习桌 3", "Practice 3"),
    ("桌 12 · Table 12", "桌 12", "Table 12"),
    # not the site's own: shown as stored
    ("练习桌 3 · Practice 4", "练习桌 3 · Practice 4", "练习桌 3 · Practice 4"),
    ("桌 3 · Practice 3", "桌 3 · Practice 3", "桌 3 · Practice 3"),
    ("练习桌 3 · Practice 3 !", "练习桌 3 · Practice 3 !", "练习桌 3 · Practice 3 !"),
    ("老王的桌", "老王的桌", "老王的桌"),
    ("Practice 3", "Practice 3", "Practice 3"),
]


def test_the_doctests_pass():
    assert doctest.testmod(names).failed == 0


@pytest.mark.parametrize(("stored", "zh", "en"), CASES)
def test_display_name_gives_the_pages_half_of_a_given_name_only(stored, zh, en):
    assert names.display_name(stored, "zh-hans") == zh
    assert names.display_name(stored, "en") == en


def _page(client, url, language):
    return client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "shown", "hidden"), [
    ("zh-hans", "练习桌 {n}", "Practice {n}"), ("en", "Practice {n}", "练习桌 {n}")])
def test_a_practice_table_reads_in_the_pages_language(language, shown, hidden):
    me, = make_players(1, "tn" + language[:2])
    table = tables.practice(me, "beginner")
    shown, hidden = shown.format(n=table.pk), hidden.format(n=table.pk)
    assert Table.objects.get(pk=table.pk).name == tables.practice_name(table.pk)  # stored once
    viewer = Client()
    viewer.force_login(me)

    lobby = _page(viewer, reverse("lobby"), language)
    row = re.search(r'<a class="lt-name"[^>]*>([^<]*)</a>', lobby)
    assert row
    assert row.group(1) == shown
    running = re.search(r'id="running-game"[^>]*>(.*?)<a', lobby, re.S)
    assert running
    assert shown in running.group(1)
    assert hidden not in running.group(1)

    page = _page(viewer, reverse("table", args=[table.pk]), language)
    assert re.search(r"<title>([^<]*)</title>", page).group(1).startswith(shown)
    h1 = re.search(r'<h1 id="table-name"[^>]*>([^<]*)</h1>', page)
    assert h1
    assert h1.group(1) == shown


@pytest.mark.django_db
def test_a_default_name_reads_in_the_pages_language_on_the_lobby(client):
    owner, = make_players(1, "tndef")
    table = tables.create_table(owner)
    assert table.name == tables.default_name(table.pk)
    for language, shown in (("zh-hans", f"桌 {table.pk}"), ("en", f"Table {table.pk}")):
        lobby = _page(client, reverse("lobby"), language)
        assert f'<a class="lt-name" href="/tables/{table.pk}/">{shown}</a>' in lobby


# the static/js files are ES modules served as .js (tests/test_page_selection.py)
_JS = r"""
const {T, tableName} = await import(process.argv[1]);
const stored = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = {};
for (const lang of ["zh", "en"]) {
  T.lang = lang;
  out[lang] = stored.map(tableName);
}
process.stdout.write(JSON.stringify(out));
"""


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_the_pages_scripts_read_names_the_same_way():
    """lobby.js and info.js redraw names with i18n.js ``tableName``: the same
    halves as the server's :func:`games.names.display_name`."""
    run = subprocess.run(
        [NODE, "--experimental-default-type=module", "--input-type=commonjs", "-e",
         f"(async () => {{ {_JS} }})()", str(I18N_JS)],
        input=json.dumps([c[0] for c in CASES]), capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {"zh": [c[1] for c in CASES], "en": [c[2] for c in CASES]}


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "shown", "hidden"), [
    ("zh-hans", "练习桌 {n}", "Practice {n}"), ("en", "Practice {n}", "练习桌 {n}")])
def test_a_played_game_its_review_the_console_and_a_kick_read_in_one_language(
        language, shown, hidden):
    """A tester read "第 1 局 · 练习桌 1 · Practice 1" on the result page, the
    review's title, the moderator console and a kick's notification: each
    shows the page's (or the reader's) half only."""
    from accounts import inbox
    from accounts.models import Notification
    from moderation import actions, roles
    from tests import page_states

    me, mod = make_players(2, "tnplay" + language[:2])
    roles.add(mod)
    game_id = page_states.finished_practice(me.username)
    table_id = Table.objects.get(games__id=game_id).pk
    shown, hidden = shown.format(n=table_id), hidden.format(n=table_id)
    player, moderator = Client(), Client()
    player.force_login(me)
    moderator.force_login(mod)
    pages = {
        "result": _page(player, reverse("game_result", args=[game_id]), language),
        "review": _page(player, reverse("game_review", args=[game_id]), language),
        "console": _page(moderator, reverse("mod_console"), language),
        "mod table": _page(moderator, reverse("mod_table", args=[table_id]), language),
    }
    # the moderator's rename box keeps the stored name (it is what a rename replaces)
    pages["mod table"] = re.sub(r'<input type="text" name="name"[^>]*>', "", pages["mod table"])
    for where, page in pages.items():
        assert shown in page, where
        assert hidden not in page, where
    # stood up at the game's end (no connection here): kicked from a new one
    n = tables.practice(me, "normal").pk
    actions.kick(mod, n, me.username, "挂机")
    said = inbox.as_frame(Notification.objects.get(user=me, kind="moderator_kick"))["text"]
    assert f"练习桌 {n}" in said["zh-hans"]
    assert f"Practice {n}" not in said["zh-hans"]
    assert f"Practice {n}" in said["en"]
    assert f"练习桌 {n}" not in said["en"]
