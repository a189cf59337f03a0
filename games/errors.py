"""The one error the write side raises for a refused request, and the registry
of every reason code a client can be sent (docs/protocol.md lists each; its
test reads :data:`REASONS`, so a code added anywhere is a code documented).

Errors: :class:`Refused` (a ``ValueError``) with a stable ``reason`` code and a
translated message; nothing has changed when it is raised.
"""

from __future__ import annotations

#: every reason code → what it means (for docs and tests; users get the message)
REASONS: dict[str, str] = {}


def register_reasons(codes: dict[str, str]) -> None:
    """Add reason codes (``{code: meaning}``); apps call this in ``ready()``.

    :raises ValueError: for a code already registered with another meaning.
    """
    for code, meaning in codes.items():
        if REASONS.get(code, meaning) != meaning:
            raise ValueError(f"reason code {code!r} is already registered")
        REASONS[code] = meaning


class Refused(ValueError):
    """A request the rules or the table refuse; ``reason`` is a registered code,
    ``params`` the figures its message names (e.g. ``{"needed": 4000}``; sent
    in the ``error`` frame or ``notice`` when not empty).

    :raises ValueError: (at construction) for an unregistered code, so a new
        code cannot reach a client undocumented.
    """

    def __init__(self, reason: str, message: str, params: dict | None = None) -> None:
        if reason not in REASONS:
            raise ValueError(f"unregistered reason code {reason!r}")
        super().__init__(message)
        self.reason = reason
        self.params = dict(params or {})


register_reasons({
    # the socket and its limits
    "login_required": "an anonymous connection tried anything but ping / sync",
    "bad_message": "a malformed message or field, an unknown type",
    "rate_limited": "over the action or chat rate limit",
    # tables and seats
    "no_table": "the table is gone or closed",
    "bad_name": "a table name blank, over 40 characters or with control characters",
    "too_many_tables": "the owner already has the maximum of empty tables open",
    "game_running": "a seat change or setting during a game",
    "bad_seat": "seat is not an integer 0–3",
    "seat_taken": "that seat has a player or a bot",
    "seated_elsewhere": "you sit at another table whose game is running",
    "not_seated": "you have no seat at this table / in this game",
    "not_owner": "only the table's owner may do that",
    "no_bot": "remove_bot on a seat without a bot",
    "bad_bot": "add_bot with a bot level other than beginner, normal, expert, master",
    "not_private": "spectators can be kept out of a private table only",
    # games
    "no_game": "a game message while the table has never had a game",
    "stale": "the move names a seq that is not the game's current one",
    "bad_action": "not a move",
    "game_end_failed": "a game-end hook failed: the game did not end, the move was not made",
    # engine (games.engine.IllegalAction reasons)
    "not_your_turn": "it is another seat's turn",
    "not_in_hand": "cards that are not in your hand",
    "not_a_combination": "cards that are not a legal play (RULES.md §3)",
    "does_not_beat": "a play that does not beat the table's (RULES.md §3)",
    "must_lead": "the leader passed (RULES.md §4)",
    "game_over": "the game is over",
    "bad_card": "a card that is not a card",
    # chat
    "empty": "an empty chat line",
    "too_long": "a chat line over 200 characters",
})
