"""The games app's reason codes (:data:`yuanzi_site.refusals.REASONS`;
docs/protocol.md lists each), registered in ``GamesConfig.ready``."""

from yuanzi_site.refusals import register_reasons

CODES = {
    # the socket and its limits
    "login_required": "an anonymous connection tried anything but ping / sync",
    "bad_message": "a malformed message or field, an unknown type",
    "rate_limited": "over the action or chat rate limit",
    # tables and seats
    "no_table": "the table is gone or closed",
    "bad_name": "a table name blank, over 40 characters or with control characters",
    "too_many_tables": "the owner already has the maximum of empty tables open",
    "game_running": "a seat change or setting during a game",
    "bad_seat": "seat is not a whole number 0–3 (a JSON integer or ASCII-digit text)",
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
    # 复盘 (games.reviews)
    "review_pending": ("a review asked for while another review of yours (a game or a "
                       "challenge board) is queued or running"),
    "review_queue_full": "a review asked for while GAMES_REVIEW_QUEUE_MAX reviews are queued",
    # chat
    "empty": "an empty chat line",
    "too_long": "a chat line over 200 characters",
}


def register() -> None:
    """Register the codes (``GamesConfig.ready``)."""
    register_reasons(CODES)
