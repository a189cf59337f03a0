"""Reason codes of contests (yuanzi_site.refusals.REASONS; docs/protocol.md
lists each)."""

from yuanzi_site.refusals import register_reasons

CODES = {
    "task_unknown": "claim of a task that is not one of your tasks today",
    "task_not_done": "claim of a task whose progress has not reached its target",
    "task_claimed": "claim of a task whose coins were already paid",
    "reward_locked": "a task's coins before the account has 10 rated games (RULES.md §12)",
}


def register() -> None:
    """Register the codes (``ContestsConfig.ready``)."""
    register_reasons(CODES)
