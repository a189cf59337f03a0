"""What one seat may see: ``view(state, seat)`` (RULES.md §2, DESIGN.md).

The only game data that ever leaves the server. While the game runs a seat sees
its own hand, the others' card counts, the indicator (face up, §2), the current
trick, points, finish order and whose turn; a spectator (``seat=None``) sees the
same without any hand. Never the seed nor another seat's cards. When the game is
over, everything: all hands as left, and the seed.
"""

from __future__ import annotations

from typing import Any

from .match import OVER, State

_HALF_PUBLIC = ("half", "indicator", "dao", "first_dealt", "leader", "finish_order", "end",
                "captured", "transfers", "points")


def view(state: State, seat: int | None) -> dict[str, Any]:
    """The view of ``state`` for ``seat`` (0–3), or for a spectator (``None``).

    :returns: a JSON-able dict: ``seq``, ``status``, ``half``, ``dao``,
        ``indicator``, ``indicator_seat``, ``turn``, ``seat``, ``hand`` (own
        cards sorted weakest first, ``None`` for a spectator), ``counts`` (cards
        per seat), ``trick`` (``leader``, ``plays`` as ``[seat, cards]``, ``last``,
        ``points``), ``captured`` (per seat this half), ``finish_order``,
        ``halves`` (finished halves' public summaries), ``stake``, ``practice``,
        ``result``; when the game is over also ``hands`` (all four) and ``seed``.
    :raises ValueError: for a seat outside 0–3.
    """
    if seat is not None and seat not in (0, 1, 2, 3):
        raise ValueError(f"no such seat: {seat!r}")
    over = state["status"] == OVER
    t = state["trick"]
    out: dict[str, Any] = {
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
        "trick": {"leader": t["leader"], "plays": [list(p) for p in t["plays"]],
                  "last": t["last"], "points": t["points"]},
        "captured": list(state["captured"]),
        "finish_order": list(state["finish_order"]),
        "halves": [{k: h[k] for k in _HALF_PUBLIC} for h in state["halves"]],
        "stake": state["stake"],
        "practice": state["practice"],
        "result": state["result"],
    }
    if over:
        out["hands"] = [list(h) for h in state["hands"]]
        out["seed"] = state["seed"]
    return out


def bot_view(state: State, seat: int) -> dict[str, Any]:
    """What a bot in ``seat`` may know (RULES.md §12): :func:`view` plus ``history``.

    ``history`` is every action of the current half in order as ``[seat, cards]``,
    a pass being ``[seat, []]`` (the shape of the §11 record's ``actions``): an
    attentive player remembers every play. It holds no card that was not played
    face up, so a bot still sees only its own hand. Clients never get this view.

    :returns: the dict of :func:`view` for ``seat`` with the extra key ``history``.
    :raises ValueError: for a seat outside 0–3 (a spectator has no bot).
    """
    if seat not in (0, 1, 2, 3):
        raise ValueError(f"no such seat: {seat!r}")
    out = view(state, seat)
    out["history"] = [[s, list(cards)] for s, cards in state["actions"]]
    return out
