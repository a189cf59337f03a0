"""Reason codes of arenas (yuanzi_site.refusals.REASONS; docs/protocol.md lists
each). Arenas also use ``seated_elsewhere`` (games) and ``not_enough_coins`` (shop)."""

from yuanzi_site.refusals import register_reasons

CODES = {
    "no_arena": "an arena that does not exist",
    "arena_forbidden": "creating an arena without contests.manage_arena, or joining as an "
                       "account that cannot play",
    "bad_arena": "an arena's settings out of bounds (the message names the field)",
    "arena_closed": "joining, withdrawing or pausing in an arena that is over",
    "already_joined": "joining an arena you are already in",
    "arena_level": "joining an arena under its minimum level (params: min_level)",
    "arena_full": "joining an arena that has its maximum of players",
    "not_joined": "withdrawing or pausing in an arena you are not in",
    "arena_removed": "joining, withdrawing or pausing after escaping an arena game (out of "
                     "that arena, points void)",
    "arena_in_game": "withdrawing from an arena while your arena game runs",
    "arena_table": "sitting at, adding a bot to or renaming an arena table (only the four "
                   "it seated sit there; nobody renames it but a moderator)",
    "arena_game_over": "the notice of an arena game's end: its players leave the table "
                       "(params: arena_id, path)",
}


def register() -> None:
    """Register the codes (``ContestsConfig.ready``)."""
    register_reasons(CODES)
