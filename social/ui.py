"""The friends page's words: what the page script says, through
gettext like ``games.ui``'s string tables, and each friend action's answer."""

from __future__ import annotations

from django.utils.translation import gettext as _


def friend_done(action: str, state: str) -> str:
    """The message after a friend action (``request`` … ``remove``) succeeded,
    leaving ``state`` (a request to someone who had asked you: friends)."""
    if state == "friends":
        return _("You are now friends.")
    return {
        "request": _("Friend request sent."),
        "decline": _("Request declined."),
        "cancel": _("Request withdrawn."),
        "remove": _("Friend removed."),
    }[action]


def friends_strings() -> dict[str, str]:
    """The page script's strings (``json_script`` ``friends-strings``)."""
    return {
        "failed": _("That did not work. Check your connection and try again."),
        "confirm_remove": _("Remove %(name)s from your friends?"),
        "confirm_block": _("Block %(name)s? They will not be told."),
    }
