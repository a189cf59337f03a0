"""The moderator actions (RULES.md §12 "Moderators"), the write side
of the console. Each takes the acting moderator, its target and a reason of
1–500 characters; runs in one transaction with its audit row (an
``AuditEntry``: who, what, target, reason, before → after); tells the people it
affects by a ``notice`` (``games.events.notify``) after commit. An action on a
person (kick, mute, suspension and their lifting, a grant or revoke of coins) is
also kept in their notification centre (``accounts.inbox``, in the action's
transaction; ``quiet`` where a notice toasts the same news).

Games end only through ``games.play.end_game`` (the finisher: no rating, wager
or escape change, RULES.md §12); coins move only through ``shop.ledger``.

Errors: :class:`yuanzi_site.refusals.Refused` with a registered reason code, raised
before anything changes: ``no_user``, ``self_target``, ``protected_target``
(another moderator or a superuser), ``no_reason``, ``reason_too_long``,
``bad_length``, ``no_table``, ``already_closed``, ``not_seated``,
``moderator_seated`` (the moderator sits at that table), ``bad_coin_amount``,
``revoke_exceeds_balance``, ``bad_gem_cap``, ``not_sanctioned``, ``bad_name``,
``blocked_word``; first of all ``not_permitted`` when the moderator lacks the
action's own permission (``roles.ACTION_PERMISSIONS``: a group may hold
``use_console`` without, say, ``grant_coins``).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal, overload

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import inbox, usernames
from accounts.models import GemCap, Profile
from games import access, events, play, plugins, presence, tables, wire
from games.models import Game, Seat, Table
from games.names import display_name
from moderation import hooks, roles
from moderation.models import REASON_MAX_LENGTH, AuditEntry, Sanction
from shop import ledger
from yuanzi_site.refusals import Refused

MINUTE, HOUR, DAY = 60, 3600, 86400
UNITS = {"m": MINUTE, "h": HOUR, "d": DAY}
MUTE_RANGE = (MINUTE, 30 * DAY)  # 1 minute – 30 days
SUSPENSION_RANGE = (HOUR, 365 * DAY)  # 1 hour – 365 days, or for good
MAX_COINS = 10**9  # one grant or revoke at most (a typo guard)


# --- checks --------------------------------------------------------------------


def permitted(moderator: User, action: str) -> None:
    """Refuse an action whose permission ``moderator`` lacks (checked before
    anything else, so nothing changes).

    :raises Refused: ``not_permitted``, naming what the permission allows.
    """
    if not roles.may(moderator, action):
        codename = roles.ACTION_PERMISSIONS.get(action, "use_console")
        raise Refused("not_permitted", _(
            "Your moderator account may not %(what)s: nothing was changed. An administrator "
            "can give you that permission.") % {"what": roles.PERMISSION_LABELS[codename]})


def clean_reason(reason: Any) -> str:
    """A reason as stored: trimmed, 1–500 characters.

    :raises Refused: ``no_reason``, ``reason_too_long``.
    """
    text = reason.strip() if isinstance(reason, str) else ""
    if not text:
        raise Refused("no_reason", _("Give a reason."))
    if len(text) > REASON_MAX_LENGTH:
        raise Refused("reason_too_long", _("A reason has at most 500 characters."))
    return text


@overload
def parse_length(amount: Any, unit: Any, bounds: tuple[int, int], *,
                 forever: Literal[False] = False) -> timedelta: ...
@overload
def parse_length(amount: Any, unit: Any, bounds: tuple[int, int], *,
                 forever: bool) -> timedelta | None: ...


def parse_length(amount: Any, unit: Any, bounds: tuple[int, int], *,
                 forever: bool = False) -> timedelta | None:
    """A sanction's length (RULES.md §12 "Moderators") from a number and a
    unit (``m``, ``h``, ``d``; or ``forever`` where allowed → ``None``).

    :param bounds: (shortest, longest) in seconds, inclusive.
    :raises Refused: ``bad_length`` for anything not a whole number ("时长须为整数"),
        an unknown unit, or a length out of ``bounds``, a negative one included
        (the message names the range, :func:`_range_text`).
    """
    if forever and unit == "forever":
        return None
    number = wire.whole(amount)
    if number is None and _negative(amount):
        number = 0  # "-5" is a whole number, only out of range (a tester read 须为整数)
    if number is None:
        raise Refused("bad_length", _("The length must be a whole number."))
    seconds = number * UNITS.get(unit, 0)
    if unit not in UNITS or not bounds[0] <= seconds <= bounds[1]:
        allowed = _range_text(bounds)
        message = (_("That length is out of range (%(range)s).") % {"range": allowed}
                   if allowed else _("That length is out of range."))
        raise Refused("bad_length", message)
    return timedelta(seconds=seconds)


def _negative(value: Any) -> bool:
    """A whole number below zero as a form (``"-5"``) or JSON (``-5``) gives it."""
    if isinstance(value, str):
        text = value.strip(" \t\r\n")
        return text.startswith("-") and wire.whole(text[1:]) is not None
    return isinstance(value, int) and not isinstance(value, bool) and value < 0


def _range_text(bounds: tuple[int, int]) -> str:
    """A sanction's allowed lengths in the words the console's form shows
    beside the field (moderation/user.html); ``""`` for other bounds."""
    if bounds == MUTE_RANGE:
        return _("1 minute to 30 days")
    if bounds == SUSPENSION_RANGE:
        return _("1 hour to 365 days, or for good")
    return ""


def target_user(moderator: User, name: Any) -> User:
    """The user a moderator acts on, by username.

    :raises Refused: ``no_user`` (also for a house account,
        :func:`accounts.usernames.is_house`), ``self_target``, ``protected_target``.
    """
    user = get_user_model().objects.filter(username=str(name or "").strip()).first()
    if user is None or usernames.is_house(user.username):  # an arena's pool is no person
        raise Refused("no_user", _("There is no such user."))
    if user.pk == moderator.pk:
        raise Refused("self_target", _("You cannot act on yourself."))
    if access.is_moderator(user):
        raise Refused("protected_target",
                      _("Moderators and administrators cannot be acted on here."))
    return user


def _open_table(table_id: Any) -> Table:
    table_id = wire.whole(table_id)
    table = Table.objects.filter(pk=table_id).first() if table_id is not None else None
    if table is None:
        raise Refused("no_table", _("This table does not exist or is closed."))
    return table


def _not_seated_at(moderator: User, table_id: int) -> None:
    if Seat.objects.filter(table_id=table_id, user=moderator).exists():
        raise Refused("moderator_seated",
                      _("You sit at this table: another moderator must act on it."))


def _audit(moderator: User, action: str, reason: str, *, user: User | None = None,
           table: Table | None = None, before: dict[str, Any] | None = None,
           after: dict[str, Any] | None = None) -> AuditEntry:
    return AuditEntry.objects.create(
        moderator=moderator, moderator_name=moderator.username, action=action,
        target_user=user, target_name=user.username if user else "",
        table=table, table_name=table.name if table else "", reason=reason,
        before=before or {}, after=after or {},
    )


def _running_game(table: Table) -> Game | None:
    if table.status != Table.PLAYING or table.current_game_id is None:
        return None
    return Game.objects.filter(pk=table.current_game_id, status=Game.PLAYING).first()


def _game_seat(game: Game, user_id: int) -> int | None:
    return (game.seats.filter(user_id=user_id).values_list("index", flat=True).first())


def _local(when: datetime) -> str:
    """An instant as the notification centre's parameters keep it: local time
    (``TIME_ZONE``), ``YYYY-MM-DD HH:MM``, the same in either language."""
    return timezone.localtime(when).strftime("%Y-%m-%d %H:%M")


def _notice(code: str, message: events.Words, **params: Any) -> dict[str, Any]:
    return events.notice_frame(code, message, params)


# --- table actions ----------------------------------------------------------------


def close_table(moderator: User, table_id: Any, reason: Any) -> AuditEntry:
    """Close a table: its running game ends with ``moderator_close`` (no rating,
    wager or escape change), its seats empty, it leaves the lobby, and every
    client at it gets a ``notice`` and ``table_closed``.

    :raises Refused: ``no_reason``/``reason_too_long``, ``no_table``,
        ``already_closed``, ``moderator_seated``.
    """
    permitted(moderator, "close")
    reason = clean_reason(reason)
    table = _open_table(table_id)
    if table.closed:
        raise Refused("already_closed", _("This table is already closed."))
    _not_seated_at(moderator, table.pk)
    with transaction.atomic():
        game = _running_game(table)
        if game is not None:
            play.end_game(game.pk, Game.MODERATOR_CLOSE)
        table = Table.objects.select_for_update().get(pk=table.pk)
        if table.closed:
            raise Refused("already_closed", _("This table is already closed."))
        # as it was before the close: ending the game above set it back to waiting
        status = Table.PLAYING if game is not None else table.status
        name = table.name

        def message() -> str:
            return _("A moderator closed table “%(table)s”: %(reason)s") % {
                "table": display_name(name), "reason": reason}

        notice = _notice("moderator_close", message, table_id=table.pk, reason=reason)
        seated = tables.close(table, notice)
        before = {"name": table.name, "status": status, "seated": seated,
                  "game": game.pk if game else None}
        here = presence.online_users(table.pk)
        for uid in seated:
            if uid not in here:  # those at the table hear it with table_closed
                events.notify(uid, "moderator_close", message, notice["params"])
        return _audit(moderator, AuditEntry.CLOSE, reason, table=table, before=before,
                      after={"closed": True})


def kick(moderator: User, table_id: Any, username: Any, reason: Any) -> AuditEntry:
    """Remove a player from their seat at a table; during a game it ends with
    ``moderator_kick`` (no changes for anyone). The player may not sit at that
    table again for ``MODERATION_KICK_BAN_MINUTES``; if they own it, it passes
    to a player still seated there (``games.tables.hand_over``), and with
    nobody left to take it the table closes (RULES.md §12).

    :raises Refused: the reason and target codes, ``no_table``,
        ``moderator_seated``, ``not_seated``.
    """
    permitted(moderator, "kick")
    reason = clean_reason(reason)
    user = target_user(moderator, username)
    table = _open_table(table_id)
    if table.closed:
        raise Refused("no_table", _("This table does not exist or is closed."))
    _not_seated_at(moderator, table.pk)
    with transaction.atomic():
        game = _vacate(table, user, Game.MODERATOR_KICK)
        if game is False:
            raise Refused("not_seated", _("That player is not seated at this table."))
        locked = Table.objects.select_for_update().get(pk=table.pk)
        tables.hand_over(locked, user.pk)
        if locked.owner_id == user.pk:
            # nobody seated to take it over: kept, it would leave the barred
            # owner its controls (bots, wager, a paid rename), so it closes
            tables.close(locked, _notice("moderator_close", lambda: _(
                "This table was closed: a moderator removed its owner."),
                table_id=table.pk, reason=reason))
        minutes = settings.MODERATION_KICK_BAN_MINUTES
        banned_until = timezone.now() + timedelta(minutes=minutes)
        Sanction.objects.create(
            user=user, kind=Sanction.TABLE_BAN, table=table, moderator=moderator,
            reason=reason, until=banned_until)
        events.notify(user.pk, "moderator_kick", lambda: _(
            "A moderator removed you from table “%(table)s” (you may sit there again in "
            "%(minutes)s minutes): %(reason)s") % {
                "table": display_name(table.name), "minutes": minutes, "reason": reason},
            {"table_id": table.pk, "reason": reason, "minutes": minutes})
        inbox.post(user.pk, "moderator_kick", {"table": table.name, "minutes": minutes,
                                               "reason": reason}, f"/tables/{table.pk}/",
                   quiet=True)
        if game is not None:
            _tell_players(game, user.pk, lambda: _(
                "A moderator ended the game: a player was removed from the table."))
        return _audit(moderator, AuditEntry.KICK, reason, user=user, table=table,
                      before={"seated": True, "game": game.pk if game else None},
                      after={"seated": False, "banned_until": banned_until.isoformat()})


def _vacate(table: Table, user: User, end_reason: str) -> Game | Literal[False] | None:
    """Take ``user`` out of their seat at ``table`` (inside the caller's
    transaction): a running game they play ends with ``end_reason`` (the
    finisher stands them up). Returns that game, ``None`` if none ran, or
    ``False`` if they were not seated there."""
    if not Seat.objects.filter(table=table, user=user).exists():
        return False
    game = _running_game(table)
    if game is not None:
        seat = _game_seat(game, user.pk)
        if seat is not None:
            play.end_game(game.pk, end_reason, seat)
            return game
    tables.unseat(Table.objects.select_for_update().get(pk=table.pk), user.pk)
    return None


def _tell_players(game: Game, except_user: int, message: events.Words) -> None:
    for uid in game.seats.exclude(user=None).values_list("user_id", flat=True):
        if uid != except_user:
            events.notify(uid, "game_ended_by_moderator", message,
                          {"table_id": game.table_id, "game_id": game.pk})


def rename(moderator: User, table_id: Any, name: Any, reason: Any) -> AuditEntry:
    """Rename a table, overriding (and clearing) any 招牌 protection: the
    rename goes through ``games.tables.rename`` with ``override``, whose
    rename policies let it through and drop what they protect (the shop's
    sign, ``shop.items.rename_policy``). The owner, the seated players and the
    sign's holder are told; the audit row keeps the protection it cleared
    (``before["sign"]``, the snapshots' ``sign``).

    :raises Refused: the reason codes, ``no_table``, ``moderator_seated``,
        ``bad_name``, ``blocked_word``.
    """
    permitted(moderator, "rename")
    reason = clean_reason(reason)
    table = _open_table(table_id)
    if table.closed:
        raise Refused("no_table", _("This table does not exist or is closed."))
    _not_seated_at(moderator, table.pk)
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)  # no sign slips in between
        sign = _protection(table)
        old, new = tables.rename(table.pk, moderator, name, override=True)
        table.name = new
        affected = {table.owner_id, *Seat.objects.filter(table=table).exclude(user=None)
                    .values_list("user_id", flat=True)}
        signer = (get_user_model().objects.filter(username=sign.get("by"))
                  .values_list("pk", flat=True).first() if sign else None)
        words = {"old": old, "new": new, "reason": reason}
        for uid in affected | ({signer} if signer else set()):
            def message(cleared: bool = uid == signer) -> str:
                said = (_("A moderator renamed table “%(old)s” to “%(new)s” and cleared your "
                          "sign's protection: %(reason)s") if cleared else
                        _("A moderator renamed table “%(old)s” to “%(new)s”: %(reason)s"))
                return said % words

            events.notify(uid, "moderator_rename", message,
                          {"table_id": table.pk, "reason": reason,
                           "sign_cleared": uid == signer})
        before: dict[str, Any] = {"name": old}
        after: dict[str, Any] = {"name": new}
        if sign:
            before["sign"], after["sign"] = sign, _protection(table)
        return _audit(moderator, AuditEntry.RENAME, reason, table=table,
                      before=before, after=after)


def _protection(table: Table) -> dict[str, Any] | None:
    """The name protection table snapshots show (``sign``: ``{"by", "item",
    "until"}``, added by the shop's plugin), or ``None``."""
    rows: dict[int, dict[str, Any]] = {table.pk: {}}
    plugins.add_snapshot_keys([table], rows)
    return rows[table.pk].get("sign")


# --- user actions ------------------------------------------------------------------


def mute(moderator: User, username: Any, amount: Any, unit: Any, reason: Any) -> AuditEntry:
    """Mute a user in chat for 1 minute – 30 days (their chat is refused with
    ``muted``); a mute ends by itself. A new mute replaces one in force."""
    permitted(moderator, "mute")
    reason = clean_reason(reason)
    user = target_user(moderator, username)
    length = parse_length(amount, unit, MUTE_RANGE)
    with transaction.atomic():
        before = _lift(user, Sanction.MUTE)
        until = timezone.now() + length
        Sanction.objects.create(user=user, kind=Sanction.MUTE, until=until, reason=reason,
                                moderator=moderator)
        sanction = hooks.active(user.pk, Sanction.MUTE)
        assert sanction is not None  # the mute just made, in force for a minute at least
        events.notify(user.pk, "muted", lambda: _("A moderator muted you in chat until "
                                                  "%(until)s: %(reason)s") % {
            "until": hooks.until_text(sanction), "reason": reason},
            {"until": until.isoformat(), "reason": reason})
        inbox.post(user.pk, "muted", {"until": _local(until), "reason": reason}, quiet=True)
        return _audit(moderator, AuditEntry.MUTE, reason, user=user, before=before,
                      after={"muted_until": until.isoformat()})


def suspend(moderator: User, username: Any, amount: Any, unit: Any, reason: Any
            ) -> AuditEntry:
    """Suspend an account for 1 hour – 365 days or for good (``unit``
    ``forever``): every open socket of theirs gets a ``notice`` and closes,
    they cannot log in (``moderation.backends``) or sit, and a seat of theirs
    is vacated as a kick (a running game ends with ``suspension``).

    :raises Refused: as :func:`kick`, and ``moderator_seated`` when the
        player sits at a table where the moderator sits.
    """
    permitted(moderator, "suspend")
    reason = clean_reason(reason)
    user = target_user(moderator, username)
    length = parse_length(amount, unit, SUSPENSION_RANGE, forever=True)
    seat = Seat.objects.filter(user=user).select_related("table").first()
    if seat is not None:
        _not_seated_at(moderator, seat.table_id)
    with transaction.atomic():
        before = _lift(user, Sanction.SUSPENSION)
        until = timezone.now() + length if length is not None else None
        Sanction.objects.create(user=user, kind=Sanction.SUSPENSION, until=until,
                                reason=reason, moderator=moderator)
        game = _vacate(seat.table, user, Game.SUSPENSION) if seat is not None else False
        if game:
            _tell_players(game, user.pk, lambda: _("A moderator ended the game: a player was "
                                                   "suspended."))
        when = until.isoformat() if until else None
        suspension = hooks.active(user.pk, Sanction.SUSPENSION)
        assert suspension is not None  # the suspension just made, in force
        events.close_sockets(user.pk, _notice(
            "suspended", lambda: _("A moderator suspended your account until %(until)s: "
                                   "%(reason)s") % {"until": hooks.until_text(suspension),
                                                    "reason": reason},
            until=when, reason=reason))
        if until is None:
            inbox.post(user.pk, "suspended_forever", {"reason": reason}, quiet=True)
        else:
            inbox.post(user.pk, "suspended", {"until": _local(until), "reason": reason},
                       quiet=True)
        return _audit(moderator, AuditEntry.SUSPEND, reason, user=user,
                      table=seat.table if seat else None, before=before,
                      after={"suspended_until": when or "forever",
                             "seat_vacated": seat is not None})


def lift(moderator: User, username: Any, kind: str, reason: Any) -> AuditEntry:
    """End a mute or suspension early.

    :raises Refused: the reason and target codes; ``not_sanctioned`` when none is in force.
    """
    permitted(moderator, "unmute" if kind == Sanction.MUTE else "unsuspend")
    reason = clean_reason(reason)
    user = target_user(moderator, username)
    with transaction.atomic():
        before = _lift(user, kind)
        if not before:
            raise Refused("not_sanctioned", _("No such sanction is in force."))
        if kind == Sanction.MUTE:
            events.notify(user.pk, "unmuted", lambda: _("A moderator lifted your mute."), {})
            inbox.post(user.pk, "unmuted", quiet=True)
        else:  # no socket of theirs is open to tell: the centre keeps it for the next visit
            inbox.post(user.pk, "unsuspended")
        action = AuditEntry.UNMUTE if kind == Sanction.MUTE else AuditEntry.UNSUSPEND
        return _audit(moderator, action, reason, user=user, before=before,
                      after={"lifted": True})


def _lift(user: User, kind: str) -> dict[str, Any]:
    """Lift the ``kind`` sanctions in force on ``user``; returns the "before" state."""
    live = Sanction.objects.active().filter(user=user, kind=kind)
    rows = list(live.values_list("until", flat=True))
    if not rows:
        return {}
    live.update(lifted_at=timezone.now())
    ends = ["forever" if u is None else u.isoformat() for u in rows]
    return {f"{kind}_until": ends[0] if len(ends) == 1 else ends}


def coins(moderator: User, username: Any, amount: Any, reason: Any, *, revoke: bool = False
          ) -> AuditEntry:
    """Grant (or revoke) coins through the ledger (reason ``grant``, the
    moderator as counter-party, the reason as the entry's note).

    :param amount: a whole number 1 – 10⁹ (text is parsed).
    :raises Refused: ``bad_coin_amount``, ``revoke_exceeds_balance`` (never
        clamped; a revoke takes only coins not held by a running wager game,
        RULES.md §12 "Held stake": params ``balance``, ``held``), the reason
        and target codes.
    """
    permitted(moderator, "revoke" if revoke else "grant")
    reason = clean_reason(reason)
    user = target_user(moderator, username)
    number = wire.whole(amount) or 0
    if not 1 <= number <= MAX_COINS:
        raise Refused("bad_coin_amount", _("The amount must be a whole number of coins, "
                                           "1 to 1,000,000,000."))
    with transaction.atomic():
        balance = Profile.objects.get(user=user).coins
        note = reason[:ledger.MAX_NOTE]
        try:
            if revoke:
                entry = ledger.debit(user, number, ledger.Reason.GRANT, other=moderator, note=note)
            else:
                entry = ledger.credit(user, number, ledger.Reason.GRANT, other=moderator,
                                      note=note)
        except ledger.NotEnoughCoins as e:
            held = e.params["held"]
            figures = {"user": user.username, "balance": balance, "held": held,
                       "spendable": balance - held}
            if held:
                text = _("%(user)s holds %(balance)s coins, %(held)s of them held by a running "
                         "wager game: at most %(spendable)s can be taken.") % figures
            else:
                text = _("%(user)s holds only %(balance)s coins.") % figures
            raise Refused("revoke_exceeds_balance", text,
                          {"balance": balance, "held": held}) from None
        events.notify(user.pk, "coins_revoked" if revoke else "coins_granted", lambda: (
            _("A moderator took %(amount)s coins: %(reason)s") if revoke
            else _("A moderator gave you %(amount)s coins: %(reason)s"))
            % {"amount": number, "reason": reason},
            {"amount": number, "reason": reason})
        inbox.post(user.pk, "coins_revoked" if revoke else "coins_granted",
                   {"amount": number, "reason": reason}, "/accounts/profile/", quiet=True)
        return _audit(moderator, AuditEntry.REVOKE if revoke else AuditEntry.GRANT, reason,
                      user=user, before={"coins": balance},
                      after={"coins": entry.balance_after})


def set_gem_cap(moderator: User, value: Any, reason: Any) -> AuditEntry:
    """Set the gem cap's override (a whole number ≥ 0), or clear it (blank).

    :raises Refused: ``bad_gem_cap``, the reason codes.
    """
    permitted(moderator, "gem_cap")
    reason = clean_reason(reason)
    text = str(value if value is not None else "").strip()
    override = wire.whole(text) if text else None
    if text and override is None:
        raise Refused("bad_gem_cap", _("The gem cap is a whole number of rating points, 0 or "
                                       "more, or blank to clear it."))
    with transaction.atomic():
        cap, _created = GemCap.objects.select_for_update().get_or_create(pk=1)
        before = {"override": cap.override}
        cap.override = override
        cap.save(update_fields=["override"])
        return _audit(moderator, AuditEntry.GEM_CAP, reason, before=before,
                      after={"override": override})
