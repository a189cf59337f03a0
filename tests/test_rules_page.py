"""The rules help page ``/rules/``: Chinese by default, English after the
language switch, linked from the nav and the lobby, and its level table is
``accounts.levels.LEVELS`` (rendered from it, so it cannot drift)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from accounts.levels import LEVELS

pytestmark = pytest.mark.django_db


def _ladder_rows(html: str) -> list[tuple[int, str, str, str]]:
    """(level, title cell text, threshold, stake) of each row of #level-ladder."""
    table = re.search(r'<table[^>]*id="level-ladder".*?</table>', html, re.S)
    assert table, "no #level-ladder table"
    rows = []
    for m in re.finditer(
        r'<tr data-level="(\d+)"><td>\d+</td><td class="lv-title">(.*?)</td>'
        r'<td class="num lv-threshold">([\d,]+)</td><td class="num lv-stake">(\d+)</td>',
        table.group(0),
    ):
        title = re.sub(r"<[^>]+>", "", m.group(2)).strip()
        rows.append((int(m.group(1)), title, m.group(3), m.group(4)))
    return rows


def test_rules_url():
    assert reverse("rules") == "/rules/"


def test_rules_page_in_chinese_by_default(client):
    response = client.get(reverse("rules"))
    assert response.status_code == 200
    assert next(t.name for t in response.templates) == "games/rules_zh.html"
    html = response.content.decode()
    for term in ("接风", "双夹", "刀", "原子", "氢弹", "炸弹", "上游", "下游", "对家",
                 "积分", "对局分", "托管", "逆时针", "41", "305", "30 秒", "本站的约定",
                 "棋谱", "管理员关桌", "有人被封号"):
        assert term in html, term
    assert "炸弹不可以压刀" in html
    assert "原子弹" in html
    assert "2,000,000" in html
    assert "This site's decisions" not in html


def test_rules_page_in_english_after_switching(client):
    client.post(reverse("set_language"), {"language": "en", "next": "/rules/"})
    response = client.get(reverse("rules"))
    assert next(t.name for t in response.templates) == "games/rules_en.html"
    html = response.content.decode()
    assert "How to play" in html
    assert "This site's decisions" in html
    assert "counterclockwise" in html
    assert "double clamp" in html
    assert "Game records" in html
    assert "a moderator closing the table" in html
    assert "Atom Bomb" in html
    assert "2,000,000" in html
    assert "本站的约定" not in html
    assert '<html lang="en">' in html


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_level_table_matches_levels(client, language):
    client.post(reverse("set_language"), {"language": language, "next": "/"})
    rows = _ladder_rows(client.get(reverse("rules")).content.decode())
    assert len(rows) == len(LEVELS)
    for (number, title, threshold, stake), rung in zip(rows, LEVELS, strict=True):
        assert number == rung.number
        assert title.startswith(rung.title)
        if language == "en":
            assert rung.title_en in title
        assert threshold == f"{rung.threshold:,}"
        assert int(stake) == rung.stake


def test_level_table_follows_levels_changes(client, monkeypatch):
    from accounts import levels
    from games.engine.levels import Level

    monkeypatch.setattr(levels, "LEVELS", (Level(0, "测试级", "Test", 0, 3),))
    rows = _ladder_rows(client.get(reverse("rules")).content.decode())
    assert rows == [(0, "测试级", "0", "3")]


def test_nav_and_lobby_link_to_rules(client):
    html = client.get(reverse("lobby")).content.decode()
    nav = re.search(r'<nav class="site-nav".*?</nav>', html, re.S).group(0)
    assert '<a href="/rules/">规则</a>' in nav
    body = html.split("</header>", 1)[1]
    assert 'href="/rules/"' in body  # the lobby's own link

    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    html = client.get(reverse("leaderboard")).content.decode()
    nav = re.search(r'<nav class="site-nav".*?</nav>', html, re.S).group(0)
    assert '<a href="/rules/">Rules</a>' in nav
