"""Deleting an account (RULES.md §12 "Deleting an account"): anonymised,
never deleted.

The user row stays, so every game record, rating entry and ledger entry
(whose user foreign keys protect them) stays and everything still sums to
zero. In one transaction: refused while the person plays a running game; every
plugin ends its ties to others (``GamePlugin.on_account_deleted``: waiting
seats and tables, friendships, blocks, friend requests, invites, arena
entries); the name becomes ``已注销用户 N`` (N the account's id: unique, and
reserved for good since no one can sign up with a space or that prefix,
``moderation.adapter``); the email goes, the password becomes unusable, the
account inactive; the game seats' names as played, the notifications and the
avatar go; every session ends and every open socket closes (4403).

Errors: :class:`yuanzi_site.refusals.Refused` ``account_in_game``; nothing has
changed when it is raised.
"""

from __future__ import annotations

from allauth.account.models import EmailAddress
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import usernames
from accounts.models import Notification, Profile
from games import events, plugins
from games.models import GameSeat, Seat, Table
from yuanzi_site.refusals import Refused

#: the anonymised name's prefix (RULES.md §12); sign-up refuses names starting with it
DELETED_PREFIX = usernames.RESERVED_PREFIX


def deleted_name(user_id: int) -> str:
    """The name an account takes when deleted: ``"已注销用户 N"``.

    >>> deleted_name(42)
    '已注销用户 42'
    """
    return f"{DELETED_PREFIX} {user_id}"


def delete_account(user: User) -> str:
    """Anonymise ``user``'s account (the module's steps); returns its new name.

    :raises Refused: ``account_in_game`` while they sit at a table whose game
        runs (RULES.md §12: refused while you play a running game).
    """
    with transaction.atomic():
        # the user row first (as games.tables.create_table), then their seat's
        # table: a game cannot start there while we decide
        locked = User.objects.select_for_update().get(pk=user.pk)
        seat_table = Seat.objects.filter(user=locked).values_list("table_id", flat=True).first()
        if seat_table is not None and Table.objects.select_for_update().filter(
                pk=seat_table, status=Table.PLAYING).exists():
            raise Refused("account_in_game", _(
                "You are playing a game: finish it before deleting your account."))
        plugins.account_deleted(locked)
        name = deleted_name(locked.pk)
        locked.username = name
        locked.email = locked.first_name = locked.last_name = ""
        locked.set_unusable_password()
        locked.is_active = False
        locked.save()
        EmailAddress.objects.filter(user=locked).delete()
        GameSeat.objects.filter(user=locked).update(username=name)
        Profile.objects.filter(user=locked).update(avatar="")
        Notification.objects.filter(user=locked).delete()
        end_sessions(locked.pk)
        events.close_sockets(locked.pk, {"type": "notice", "code": "account_deleted",
                                         "message": _("Your account was deleted."),
                                         "params": {}})
    user.username, user.is_active = name, False
    return name


def end_sessions(user_id: int) -> int:
    """Delete every unexpired session of ``user_id`` (the database backend's
    rows; sessions hold no user column, so each is decoded: deletion is rare);
    returns how many. A session that escapes this cannot load the account
    anyway (inactive, and its password hash changed)."""
    mine = [s.session_key for s in Session.objects.filter(expire_date__gt=timezone.now())
            .iterator(chunk_size=500)
            if s.get_decoded().get("_auth_user_id") == str(user_id)]
    Session.objects.filter(session_key__in=mine).delete()
    return len(mine)
