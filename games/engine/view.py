"""What one seat may see: ``view(state, seat)`` (RULES.md §2, DESIGN.md).

The only game data that ever leaves the server. While the game runs a seat sees
its own hand, the others' card counts, the indicator (face up, §2), the current
trick, points, finish order and whose turn; a spectator (``seat=None``) sees the
same without any hand. Never the seed nor another seat's cards. When the game is
over, everything: all hands as left, and the seed.
"""

from __future__ import annotations

from typing import cast

from .errors import ArgumentError
from .match import OVER
from .shapes import BotView, HalfSummary, HalfView, Result, Seat, SeatCards, State, View, seat_cards
from .upgrade import upgrade


def _entries(entries: list[SeatCards]) -> list[SeatCards]:
    # lists, as seat_cards builds them; one cast for the list (views are a hot path)
    return cast(list[SeatCards], [[seat, list(cards)] for seat, cards in entries])


def _half(h: HalfSummary) -> HalfView:
    return {
        "half": h["half"], "indicator": h["indicator"], "dao": h["dao"],
        "first_dealt": h["first_dealt"], "leader": h["leader"],
        "finish_order": list(h["finish_order"]), "end": h["end"],
        "captured": list(h["captured"]), "transfers": [t.copy() for t in h["transfers"]],
        "points": list(h["points"]),
    }


def _result(r: Result | None) -> Result | None:
    if r is None:
        return None
    out = r.copy()
    out["totals"] = list(r["totals"])
    out["rating_changes"] = list(r["rating_changes"])
    return out


def view(state: State, seat: Seat | None) -> View:
    """The view of ``state`` for ``seat`` (0–3), or for a spectator (``None``).

    Fresh data: no list or dict of the view is shared with ``state``, so a caller
    may change its view without changing the game. A stored older state is read
    through :func:`~games.engine.upgrade`.

    :returns: a :class:`~games.engine.shapes.View`: ``seq``, ``status``, ``half``,
        ``dao``, ``indicator``, ``indicator_seat``, ``leader``, ``turn``, ``seat``,
        ``hand`` (own cards sorted weakest first, ``None`` for a spectator),
        ``counts`` (cards per seat), ``trick`` (``leader``, ``plays`` as ``[seat,
        cards]``, ``last``, ``points``), ``captured`` (per seat this half),
        ``finish_order``, ``halves`` (finished halves' public summaries), ``stake``,
        ``practice``, ``bots`` (per seat the bot policy or ``None``), ``result``;
        when the game is over also ``hands`` (all four) and ``seed``.
    :raises ArgumentError: (a ``ValueError``) ``bad_seat`` for a seat outside 0–3.
    :raises RecordError: for a stored state the engine cannot read.
    """
    if seat is not None and (isinstance(seat, bool) or seat not in (0, 1, 2, 3)):
        raise ArgumentError("bad_seat", f"no such seat: {seat!r}")
    state = upgrade(state)
    t = state["trick"]
    last = t["last"]
    out: View = {
        "seq": state["seq"],
        "status": state["status"],
        "half": state["half"],
        "dao": state["dao"],
        "indicator": state["indicator"],
        "indicator_seat": state["indicator_seat"],
        "leader": state["leader"],
        "turn": state["turn"],
        "seat": seat,
        "hand": list(state["hands"][seat]) if seat is not None else None,
        "counts": [len(h) for h in state["hands"]],
        "trick": {"leader": t["leader"], "plays": _entries(t["plays"]),
                  "last": None if last is None else seat_cards(last[0], list(last[1])),
                  "points": t["points"]},
        "captured": list(state["captured"]),
        "finish_order": list(state["finish_order"]),
        "halves": [_half(h) for h in state["halves"]],
        "stake": state["stake"],
        "practice": state["practice"],
        "bots": list(state["bots"]),
        "result": _result(state["result"]),
    }
    if state["status"] == OVER:
        out["hands"] = [list(h) for h in state["hands"]]
        out["seed"] = state["seed"]
    return out


def bot_view(state: State, seat: Seat) -> BotView:
    """What a bot in ``seat`` may know (RULES.md §12): :func:`view` plus ``history``.

    ``history`` is every action of the current half in order as ``[seat, cards]``,
    a pass being ``[seat, []]`` (the shape of the §11 record's ``actions``): an
    attentive player remembers every play. It holds no card that was not played
    face up, so a bot still sees only its own hand and the counts of the others.
    Fresh data, like :func:`view`. Only bots get it: clients' views never carry
    ``history``.

    :returns: a :class:`~games.engine.shapes.BotView`.
    :raises ArgumentError: ``bad_seat`` for a seat outside 0–3 (a spectator has no bot).
    """
    if seat is None or isinstance(seat, bool) or seat not in (0, 1, 2, 3):
        raise ArgumentError("bad_seat", f"a bot plays a seat 0–3, not {seat!r}")
    state = upgrade(state)
    out = cast(BotView, view(state, seat))
    out["history"] = _entries(state["actions"])
    return out
