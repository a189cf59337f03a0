"""The game record (RULES.md §11) and replay from the action log.

Every state of a game is rebuilt exactly from its seed, its players' levels and
bot seats, and the ordered list of actions: :func:`replay`. :func:`to_record`
writes a finished game as one §11 JSON object (plus ``levels`` and ``bots``,
which the stake needs); :func:`from_record` loads one and replays it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .deal import deal_half
from .match import OVER, State, apply, new_game

RECORD_VERSION = 1

Action = tuple[int, dict[str, Any]]


def action_of(cards: Sequence[str]) -> dict[str, Any]:
    """The action for a §11 ``[seat, cards]`` entry: an empty list is a pass."""
    return {"type": "play", "cards": list(cards)} if cards else {"type": "pass"}


def replay(
    seed: str | int,
    actions: Iterable[Action],
    levels: Sequence[int] = (0, 0, 0, 0),
    bots: Sequence[bool] = (False, False, False, False),
) -> list[State]:
    """Rebuild every state of a game: the initial one, then one per action.

    :param actions: ``(seat, action)`` pairs in the order applied.
    :raises IllegalAction: if the log holds an action the rules refuse.
    """
    states = [new_game(seed, levels, bots)]
    for seat, action in actions:
        states.append(apply(states[-1], seat, action)[0])
    return states


def to_record(state: State) -> dict[str, Any]:
    """The §11 record of a finished or abandoned game.

    :raises ValueError: while the game runs (the seed would reveal every hand).
    """
    if state["status"] != OVER:
        raise ValueError("a record is written only for a finished game (its seed is secret)")
    halves = list(state["halves"])
    if state["result"]["abandoned_by"] is not None and (
        not halves or halves[-1]["half"] != state["half"]
    ):
        halves.append(
            {
                "half": state["half"],
                "indicator": state["indicator"],
                "dao": state["dao"],
                "first_dealt": state["first_dealt"],
                "leader": state["leader"],
                "actions": state["actions"],
                "finish_order": state["finish_order"],
                "end": None,
                "points": None,
            }
        )
    first_out = None
    out_halves = []
    for h in halves:
        deal = deal_half(state["seed"], h["half"], first_out)
        out_halves.append(
            {
                "half": h["half"],
                "indicator": h["indicator"],
                "dao": h["dao"],
                "first_dealt": h["first_dealt"],
                "hands": [list(x) for x in deal.hands],
                "leader": h["leader"],
                "actions": [[seat, list(cards)] for seat, cards in h["actions"]],
                "finish_order": list(h["finish_order"]),
                "end": h["end"],
                "points": h["points"],
            }
        )
        if h["finish_order"]:
            first_out = h["finish_order"][0]
    r = state["result"]
    return {
        "version": RECORD_VERSION,
        "seed": state["seed"],
        "levels": list(state["levels"]),
        "bots": list(state["bots"]),
        "halves": out_halves,
        "result": {
            "winner": r["winner"],
            "double_clamp": r["double_clamp"],
            "abandoned_by": r["abandoned_by"],
        },
    }


def record_actions(record: dict[str, Any]) -> list[Action]:
    """The ``(seat, action)`` list a §11 record describes, escape included."""
    actions: list[Action] = [
        (seat, action_of(cards)) for h in record["halves"] for seat, cards in h["actions"]
    ]
    by = record["result"].get("abandoned_by")
    if by is not None:
        actions.append((by, {"type": "escape"}))
    return actions


def from_record(record: dict[str, Any]) -> list[State]:
    """Load a §11 record and replay it: every state from the deal to the end.

    :raises ValueError: if the record's version is unknown, or if what it says
        (hands, finish order, points, winner) differs from what replaying gives.
    """
    if record.get("version") != RECORD_VERSION:
        raise ValueError(f"unknown record version {record.get('version')!r}")
    states = replay(
        record["seed"],
        record_actions(record),
        record.get("levels", (0, 0, 0, 0)),
        record.get("bots", (False, False, False, False)),
    )
    expected = {"levels": [0, 0, 0, 0], "bots": [False] * 4, **record}
    expected["seed"] = str(expected["seed"])
    if to_record(states[-1]) != expected:
        raise ValueError("the record does not match its own replay")
    return states
