"""Invites to a table (邀请入座, RULES.md §12 "Friends and blocks"): the
write side and the grant they give.

The owner or a seated player invites someone by name (:func:`invite`); the
invitee gets a notification (``table_invite``, ``accounts.inbox``) naming the
table, its wager and its finish-rate minimum, with 加入 / 拒绝. Accepting
(:func:`accept`) lets them open the table — a private one too — and seats them
if a seat is free (the seat is not held for them). An invite is a grant to that
one person (:class:`social.models.TableInvite`), never the table's invite
token; it lasts :data:`INVITE_SECONDS` or until the table's next game starts
(:func:`expire_at_start`), and an expired one opens nothing (:func:`grants`).

:raises yuanzi_site.refusals.Refused: ``friend_self``, ``no_table``,
    ``not_seated`` (the inviter is neither the owner nor seated there),
    ``cannot_invite`` (the invitee could not accept, never saying why),
    ``already_invited``, ``rate_limited``, ``no_invite``, ``invite_expired``,
    ``seated_elsewhere``; nothing has changed when it is raised.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import inbox
from games import plugins, snapshots, tables
from games.models import Seat, Table
from social import relations
from social.friends import lock_pair
from social.models import SocialSettings, TableInvite
from yuanzi_site.refusals import Refused

#: how long an invite lasts (seconds): to be answered, and the grant it gives
INVITE_SECONDS = 120
#: most invites one person may send in :data:`RATE_WINDOW_SECONDS`
RATE_LIMIT = 20
RATE_WINDOW_SECONDS = 600
#: the notification kind of an invite (``social.apps`` registers its words)
KIND = "table_invite"


def settings_of(user_id: int) -> SocialSettings:
    """``user_id``'s social settings (the defaults when they never changed one;
    not saved)."""
    return SocialSettings.objects.filter(user_id=user_id).first() or SocialSettings(
        user_id=user_id)


def _cannot() -> Refused:
    return Refused("cannot_invite", _("This player cannot be invited to this table."))


def _may_invite(table: Table, user: User) -> None:
    if table.owner_id != user.pk and not Seat.objects.filter(table=table, user=user).exists():
        raise Refused("not_seated", _("Only the table's owner or a seated player may invite."))


def _admits(table: Table, inviter: User, invitee: User) -> None:
    """Refuse with ``cannot_invite`` whatever would keep ``invitee`` from
    accepting: the table's seat policies as a dry run (the wager they cannot
    afford, the owner's block, a minimum, a suspension …), already seated
    there, or invites from non-friends turned off."""
    if Seat.objects.filter(table=table, user=invitee).exists():
        raise _cannot()
    if not relations.are_friends(inviter.pk, invitee.pk) and \
            not settings_of(invitee.pk).invites_from_anyone:
        raise _cannot()
    try:
        plugins.check_seat(table, invitee, "sit")
    except Refused:
        raise _cannot() from None


def _params(table: Table, inviter: User, invite: TableInvite) -> dict[str, Any]:
    snap = snapshots.table_snapshot(table.pk, table)
    keys: dict[str, Any] = dict(snap) if snap is not None else {}
    return {"from": inviter.username, "table": table.name, "table_id": table.pk,
            "invite_id": invite.pk, "wager": int(keys.get("wager") or 0),
            # the table's minimum finish rate (social.reputation, percent; 0: none)
            "min_finish_rate": int(keys.get("min_finish_rate") or 0),
            "private": table.private, "expires_at": invite.expires_at.isoformat()}


def invite(inviter: User, table_id: int, invitee: User) -> TableInvite:
    """``inviter`` (the owner, or seated at ``table_id``) invites ``invitee``.

    The invitee is sent a ``table_invite`` notification (after commit) — unless
    they block the inviter: then the invite is kept, looks sent, and is never
    delivered (``silent``; RULES.md §12).

    :returns: the invite (pending).
    :raises Refused: ``friend_self``; ``no_table``; ``not_seated``;
        ``rate_limited`` (20 in 10 minutes); ``already_invited`` (a pending,
        unexpired invite to them for this table); ``cannot_invite``.
    """
    if inviter.pk == invitee.pk:
        raise Refused("friend_self", _("That is you."))
    table = Table.objects.filter(pk=table_id, closed=False).first()
    if table is None:
        raise Refused("no_table", _("This table does not exist or is closed."))
    _may_invite(table, inviter)
    now = timezone.now()
    with transaction.atomic():
        lock_pair(inviter.pk, invitee.pk)  # one pending invite per pair and table; the rate
        sent = TableInvite.objects.filter(
            from_user=inviter, created_at__gte=now - timedelta(seconds=RATE_WINDOW_SECONDS))
        if sent.count() >= RATE_LIMIT:
            raise Refused("rate_limited", _("At most %(limit)s invites in 10 minutes.")
                          % {"limit": RATE_LIMIT}, {"limit": RATE_LIMIT})
        if TableInvite.objects.filter(table=table, to_user=invitee, status=TableInvite.PENDING,
                                      expires_at__gt=now).exists():
            raise Refused("already_invited", _("This player has already been invited here."))
        silent = relations.blocks(invitee.pk, inviter.pk)
        if not silent:
            _admits(table, inviter, invitee)
        made = TableInvite.objects.create(
            table=table, from_user=inviter, to_user=invitee, silent=silent,
            expires_at=now + timedelta(seconds=INVITE_SECONDS))
        if not silent:
            inbox.post(invitee.pk, KIND, _params(table, inviter, made),
                       reverse("invite", args=[made.pk]))
    return made


def _open(user: User, invite_id: int) -> TableInvite:
    found = TableInvite.objects.filter(pk=invite_id, to_user=user, silent=False).first()
    if found is None:
        raise Refused("no_invite", _("There is no such invite."))
    return found


def _expired() -> Refused:
    return Refused("invite_expired", _("This invite has expired."))


def accept(user: User, invite_id: int) -> tuple[TableInvite, bool]:
    """``user`` accepts their invite ``invite_id``: they may open its table
    until the invite expires, and they sit in its first free seat if there
    is one (moved from a waiting seat elsewhere, RULES.md §12 one seat per
    person; the seat was not held for them, so there may be none).

    :returns: ``(invite, seated)``.
    :raises Refused: ``no_invite`` (none to them with that id);
        ``invite_expired`` (answered, two minutes gone, the game started, or
        the table closed); ``seated_elsewhere`` (they play a running game
        elsewhere: the invite stays pending).
    """
    found = _open(user, invite_id)
    now = timezone.now()
    if found.status != TableInvite.PENDING or found.expires_at <= now:
        raise _expired()
    current = Seat.objects.filter(user=user).exclude(table_id=found.table_id).select_related(
        "table").first()
    if current is not None and current.table.status != Table.WAITING:
        raise tables.playing_elsewhere(current.table)
    seated = False
    with transaction.atomic():
        # the table's lock first (sit takes it; a game start holds it while it
        # expires invites): then the invite row, claimed with a conditional update
        free = (Seat.objects.filter(table_id=found.table_id, user__isnull=True, is_bot=False)
                .order_by("index").values_list("index", flat=True).first())
        if Seat.objects.filter(table_id=found.table_id, user=user).exists():
            seated = True
        elif free is not None:
            try:
                tables.sit(found.table_id, user, free)
                seated = True
            except Refused as e:
                if e.reason == "seated_elsewhere":
                    raise
                # filled meanwhile, a game running, a policy: they come in standing
        claimed = TableInvite.objects.filter(
            pk=found.pk, status=TableInvite.PENDING, expires_at__gt=timezone.now(),
            table__closed=False).update(status=TableInvite.ACCEPTED)
        if not claimed:
            raise _expired()
    found.status = TableInvite.ACCEPTED
    return found, seated


def decline(user: User, invite_id: int) -> TableInvite:
    """``user`` declines their invite (the inviter is not told).

    :raises Refused: ``no_invite``; ``invite_expired`` (no longer pending).
    """
    found = _open(user, invite_id)
    if not TableInvite.objects.filter(pk=found.pk, status=TableInvite.PENDING).update(
            status=TableInvite.DECLINED):
        raise _expired()
    found.status = TableInvite.DECLINED
    return found


def grants(table: Table, user: Any) -> bool:
    """Does ``user`` hold an accepted, unexpired invite to ``table``? (the
    ``GamePlugin.grants_entry`` answer: it opens a private table). One query."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return TableInvite.objects.filter(table=table, to_user_id=user.pk,
                                      status=TableInvite.ACCEPTED,
                                      expires_at__gt=timezone.now()).exists()


