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
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Q

from games import plugins
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


_MODERATORS_KEY = "games:moderators"
#: every write that can change the list drops it (:func:`connect_signals`); the
#: expiry bounds what a read racing such a write, or a bulk ``update()`` of
#: ``is_superuser`` (no signal), can leave
MODERATORS_CACHE_SECONDS = 300


def moderator_names() -> dict[int, str]:
    """Every moderator (:func:`moderators`) as ``{user id: username}``: from
    the shared cache (Redis in production), one query when it has no copy.
    Snapshots and chat lines mark moderators with it at no query; the copy is
    dropped by every save or delete of a user or a group and every change of
    group membership (:func:`connect_signals`). Inside a transaction, which
    may hold writes not committed yet, the copy is neither read nor filled."""
    shared = not connection.in_atomic_block
    found = cache.get(_MODERATORS_KEY) if shared else None
    if not isinstance(found, dict):
        found = dict(get_user_model().objects.filter(moderators())
                     .values_list("pk", "username").distinct())
        if shared:
            cache.set(_MODERATORS_KEY, found, MODERATORS_CACHE_SECONDS)
    return found


def forget_moderators(**_: Any) -> None:
    """Drop the cached :func:`moderator_names` now (a broadcast registered
    earlier in the transaction reads it after commit) and again once the write
    commits (a read that raced it may have stored the old list); a signal
    receiver: any arguments."""
    cache.delete(_MODERATORS_KEY)
    transaction.on_commit(lambda: cache.delete(_MODERATORS_KEY))


def connect_signals() -> None:
    """Drop :func:`moderator_names`' copy on every write that can change it
    (``GamesConfig.ready``): users and groups saved or deleted, group
    membership changed from either side."""
    from django.contrib.auth.models import Group
    from django.db.models.signals import m2m_changed, post_delete, post_save

    user_model = get_user_model()
    for signal in (post_save, post_delete):
        signal.connect(forget_moderators, sender=user_model, dispatch_uid=f"mods-{signal}-user")
        signal.connect(forget_moderators, sender=Group, dispatch_uid=f"mods-{signal}-group")
    m2m_changed.connect(forget_moderators, sender=user_model.groups.through,
                        dispatch_uid="mods-membership")


def moderator_ids(user_ids: Iterable[int | None]) -> set[int]:
    """Which of ``user_ids`` are moderators (:func:`moderator_names`: no
    query while the shared cache holds the list)."""
    ids = {i for i in user_ids if i is not None}
    if not ids:
        return set()
    return ids & set(moderator_names())


def _insider(table: Table, user: User | AnonymousUser | None) -> bool:
    if user is None or not user.is_authenticated:
        return False
    if table.owner_id == user.pk:
        return True
    return Seat.objects.filter(table=table, user=user).exists() or is_moderator(user)


def may_open(table: Table, user: User | AnonymousUser | None, token: str | None) -> bool:
    """May ``user`` (holding invite ``token`` or ``None``) see ``table`` at all?

    :returns: ``True`` for a public table; for a private one, with the right
        token (compared in constant time), as an insider (seated, owner,
        moderator), or by a plugin's grant to that person
        (``GamePlugin.grants_entry``: an accepted invite), whether spectators
        are allowed or not.
    """
    if not table.private:
        return True
    if _insider(table, user):
        return True
    if token and hmac.compare_digest(str(token), table.invite_token):
        return True
    return plugins.grants_entry(table, user)  # e.g. an accepted invite (social.invites)


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


def without_link(snap: Mapping[str, Any], user: User | AnonymousUser | None,
                 token: str | None, moderator: bool) -> Mapping[str, Any]:
    """``snap`` (a table snapshot) as ``user`` may see it: a private table's
    invite link and room code stay the owner's to share, so someone who came in
    by a plugin's grant alone (an accepted invite, ``GamePlugin.grants_entry``)
    — not holding the link (``token``), not its owner, not seated there, not a
    moderator (``moderator``, known to the caller) — gets a copy without them
    (``room_code`` and ``invite_path`` ``None``). No query."""
    if not snap.get("private") or moderator:
        return snap
    path = snap.get("invite_path") or ""
    if token and hmac.compare_digest(path, f"/tables/{snap.get('id')}/?invite={token}"):
        return snap
    if user is not None and user.is_authenticated and (
            snap.get("owner_id") == user.pk
            or any(s["player"] and s["player"]["id"] == user.pk for s in snap["seats"])):
        return snap
    return {**snap, "room_code": None, "invite_path": None}


def open_table(table_id: int, user: User | AnonymousUser | None,
               token: str | None) -> Table | None:
    """The open table ``table_id`` if ``user`` may see it, else ``None``."""
    table = Table.objects.filter(pk=table_id, closed=False).select_related(
        "owner__profile").first()  # the profile: the snapshot's owner avatar
    if table is None or not may_open(table, user, token):
        return None
    return table


def by_code(code: str) -> Table | None:
    """The open private table whose room code is ``code`` (6 ASCII digits), or ``None``."""
    if not (isinstance(code, str) and len(code) == 6 and code.isascii() and code.isdigit()):
        return None
    return Table.objects.filter(room_code=code, private=True, closed=False).first()
