"""The game record (RULES.md §11, version 3 in docs/record.md) and replay from the action log.

Every state of a game is rebuilt exactly from its seed, its players' levels and
bot seats, and the ordered list of actions: :func:`replay`. :func:`to_record`
writes a finished or abandoned game as one §11 JSON object (with ``levels`` and
``bots``, which the stake and practice flag need, and ``result.reason``);
:func:`from_record` loads one, of any known version (:func:`upgrade_record`),
and replays it. A daily challenge board's record (``challenge`` set) holds its
first half only: :func:`from_record` replays that half and checks it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import cast

from .deal import deal_half
from .errors import EngineError, RecordError
from .match import OVER, abandon, apply, new_game
from .shapes import (
    Action,
    BotPolicy,
    Card,
    PassAction,
    PlayAction,
    Record,
    RecordHalf,
    Seat,
    SeatCards,
    State,
    seat_cards,
)
from .upgrade import RECORD_VERSION, upgrade, upgrade_record

Step = tuple[Seat, Action]
"""One ``(seat, action)`` of a game's log, in the order applied."""


def action_of(cards: Sequence[Card]) -> Action:
    """The action for a §11 ``[seat, cards]`` entry: an empty list is a pass."""
    if cards:
        return PlayAction(type="play", cards=list(cards))
    return PassAction(type="pass")


def replay(
    seed: str | int,
    actions: Iterable[Step],
    levels: Sequence[int] = (0, 0, 0, 0),
    bots: Sequence[BotPolicy | bool | None] = (None, None, None, None),
) -> list[State]:
    """Rebuild every state of a game: the initial one, then one per action.

    :param actions: ``(seat, action)`` pairs in the order applied (an escape is
        one; the site's other endings are not seat actions: see :func:`from_record`).
    :param levels: as :func:`~games.engine.new_game`.
    :param bots: as :func:`~games.engine.new_game` (policy names or booleans).
    :raises IllegalAction: if the log holds an action the rules refuse.
    :raises ArgumentError: for bad levels or bots.
    """
    states = [new_game(seed, levels, bots)]
    for seat, action in actions:
        states.append(apply(states[-1], seat, action)[0])
    return states


def _entries(entries: list[SeatCards]) -> list[SeatCards]:
    return [seat_cards(seat, list(cards)) for seat, cards in entries]


def to_record(state: State) -> Record:
    """The §11 record (version 2) of a finished or abandoned game.

    An abandoned game keeps the half it was abandoned in, with ``end`` and
    ``points`` ``None``.

    :raises RecordError: ``game_running`` while the game runs (the seed would
        reveal every hand); ``bad_version`` / ``bad_record`` for a stored state
        the engine cannot read.
    """
    state = upgrade(state)
    r = state["result"]
    if state["status"] != OVER or r is None:
        raise RecordError(
            "game_running", "a record is written only for a finished game (its seed is secret)"
        )
    out_halves: list[RecordHalf] = [
        {"half": h["half"], "indicator": h["indicator"], "dao": h["dao"],
         "first_dealt": h["first_dealt"], "hands": [], "leader": h["leader"],
         "actions": _entries(h["actions"]), "finish_order": list(h["finish_order"]),
         "end": h["end"], "points": list(h["points"])}
        for h in state["halves"]
    ]
    if r["reason"] != "normal" and (not out_halves or out_halves[-1]["half"] != state["half"]):
        out_halves.append(  # the half it was abandoned in
            {"half": state["half"], "indicator": state["indicator"], "dao": state["dao"],
             "first_dealt": state["first_dealt"], "hands": [], "leader": state["leader"],
             "actions": _entries(state["actions"]), "finish_order": list(state["finish_order"]),
             "end": None, "points": None}
        )
    first_out: Seat | None = None
    for h in out_halves:  # the hands as dealt, which the state no longer holds
        h["hands"] = [list(x) for x in deal_half(state["seed"], h["half"], first_out).hands]
        if h["finish_order"]:
            first_out = h["finish_order"][0]
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
            "reason": r["reason"],
        },
        "challenge": None,
    }


def record_actions(record: Record) -> list[Step]:
    """The ``(seat, action)`` list a §11 record describes: every play and pass, and
    the escape that ended it if one did.

    A game ended by a moderator or a suspension (``result.reason``) has no seat
    action for its end: :func:`from_record` applies it with :func:`abandon`.

    :raises RecordError: ``bad_version`` / ``bad_record`` for a record the engine
        cannot read.
    """
    record = upgrade_record(record)
    try:
        actions: list[Step] = [
            (seat, action_of(cards)) for h in record["halves"] for seat, cards in h["actions"]
        ]
        result = record["result"]
        by = result["abandoned_by"]
        if result["reason"] == "escape" and by is not None:
            actions.append((by, {"type": "escape"}))
    except (KeyError, TypeError, ValueError) as e:
        raise RecordError("bad_record", f"a malformed record: {e!r}") from None
    return actions


def from_record(record: Record) -> list[State]:
    """Load a §11 record (any known version) and replay it: every state from the
    deal to the end, the last one ended as ``result.reason`` says.

    :raises RecordError: (a ``ValueError``) ``bad_version`` for an unknown version,
        ``bad_record`` for a malformed record or one whose log the rules refuse,
        ``record_mismatch`` if what it says (hands, finish order, points, winner,
        reason) differs from what replaying gives.
    """
    record = upgrade_record(record)
    if record.get("challenge"):
        return _board_states(record)
    steps = record_actions(record)
    try:
        states = replay(record["seed"], steps, record["levels"], record["bots"])
        reason = record["result"]["reason"]
        if reason not in ("normal", "escape"):
            states.append(abandon(states[-1], reason, record["result"]["abandoned_by"])[0])
    except (EngineError, KeyError, TypeError) as e:
        raise RecordError("bad_record", f"the record does not replay: {e}") from None
    if states[-1]["status"] != OVER:
        raise RecordError("record_mismatch", "the record's log does not end its game")
    expected = cast(Record, {**record, "seed": str(record["seed"])})
    if to_record(states[-1]) != expected:
        raise RecordError("record_mismatch", "the record does not match its own replay")
    return states


def _board_states(record: Record) -> list[State]:
    """Replay a daily challenge board's record (its first half only) and check
    its half: hands as dealt, finish order, end and points."""
    try:
        half = record["halves"][0]
        if len(record["halves"]) != 1 or half["half"] != 1:
            raise RecordError("bad_record", "a board's record holds its first half only")
        steps = [(seat, action_of(cards)) for seat, cards in half["actions"]]
        states = replay(record["seed"], steps, record["levels"], record["bots"])
    except (EngineError, KeyError, TypeError, ValueError, IndexError) as e:
        if isinstance(e, RecordError):
            raise
        raise RecordError("bad_record", f"the board's record does not replay: {e}") from None
    done = states[-1]["halves"]
    dealt = [list(x) for x in deal_half(record["seed"], 1).hands]
    if (len(done) != 1 or half["hands"] != dealt or half["finish_order"] != done[0]["finish_order"]
            or half["end"] != done[0]["end"] or half["points"] != done[0]["points"]):
        raise RecordError("record_mismatch", "the board's record does not match its replay")
    return states