def granted_tables(user: User, table_ids: Iterable[int]) -> set[int]:
    """Which of ``table_ids`` ``user`` holds an accepted, unexpired invite to
    (one query; none for no ids)."""
    ids = set(table_ids)
    if not ids:
        return set()
    return set(TableInvite.objects.filter(
        table_id__in=ids, to_user=user, status=TableInvite.ACCEPTED,
        expires_at__gt=timezone.now()).values_list("table_id", flat=True))


def expire_at_start(table_id: int) -> int:
    """The table's game started: its pending and accepted invites expire
    (inside the start's transaction, under the table's lock).

    :returns: how many expired."""
    return TableInvite.objects.filter(
        table_id=table_id, status__in=(TableInvite.PENDING, TableInvite.ACCEPTED),
        expires_at__gt=timezone.now()).update(status=TableInvite.EXPIRED)


def shown(user: User, invite_id: int) -> dict[str, Any] | None:
    """The invite page's context for ``user``'s invite ``invite_id`` (``None``:
    not theirs, or never delivered): ``{"invite", "params", "live"}`` —
    ``params`` as the notification carries them, ``live`` whether it may still
    be accepted."""
    found = (TableInvite.objects.filter(pk=invite_id, to_user=user, silent=False)
             .select_related("table", "from_user").first())
    if found is None:
        return None
    live = (found.status == TableInvite.PENDING and found.expires_at > timezone.now()
            and not found.table.closed)
    return {"invite": found, "params": _params(found.table, found.from_user, found),
            "live": live}


