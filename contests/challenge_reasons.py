"""Reason codes of the daily challenge (``yuanzi_site.refusals.REASONS``;
docs/protocol.md lists each), registered in ``ContestsConfig.ready``. It
reuses the games' ``seated_elsewhere``, ``stale``, ``bad_action`` and the
engine's codes (``not_your_turn``, ``does_not_beat`` …)."""

from yuanzi_site.refusals import register_reasons

CODES = {
    "challenge_done": "a challenge board asked for when all of today's boards are played",
    "no_board": "a challenge board that does not exist or is not yours",
    "board_done": "a move on a challenge board that is over",
    "challenge_closed": "a move on a board of a day that has closed",
    "challenge_open": "a review (复盘) of a board asked for before its day has closed",
}


def register() -> None:
    """Register the codes (``ContestsConfig.ready``)."""
    register_reasons(CODES)
