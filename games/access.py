"""Who may open a table's page and socket (好友房, private tables),
and who may watch its game; the read side, never writes.

A public table is open to everyone. A private table (``Table.private``) is
never listed in the lobby and is opened only by its invite token (the link)
or after entering its room code (which hands out the token); its seated
players, its owner and moderators (:func:`is_moderator`) need
neither. Without the token it is refused as if it did not exist (404 page,
socket close 4404).

Spectators off (``Table.spectators_allowed`` false, private tables only)
does not keep invite holders out — everyone enters a table standing
before they sit. It keeps the *game* from them: while standing, an invite
holder who is not the owner or a moderator sees the table and its chat but
no game view (:func:`may_watch`), is not counted as a spectator, and may sit
between games.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db.models import Q

from games.models import Seat, Table

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

MODERATORS_GROUP = "moderators"


def moderators() -> Q:
    """The filter on users that keeps the moderators: the ``moderators`` group's
    members and superusers (who hold every permission the group carries)."""
    return Q(groups__name=MODERATORS_GROUP) | Q(is_superuser=True)


def is_moderator(user: Any) -> bool:
    """Is ``user`` a moderator (the ``moderators`` group, or a superuser)? The
    one test, used by every app (RULES.md §12); the answer is kept on the user
    object (``moderation.roles`` forgets it when the group changes)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if user.is_superuser:
        return True
    cached = getattr(user, "_is_moderator", None)
    if cached is None:
        cached = user._is_moderator = user.groups.filter(name=MODERATORS_GROUP).exists()
    return bool(cached)


def moderator_ids(user_ids: Iterable[int | None]) -> set[int]:
    """Which of ``user_ids`` are moderators (one query, none for no ids)."""
    ids = {i for i in user_ids if i is not None}
    if not ids:
        return set()
    return set(get_user_model().objects.filter(moderators(), pk__in=ids)
               .values_list("pk", flat=True))


def _insider(table: Table, user: User | AnonymousUser | None) -> bool:
    if user is None or not user.is_authenticated:
        return False
    if table.owner_id == user.pk:
        return True
    return Seat.objects.filter(table=table, user=user).exists() or is_moderator(user)


def may_open(table: Table, user: User | AnonymousUser | None, token: str | None) -> bool:
    """May ``user`` (holding invite ``token`` or ``None``) see ``table`` at all?

    :returns: ``True`` for a public table; for a private one, with the right
        token (compared in constant time) or as an insider (seated, owner,
        moderator), whether spectators are allowed or not.
    """
    if not table.private:
        return True
    if _insider(table, user):
        return True
    return bool(token) and hmac.compare_digest(str(token), table.invite_token)


def watch_barred(snap: Mapping[str, Any], user: User | AnonymousUser | None,
                 moderator: bool) -> bool:
    """Is ``user`` kept from the game views at a table they may open?

    True exactly when the table (``snap``, a :func:`games.snapshots.table_snapshot`)
    is private with spectators off and ``user`` is neither seated there, nor its
    owner, nor a moderator (``moderator``, known to the caller). Such a visitor
    sees the table and its chat only.
    """
    if not snap.get("private") or snap.get("spectators_allowed", True):
        return False
    if user is None or not user.is_authenticated:
        return True
    if moderator or snap.get("owner_id") == user.pk:
        return False
    return not any(s["player"] and s["player"]["id"] == user.pk for s in snap["seats"])


def open_table(table_id: int, user: User | AnonymousUser | None,
               token: str | None) -> Table | None:
    """The open table ``table_id`` if ``user`` may see it, else ``None``."""
    table = Table.objects.filter(pk=table_id, closed=False).first()
    if table is None or not may_open(table, user, token):
        return None
    return table


def by_code(code: str) -> Table | None:
    """The open private table whose room code is ``code`` (6 ASCII digits), or ``None``."""
    if not (isinstance(code, str) and len(code) == 6 and code.isascii() and code.isdigit()):
        return None
    return Table.objects.filter(room_code=code, private=True, closed=False).first()
