"""The reason and notice codes moderation can send (docs/protocol.md lists each)."""

from __future__ import annotations

from yuanzi_site.refusals import register_reasons


def register() -> None:
    """Register moderation's codes (``ModerationConfig.ready``)."""
    register_reasons({
        # refusals a player can get
        "muted": "chat while a moderator's mute is in force (the message says until when)",
        "suspended": "a suspended account tried to sit or play; also the notice before "
                     "its sockets close (4403)",
        "table_banned": "sitting at a table a moderator removed you from, before the ban ends",
        "blocked_word": "a table name or username with a blocked word",
        "bad_report": "a report with an unknown category, target or chat line, or a note "
                      "over 500 characters",
        "report_self": "a report of oneself",
        "already_reported": "a report of the same player at the same table within a minute "
                            "of your report of them there, while that one is open",
        "report_limit": "more than 5 reports in an hour",
        # refusals a moderator can get (the console)
        "not_permitted": "a moderator without the action's own permission (the console "
                         "answers 403)",
        "no_user": "the target user does not exist",
        "self_target": "a moderator acting on themself",
        "protected_target": "the target is a moderator or a superuser",
        "no_reason": "a moderator action without a reason",
        "reason_too_long": "a moderator's reason or note over 500 characters",
        "bad_length": "a mute or suspension length that is not a whole number or out of range",
        "already_closed": "closing a table that is already closed",
        "moderator_seated": "a moderator acting on a table where they sit",
        "bad_coin_amount": "a grant or revoke that is not a whole number 1–10⁹",
        "revoke_exceeds_balance": "revoking more coins than the player holds",
        "bad_gem_cap": "a gem cap override that is not a whole number ≥ 0",
        "not_sanctioned": "lifting a mute or suspension that is not in force",
        "report_handled": "resolving or dismissing a report that is not open",
        # notice codes (moderator actions, told to the people they affect)
        "moderator_close": "notice: a moderator closed the table (with the reason)",
        "moderator_kick": "notice: a moderator removed you from the table (with the reason)",
        "moderator_rename": "notice: a moderator renamed your table",
        "game_ended_by_moderator": "notice: your game ended because a moderator removed a player",
        "unmuted": "notice: a moderator lifted your mute",
        "coins_granted": "notice: a moderator gave you coins",
        "coins_revoked": "notice: a moderator took coins",
        "report_outcome": "notice: a report you made was handled",
    })