def change_settings(user: User, changes: dict[str, bool]) -> SocialSettings:
    """Save ``user``'s social settings with ``changes`` (``{"invites_from_anyone"
    | "online_notices": bool}``; other keys are ignored).

    :returns: the settings as saved."""
    fields = {k: bool(v) for k, v in changes.items()
              if k in ("invites_from_anyone", "online_notices")}
    mine, _made = SocialSettings.objects.update_or_create(user=user, defaults=fields)
    return mine


def forget(user: User) -> int:
    """End every pending invite from or to ``user`` (an account being deleted,
    RULES.md §12): they expire and open nothing. Returns how many."""
    return (TableInvite.objects
            .filter(Q(from_user=user) | Q(to_user=user), status=TableInvite.PENDING)
            .update(status=TableInvite.EXPIRED))


def end_between(a_id: int, b_id: int) -> int:
    """End the pending invites between two people, either way (a new block,
    RULES.md §12): they expire and open nothing. Returns how many."""
    return (TableInvite.objects
            .filter(status=TableInvite.PENDING, from_user_id__in=(a_id, b_id),
                    to_user_id__in=(a_id, b_id))
            .update(status=TableInvite.EXPIRED))


def invite_text(params: dict[str, Any]) -> str:
    """An invite notification's words in the active language (its ``Render``
    in ``accounts.inbox``): the table, and its wager and minimum finish rate
    only where the table has them."""
    terms = []
    if params.get("wager"):
        terms.append(_("wager %(wager)s coins") % params)
    if params.get("min_finish_rate"):
        terms.append(_("finish rate at least %(min_finish_rate)s%%") % params)
    text = _("%(from)s invites you to the table “%(table)s”") % params
    if terms:
        text += _(" (%(terms)s)") % {"terms": _(", ").join(terms)}
    return text + _(": join within two minutes.")
