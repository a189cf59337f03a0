"""Who may open a table's page and socket (issue 13: 好友房, private tables);
the read side, never writes.

A public table is open to everyone. A private table (``Table.private``) is
never listed in the lobby and is opened only by its invite token (the link)
or after entering its room code (which hands out the token); its seated
players, its owner and moderators (``user.groups`` named ``moderators``) need
neither. Without the token it is refused as if it did not exist (404 page,
socket close 4404). With spectators off (``Table.spectators_allowed``) only
the seated, the owner, invite holders and moderators may connect — on a
private table every visitor is an invite holder, so spectators off means
only those seated, the owner and moderators.
"""

from __future__ import annotations

import hmac

from games.models import Seat, Table

MODERATORS_GROUP = "moderators"


def is_moderator(user) -> bool:
    """Is ``user`` in the ``moderators`` group?"""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return user.groups.filter(name=MODERATORS_GROUP).exists()


def _insider(table: Table, user) -> bool:
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if table.owner_id == user.pk:
        return True
    return Seat.objects.filter(table=table, user=user).exists() or is_moderator(user)


def may_open(table: Table, user, token: str | None) -> bool:
    """May ``user`` (holding invite ``token`` or ``None``) see ``table`` at all?

    :returns: ``True`` for a public table; for a private one, with the right
        token (compared in constant time) or as an insider (seated, owner,
        moderator) — and, with spectators off, only an insider.
    """
    if not table.private:
        return True
    if _insider(table, user):
        return True
    if not table.spectators_allowed:
        return False
    return bool(token) and hmac.compare_digest(str(token), table.invite_token)


def open_table(table_id: int, user, token: str | None) -> Table | None:
    """The open table ``table_id`` if ``user`` may see it, else ``None``."""
    table = Table.objects.filter(pk=table_id, closed=False).first()
    if table is None or not may_open(table, user, token):
        return None
    return table


def by_code(code: str) -> Table | None:
    """The open private table whose room code is ``code`` (6 digits), or ``None``."""
    if not (isinstance(code, str) and len(code) == 6 and code.isdigit()):
        return None
    return Table.objects.filter(room_code=code, private=True, closed=False).first()
