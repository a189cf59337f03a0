"""Reason codes of friends and blocks (yuanzi_site.refusals.REASONS; docs/protocol.md
lists each). ``rate_limited`` is the games' own code, reused."""

from yuanzi_site.refusals import register_reasons

CODES = {
    "friend_self": "a friend request, answer or block naming yourself",
    "friend_limit": "you or they already have the maximum of 200 friends",
    "already_friends": "a friend request to someone who is already your friend",
    "no_request": "accept or decline with no request from them, cancel with none to them",
    "not_friends": "remove of someone who is not your friend",
    "blocking": "a friend request to someone you block (unblock them first)",
    "block_limit": "a block over the maximum of 500",
    "cannot_invite": "an invite the invitee could not accept (the table's seat policies, "
                     "invites from non-friends turned off, already seated there); never says why",
    "already_invited": "an invite to someone who already has a pending one to this table",
    "no_invite": "accept or decline of an invite that is not yours or does not exist",
    "invite_expired": "accept or decline of an invite already answered, over two minutes old, "
                      "or whose table's game has started",
    "blocked": "sit at a table whose owner blocks you (worded without saying who blocked whom)",
    "reputation_too_low": "sit at a table whose minimum finish rate (完成率) is above yours "
                          "(params: minimum); also the notice of a player a raised minimum "
                          "stood up",
    "bad_minimum": "set_min_finish_rate with a minimum not a JSON integer of 0, 80, 90, 95",
}


def register() -> None:
    """Register the codes (``SocialConfig.ready``)."""
    register_reasons(CODES)
