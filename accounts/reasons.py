"""Reason codes of the accounts app (yuanzi_site.refusals.REASONS; docs/protocol.md
lists each)."""

from yuanzi_site.refusals import register_reasons

CODES = {
    "bad_notifications": "marking notifications read with neither a list of 1–50 ids nor all",
}


def register() -> None:
    """Register the codes (``AccountsConfig.ready``)."""
    register_reasons(CODES)
