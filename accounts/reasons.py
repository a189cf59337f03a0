"""The accounts app's reason codes (:data:`yuanzi_site.refusals.REASONS`;
docs/protocol.md lists each), registered in ``AccountsConfig.ready``."""

from yuanzi_site.refusals import register_reasons

CODES = {
    "account_in_game": "deleting your account while you play a running game",
    "bad_notifications": "marking notifications read with neither a list of 1–50 ids nor all",
}


def register() -> None:
    """Register :data:`CODES` (idempotent)."""
    register_reasons(CODES)
