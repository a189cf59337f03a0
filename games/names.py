"""A table's name as a reader sees it.

The names the site gives a table are stored once, in both languages, because
a name is read by everyone (:func:`games.tables.default_name` ``"桌 12 · Table
12"``, :func:`games.tables.practice_name` ``"练习桌 12 · Practice 12"``). A page
shows only its own language's half (:func:`display_name`); any other name,
and the stored value, stay as they are. ``tableName`` in static/js/i18n.js
is the same rule for the pages' scripts (the lobby's rows, the table's bar).
"""

from __future__ import annotations

import re

from django.utils.translation import get_language

#: exactly the two given names, both halves with the same number
_GIVEN = (re.compile(r"(桌 ([0-9]+)) · (Table \2)"),
          re.compile(r"(练习桌 ([0-9]+)) · (Practice \2)"))


def display_name(name: str, language: str | None = None) -> str:
    """``name`` in ``language`` (a Django language code; the active one when
    ``None``): a site-given bilingual name gives its Chinese half to ``zh…``
    and its English half to any other language; other names are unchanged.

    >>> display_name("练习桌 3 · Practice 3", "zh-hans"), display_name("桌 12 · Table 12", "en")
    ('练习桌 3', 'Table 12')
    >>> display_name("练习桌 3 · Practice 4", "en"), display_name("老王的桌", "en")
    ('练习桌 3 · Practice 4', '老王的桌')
    """
    for pattern in _GIVEN:
        found = pattern.fullmatch(name)
        if found:
            chinese = (language or get_language() or "zh-hans").startswith("zh")
            return found.group(1) if chinese else found.group(3)
    return name
