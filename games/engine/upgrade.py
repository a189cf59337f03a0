"""Stored states and records brought to the current version (RULES.md §11, docs/record.md).

A game's state lives in the database as JSON (``Game.state``) and its record in
files and rows, for years; the engine's shapes change. Every stored state or
record enters the engine through :func:`upgrade` / :func:`upgrade_record`
(``apply``, ``abandon``, ``view``, ``to_act``, ``table_play``, ``timeout_action``,
``to_record`` and ``from_record`` call them), which apply one step per version
in order. A later change adds a field by adding a step here and bumping the
version; nothing else reads old shapes.

Version 2 adds ``result.reason`` (a version-1 game ended by an escape
if ``abandoned_by`` is set, else normally) and turns ``bots`` from booleans into
policy names (``True`` was today's heuristic bot: ``"normal"``; ``False`` a
human: ``None``). Record version 3 adds ``challenge`` (``None`` for a game; a
daily challenge board's ``{"date", "board"}``); states stay at version 2.

>>> old = {"version": 1, "bots": [False, True, False, False], "result": None}
>>> new = upgrade(old)
>>> new["version"], new["bots"]
(2, [None, 'normal', None, None])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from .errors import ArgumentError, RecordError
from .shapes import BOT_POLICIES, BotPolicy, Record, State

STATE_VERSION = 2
"""The version of the states :func:`~games.engine.new_game` makes."""
RECORD_VERSION = 3
"""The version of the records :func:`~games.engine.to_record` writes."""

_Raw = dict[str, Any]


def bot_policy(entry: object) -> BotPolicy | None:
    """A seat's bot entry as the state stores it: a policy name, or ``None`` for a human.

    ``True`` means ``"normal"`` and ``False`` ``None`` (version-1 states and the
    site's callers before version 2 give booleans).

    >>> bot_policy(True), bot_policy(False), bot_policy("expert"), bot_policy(None)
    ('normal', None, 'expert', None)

    :raises ArgumentError: ``bad_bot`` for anything else.
    """
    if entry is None or entry is False:
        return None
    if entry is True:
        return "normal"
    for name in BOT_POLICIES:
        if entry == name:
            return name
    raise ArgumentError(
        "bad_bot", f"not a bot policy: {entry!r} (one of {', '.join(BOT_POLICIES)}, or None)"
    )


def _result_reason(result: Mapping[str, Any]) -> str:
    return "escape" if result.get("abandoned_by") is not None else "normal"


def _bots_1_to_2(bots: object) -> list[BotPolicy | None]:
    if not isinstance(bots, list) or len(bots) != 4 or not all(isinstance(b, bool) for b in bots):
        raise RecordError("bad_record", f"version-1 bots must be 4 booleans, got {bots!r}")
    return [bot_policy(b) for b in bots]


def _state_1_to_2(s: _Raw) -> _Raw:
    s["bots"] = _bots_1_to_2(s.get("bots"))
    result = s.get("result")
    if result is not None:
        s["result"] = {**result, "reason": _result_reason(result)}
    return s


def _record_1_to_2(r: _Raw) -> _Raw:
    r["levels"] = list(r.get("levels", (0, 0, 0, 0)))
    r["bots"] = _bots_1_to_2(r.get("bots", [False] * 4))
    result = r.get("result")
    if not isinstance(result, Mapping):
        raise RecordError("bad_record", "a record needs a result object")
    r["result"] = {**result, "reason": _result_reason(result)}
    return r


def _record_2_to_3(r: _Raw) -> _Raw:
    r["challenge"] = None  # every record before version 3 is a game's
    return r


_STATE_STEPS: dict[int, Callable[[_Raw], _Raw]] = {1: _state_1_to_2}
_RECORD_STEPS: dict[int, Callable[[_Raw], _Raw]] = {1: _record_1_to_2, 2: _record_2_to_3}


def _upgrade(
    data: object, current: int, steps: Mapping[int, Callable[[_Raw], _Raw]], what: str
) -> _Raw:
    if not isinstance(data, Mapping):
        raise RecordError("bad_record", f"a {what} is a JSON object, got {type(data).__name__}")
    version = data.get("version")
    if version == current:
        return cast(_Raw, data)
    if not isinstance(version, int) or isinstance(version, bool) or version not in steps:
        raise RecordError(
            "bad_version", f"unknown {what} version {version!r} (this engine reads 1–{current})"
        )
    out = dict(data)
    while version != current:
        out = steps[version](out)
        version += 1
        out["version"] = version
    return out


def upgrade(state: object) -> State:
    """A stored game state at the current version (:data:`STATE_VERSION`).

    A current state is returned as it is (the engine never mutates states); an
    older one is copied and upgraded step by step. The input is never changed.

    :raises RecordError: ``bad_version`` for a version this engine does not know
        (a newer engine's state, or none), ``bad_record`` for something that is not
        a state (not an object, version-1 ``bots`` not four booleans).
    """
    if type(state) is dict and state.get("version") == STATE_VERSION:
        return cast(State, state)  # the common case, first: every apply() comes here
    return cast(State, _upgrade(state, STATE_VERSION, _STATE_STEPS, "state"))


def upgrade_record(record: object) -> Record:
    """A §11 record at the current version (:data:`RECORD_VERSION`); see :func:`upgrade`.

    Version 1 records without ``levels`` / ``bots`` (the §11 shape of RULES.md)
    get four level-0 human seats.

    :raises RecordError: ``bad_version`` or ``bad_record``, as :func:`upgrade`.
    """
    return cast(Record, _upgrade(record, RECORD_VERSION, _RECORD_STEPS, "record"))
