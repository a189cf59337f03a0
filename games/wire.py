"""Reading what clients send, the same way on every HTTP endpoint and socket
(never an HTTP 500): whole numbers in ASCII digits only (:func:`whole`, the
one reading of every number field, docs/protocol.md "Input rules"), JSON text
that cannot raise anything but :class:`ValueError`.

Python's ``int()`` and ``str.isdigit()`` take far more than ``0``–``9``:
``int("３００")`` is 300, ``int("٣")`` is 3, and ``"²".isdigit()`` is true while
``int("²")`` raises — a number field read with them either means something
the client never typed or ends in an HTTP 500. ``json.loads`` raises
``RecursionError`` on text nested ~1,000 deep.

Writing: :func:`dumps`, the frames every socket sends (orjson: a seat's view
is encoded in about a sixth of ``json.dumps``'s time, docs/bench.md
"Production CPU a move, fourth look").
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

_DIGITS = re.compile(r"[0-9]+")
#: the most digits a number may have (a bigint column holds 19; ``int()`` of
#: 8,000 raises): a longer one, as text or as a JSON integer, is no number
MAX_DIGITS = 18


def whole(value: Any, max_digits: int = MAX_DIGITS) -> int | None:
    """The number a client sent in a number field (a socket message's ``seat``,
    ``seq``, ``index``, ``slot`` …, a JSON body's, a form's or a query's), or
    ``None`` when it sent none.

    The rule of docs/protocol.md "Input rules": a JSON integer (``3``) or text
    of ASCII digits ``0``–``9`` and nothing else (``"3"``, ``"03"``), ≥ 0 and
    of at most ``max_digits`` digits. Not numbers: booleans, negative numbers,
    floats (``2.0``), other digits (``"²"``, ``"٣"``, ``"１"``), signs,
    separators, exponents and spaces around or inside (``" 5"``), the empty
    text, and anything longer. A range (a seat 0–3) is the caller's to check.

    >>> whole("42"), whole(7), whole("007")
    (42, 7, 7)
    >>> [whole(v) for v in ("²", "٣", "１", "-1", "1_0", " 5 ", "", True, 2.0, -3, 10**18)]
    [None, None, None, None, None, None, None, None, None, None, None]
    """
    if isinstance(value, bool):  # a bool is an int to Python, never a number here
        return None
    if isinstance(value, int):
        return value if 0 <= value < 10**max_digits else None
    if isinstance(value, str) and len(value) <= max_digits and _DIGITS.fullmatch(value):
        return int(value)
    return None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(text: str | bytes) -> Any:
    """Parse JSON ``text``; ``NaN``/``Infinity`` are not JSON.

    :raises ValueError: for text that is not JSON, not UTF-8, or nested too
        deeply to parse (``RecursionError`` is turned into this).
    """
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def dumps(content: Any) -> str:
    """``content`` as compact JSON text (non-string keys as strings, as
    ``json.dumps`` writes them); a value orjson cannot write (an integer
    beyond 64 bits) goes through ``json.dumps``, which raises ``TypeError``
    for what is not JSON at all.

    >>> dumps({"seat": 1, "cards": ["3H", "JK"], 0: None})
    '{"seat":1,"cards":["3H","JK"],"0":null}'
    """
    try:
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(content, separators=(",", ":"), ensure_ascii=False)
