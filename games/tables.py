"""Tables and seats, the write side (DESIGN.md "server-authoritative"): create a
table (the lobby's seats its creator: ``open_table``), 快速开始, 和机器人练习
(``practice``), sit, stand, bots, ready (starting the game), close idle tables.

Owns ``Table`` and ``Seat`` rows. Every change runs in one transaction with the
table row locked (``select_for_update``; two tables in ascending id) and is
announced after commit (``games.events``). Seat checks of the plugins
(``GamePlugin.check_seat``) are asked on sit, on adding a bot and before a game
starts. Starting a game hands over to :func:`games.play.start_game`.

Errors: :class:`yuanzi_site.refusals.Refused`; nothing has changed when it is raised.
"""

from __future__ import annotations

import secrets
import unicodedata
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import events, play, plugins, presence, queries, wire
from games.engine import BOT_POLICIES
from games.models import Game, Seat, Table
from games.names import display_name
from yuanzi_site.refusals import Refused

if TYPE_CHECKING:
    from collections.abc import Mapping

    from django.contrib.auth.models import User
    from django.db.models import QuerySet

NAME_MAX_LENGTH = 40


def clean_name(name: Any) -> str:
    """A table name as stored: trimmed, 1–40 characters, no control characters.

    :raises Refused: ``bad_name`` otherwise, or a name policy's reason.
    """
    text = name.strip() if isinstance(name, str) else ""
    if (not text or len(text) > NAME_MAX_LENGTH
            or any(unicodedata.category(c).startswith("C") for c in text)):
        raise Refused("bad_name", _("A table name has 1 to 40 characters and no control "
                                    "characters."))
    plugins.check_name(text)  # e.g. the moderators' blocked words
    return text


def default_name(table_id: int) -> str:
    """A table's name when its creator gave none: bilingual and the same for
    every reader, whatever the creator's language (``"桌 12 · Table 12"``;
    a name is stored once and shown to everyone, so it is not translated).

    >>> default_name(12)
    '桌 12 · Table 12'
    """
    return f"桌 {table_id} · Table {table_id}"


def practice_name(table_id: int) -> str:
    """A practice table's name, bilingual like :func:`default_name`: it is
    stored once and read by everyone (an English reader's practice table was
    "Practice 12" to Chinese readers too).

    >>> practice_name(12)
    '练习桌 12 · Practice 12'
    """
    return f"练习桌 {table_id} · Practice {table_id}"


def _room_code() -> str:
    # 6 digits, unique among open private tables (a closed table's code is free again)
    while True:
        code = f"{secrets.randbelow(10**6):06d}"
        if not Table.objects.filter(room_code=code, closed=False).exists():
            return code


def create_table(user: User, name: str = "", private: bool = False, *,
                 owner_moves: bool = False) -> Table:
    """Open a new table owned by ``user`` with four empty seats.

    :param name: 1–40 characters after trimming; blank gives the default
        :func:`default_name`, the same words whoever opened it.
    :param private: a 好友房: not listed, joined by its invite link
        (an unguessable token) or its 6-digit room code (``games.access``).
    :param owner_moves: the owner is about to sit here (:func:`open_table`,
        :func:`practice`): a waiting table where only they sit counts as empty,
        since sitting here empties it.
    :raises Refused: ``bad_name`` for a name over 40 characters or with control
        characters; ``too_many_tables`` when the user already owns
        ``GAMES_MAX_IDLE_TABLES`` open tables where nobody sits and others
        watch (:func:`_make_room` first closes their left practice tables and
        their oldest empty tables nobody else watches).
    """
    name = clean_name(name) if (name or "").strip() else ""
    with transaction.atomic():
        # the owner's row serialises their table creations (two at once could
        # both pass the count below)
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        people = Seat.objects.filter(user__isnull=False)
        if owner_moves:
            people = people.exclude(user=user)
        idle = Table.objects.filter(owner=user, closed=False, status=Table.WAITING).exclude(
            pk__in=people.values("table_id")
        )
        _make_room(user, idle, people)
        if idle.count() >= settings.GAMES_MAX_IDLE_TABLES:
            raise Refused(
                "too_many_tables",
                _("You already have %(count)s empty tables open: sit at one of them.")
                % {"count": settings.GAMES_MAX_IDLE_TABLES},
            )
        table = Table.objects.create(
            name=name or "-", owner=user, private=bool(private),
            invite_token=secrets.token_urlsafe(18) if private else "",
            room_code=_room_code() if private else "")
        if not name:
            table.name = default_name(table.pk)
            table.save(update_fields=["name"])
        Seat.objects.bulk_create(Seat(table=table, index=i) for i in range(4))
        events.publish(events.TableChanged(table.pk))
    return table


def _make_room(user: User, idle: QuerySet[Table], people: QuerySet[Seat]) -> None:
    """Before ``user`` opens a table: close their ``idle`` tables that hold
    bots and no one else (a practice table they left), then, to stay under
    ``GAMES_MAX_IDLE_TABLES``, their oldest idle ones nobody else watches, as
    a new seek replaces the old on Lichess. Opening a table then never dead-ends
    (testers were refused 和机器人练习 by their own left tables) and the cap
    still holds. ``people``: the seats that make a table not idle, checked
    again under each table's lock."""
    ids = list(idle.order_by("created_at", "pk").values_list("pk", flat=True).distinct())
    with_bots = set(idle.filter(seats__is_bot=True).values_list("pk", flat=True))
    doomed = [t for t in ids if t in with_bots]
    over = len(ids) - len(doomed) - settings.GAMES_MAX_IDLE_TABLES + 1
    if over > 0:  # only then ask presence who watches (one round trip)
        watched = {t for t, entries in presence.live_many(ids).items()
                   if any(u != user.pk for _c, u in entries)}
        doomed += [t for t in ids if t not in with_bots and t not in watched][:over]
    for table in _locked_tables(*doomed).values():
        if (table.status == Table.WAITING and not table.closed
                and not people.filter(table=table).exists()):
            close(table)


def open_table(user: User, name: str = "", private: bool = False) -> tuple[Table, Refused | None]:
    """The lobby's 开桌: a new table (:func:`create_table`) with its
    creator seated at North (seat 0), moved from a waiting table elsewhere
    (RULES.md §12: one seat per person), in one transaction.

    :returns: ``(table, None)``, or ``(table, why)`` when a seat policy refused
        the creator (e.g. ``suspended``): the table is open and waits for them to sit.
    :raises Refused: ``seated_elsewhere`` (:func:`playing_elsewhere`) while they
        play a running game elsewhere, as 快速开始 and 和机器人练习 are refused
        (a tester's table opened without them, an orphan in the lobby);
        whatever :func:`create_table` raises. Nothing has changed when it is raised.
    """
    current = Seat.objects.filter(user=user).select_related("table").first()
    if current is not None and current.table.status != Table.WAITING:
        raise playing_elsewhere(current.table)
    with transaction.atomic():
        table = create_table(user, name, private, owner_moves=True)
        try:
            sit(table.pk, user, 0)
        except Refused as e:  # sit's savepoint rolled back: the table stays, empty
            if e.reason == "seated_elsewhere":
                raise  # their game started meanwhile: the new table goes too
            return table, e
    return table, None


def practice(user: User, policy: Any = "normal") -> Table:
    """和机器人练习: a new public table with ``user`` at North and
    three bots of ``policy`` in the other seats, its practice game started
    (RULES.md §7: a bot makes a practice game), all in one transaction.

    The player moves from a waiting seat elsewhere (RULES.md §12).

    :param policy: ``beginner`` (新手), ``normal`` (普通), ``expert`` (高手) or
        ``master`` (大师).
    :returns: the table (its game is ``table.current_game``).
    :raises Refused: ``bad_bot``; ``seated_elsewhere`` while they play a running
        game elsewhere; whatever :func:`create_table` raises. Nothing has
        changed when it is raised.
    """
    if policy not in BOT_POLICIES:
        raise Refused("bad_bot", _("There is no such bot."))
    with transaction.atomic():
        table = create_table(user, owner_moves=True)
        table.name = practice_name(table.pk)
        table.save(update_fields=["name"])
        sit(table.pk, user, 0)
        for index in (1, 2, 3):
            add_bot(table.pk, user, index, policy)
        set_ready(table.pk, user, True)
        table.refresh_from_db()
    return table


def playing_elsewhere(table: Table) -> Refused:
    """The refusal (``seated_elsewhere``, ``params`` ``{"table_id"}``: pages
    link back to it) for someone who plays the running game at ``table`` and
    asks for another seat, table, arena or board (RULES.md §12 "One seat per
    person"). For a practice game it says how to be free of it: leaving costs
    nothing (RULES.md §7), and one whose page is closed is left for them
    (``games.deserted``) within about two minutes.
    """
    game_id = table.current_game_id
    if game_id is not None and Game.objects.filter(pk=game_id, practice=True).exists():
        message = _("You are playing a practice game at table “%(name)s”: go back there and "
                    "press Leave (no penalty). If its page stays closed, you are taken out of "
                    "it within two minutes.")
    else:
        message = _("You are playing at table “%(name)s”: finish that game first.")
    name = display_name(table.name)  # the given names: this language's half
    return Refused("seated_elsewhere", message % {"name": name}, {"table_id": table.pk})


def waiting_seat_or_refuse(user: User) -> Seat | None:
    """One seat per person (RULES.md §12) for something that is not a table
    (a challenge board, a tutorial lesson): ``user``'s seat at a waiting table,
    which the caller leaves with :func:`leave_waiting_seat` once the thing is
    theirs, or ``None``.

    :raises Refused: ``seated_elsewhere`` (:func:`playing_elsewhere`) while they
        play a running game.
    """
    seat = Seat.objects.filter(user=user).select_related("table").first()
    if seat is not None and seat.table.status != Table.WAITING:
        raise playing_elsewhere(seat.table)
    return seat


def busy_elsewhere(user: User) -> Refused | None:
    """The refusal of :func:`waiting_seat_or_refuse` as a value, for a page
    that says it before anything is pressed (a disabled 开始 with the way
    back), else ``None``."""
    try:
        waiting_seat_or_refuse(user)
    except Refused as e:
        return e
    return None


def leave_waiting_seat(seat: Seat | None, user: User, code: str, message: events.Words) -> None:
    """Leave the waiting ``seat`` of :func:`waiting_seat_or_refuse` (if the
    table still waits and they still sit there: they may have stood
    meanwhile), the table's pages told why by the notice ``code`` (not "your
    connection was lost")."""
    if seat is None:
        return
    with transaction.atomic():
        table = Table.objects.select_for_update().filter(pk=seat.table_id,
                                                         status=Table.WAITING).first()
        if table is not None and Seat.objects.filter(table=table, user=user).exists():
            stand_up(table, [user.pk], code, message)


def _locked_tables(*table_ids: int) -> dict[int, Table]:
    # the table row serialises every seat change at that table; ascending ids
    # so that two tables are always locked in the same order
    ids = sorted(set(table_ids))
    found = {t.pk: t for t in Table.objects.select_for_update().filter(pk__in=ids).order_by("pk")}
    return found


def _locked_table(table_id: int) -> Table:
    table = _locked_tables(table_id).get(table_id)
    if table is None or table.closed:
        raise Refused("no_table", _("This table does not exist or is closed."))
    return table


def _waiting(table: Table) -> None:
    if table.status != Table.WAITING:
        raise Refused("game_running", _("A game is running at this table."))


def _seat(table: Table, index: Any) -> Seat:
    number = wire.whole(index)  # a JSON integer or ASCII-digit text (docs/protocol.md)
    if number is None or number > 3:
        raise Refused("bad_seat", _("There is no such seat."))
    return Seat.objects.select_for_update().get(table=table, index=number)


def sit(table_id: int, user: User, index: Any) -> None:
    """Take the empty seat ``index`` (RULES.md §12: one seat per person).

    Moving from another seat at this table, or from a seat at another table
    that is waiting, empties the old seat; a seat at a table whose game is
    running cannot be left this way.

    :param index: as the client sent it: a whole number 0–3 as
        :func:`games.wire.whole` reads one (``1`` or ``"1"``); anything else
        is refused (``bad_seat``), as in :func:`add_bot` and :func:`remove_bot`.
    :raises Refused: ``no_table``, ``game_running``, ``bad_seat``,
        ``seat_taken``, ``seated_elsewhere`` (naming the other table), or a
        seat policy's reason (e.g. ``not_enough_coins``).
    """
    with transaction.atomic():
        elsewhere = (Seat.objects.filter(user=user).exclude(table_id=table_id)
                     .values_list("table_id", flat=True).first())
        locked = _locked_tables(table_id, *([elsewhere] if elsewhere else []))
        table = locked.get(table_id)
        if table is None or table.closed:
            raise Refused("no_table", _("This table does not exist or is closed."))
        _waiting(table)
        seat = _seat(table, index)
        if seat.user_id == user.pk:
            return
        if not seat.empty:
            raise Refused("seat_taken", _("That seat is taken."))
        other = locked.get(elsewhere) if elsewhere else None
        if other is not None and other.status != Table.WAITING:
            raise playing_elsewhere(other)
        plugins.check_seat(table, user, "sit")
        Seat.objects.filter(user=user).update(user=None, ready=False)
        seat.user, seat.ready = user, False
        try:
            with transaction.atomic():
                seat.save(update_fields=["user", "ready"])
        except IntegrityError:  # a concurrent sit elsewhere won the unique seat
            raise Refused("seated_elsewhere", _("You are already seated at another table.")
                          ) from None
        if other is not None:
            events.publish(events.TableChanged(other.pk))
        events.publish(events.TableChanged(table_id))


def set_spectators(table_id: int, user: User, allowed: bool) -> None:
    """The owner of a private table lets spectators in or keeps them out;
    with them off, standing invite holders get no game views
    (``games.access.watch_barred``) from the next snapshot on.

    :raises Refused: ``no_table``, ``not_owner``, ``game_running`` (settings
        change only between games), ``not_private``.
    """
    with transaction.atomic():
        table = _locked_table(table_id)
        _owner(table, user)
        _waiting(table)
        if not table.private:
            raise Refused("not_private", _("Only a private table can keep spectators out."))
        table.spectators_allowed = bool(allowed)
        table.save(update_fields=["spectators_allowed"])
        events.publish(events.TableChanged(table_id))


def quick_start(user: User) -> tuple[Table, bool]:
    """快速开始: seat ``user`` at the public waiting table with
    the most people seated (never a table with a bot, never a private one;
    ties: the oldest) that has an empty seat and whose seat policies admit
    them (``plugins.check_seat(table, user, "sit")``), among the candidates the
    plugins keep (``plugins.quick_start_tables``: blocks keep people apart),
    moving them from another waiting table; if there is none, their own empty
    table, or a new one. Tables whose seated players are all offline are
    skipped: that game could never start.

    :returns: ``(table, waiting_for_people)``: the second is ``True`` when no
        other table had room, so they sit alone at their own.
    :raises Refused: ``seated_elsewhere`` while their game runs; whatever
        :func:`create_table` raises.
    """

    current = Seat.objects.filter(user=user).select_related("table").first()
    if current is not None and current.table.status != Table.WAITING:
        raise playing_elsewhere(current.table)
    for table in plugins.quick_start_tables(user, _with_someone_online(
            queries.quick_start_tables(), user)):
        if current is not None and current.table_id == table.pk:
            return table, False  # already at the best table
        try:
            plugins.check_seat(table, user, "sit")
            index = queries.first_empty_seat(table.pk)
            if index is None:
                continue
            sit(table.pk, user, index)
        except Refused as e:
            if e.reason == "seated_elsewhere":
                raise
            continue  # this table is not for them (or filled meanwhile): the next
        return table, False
    if current is not None:
        return current.table, True  # they already wait at a table of their own choice
    own = queries.own_empty_table(user)
    table = own or create_table(user)
    sit(table.pk, user, 0)
    return table, True


def _with_someone_online(candidates: list[Table], user: User) -> list[Table]:
    """The quick-start ``candidates`` where someone seated (other than ``user``)
    is online (``games.presence.online``): at a table whose players all left,
    the game could never start. One query and one presence round trip."""
    seated: dict[int, set[int]] = {}
    for table_id, uid in (Seat.objects.filter(table__in=candidates, user__isnull=False)
                          .exclude(user=user).values_list("table_id", "user_id")):
        seated.setdefault(table_id, set()).add(uid)
    online = presence.online({u for ids in seated.values() for u in ids})
    return [t for t in candidates if seated.get(t.pk, set()) & online]


def leave_all(user: User) -> None:
    """An account is being deleted (``accounts.deletion``, RULES.md §12): stand
    ``user`` up from a waiting seat and close the waiting tables they own (a
    table nobody can run any more). A seat at a running game is the caller's
    refusal, never reached here; a running table they own but do not play at
    closes when idle (:func:`close_idle_tables`).
    """
    seat_table = Seat.objects.filter(user=user).values_list("table_id", flat=True).first()
    owned = list(Table.objects.filter(owner=user, closed=False, status=Table.WAITING)
                 .values_list("pk", flat=True))
    locked = _locked_tables(*owned, *([seat_table] if seat_table else []))
    if seat_table is not None and locked[seat_table].status == Table.WAITING:
        unseat(locked[seat_table], user.pk)
    for table_id in owned:
        table = locked[table_id]
        if table.status == Table.WAITING and not table.closed:
            close(table, events.notice_frame(
                "owner_left", lambda: _("This table was closed: its owner left the site."),
                {"table_id": table.pk, "table": table.name}))


def stand(table_id: int, user: User) -> None:
    """Leave one's seat while no game runs (during a game, see ``play.escape``).

    :raises Refused: ``no_table``, ``game_running``, ``not_seated``.
    """
    with transaction.atomic():
        table = _locked_table(table_id)
        _waiting(table)
        if not Seat.objects.filter(table=table, user=user).update(user=None, ready=False):
            raise Refused("not_seated", _("You are not seated at this table."))
        events.publish(events.TableChanged(table_id))


def stand_up(table: Table, user_ids: list[int], code: str, message: events.Words,
             params: dict[str, Any] | None = None) -> int:
    """Stand ``user_ids`` up from ``table`` (locked by the caller, no game
    running), each told why by a ``notice`` with ``code``/``message`` and
    ``params`` (``table_id`` and ``table`` added).

    :returns: how many were stood up.
    """
    count = Seat.objects.filter(table=table, user_id__in=user_ids).update(user=None, ready=False)
    for uid in user_ids:
        events.notify(uid, code, message,
                      {**(params or {}), "table_id": table.pk, "table": table.name})
    if count:
        events.publish(events.TableChanged(table.pk))
    return count


def rename(table_id: int, user: User, name: Any, *, override: bool = False) -> tuple[str, str]:
    """Rename a table (a 招牌, or a moderator with ``override``), after the rename
    policies (``GamePlugin.check_rename``: sign protection, RULES.md §12).

    :returns: ``(old name, new name)``.
    :raises Refused: ``no_table``, ``bad_name``, or a policy's reason.
    """
    name = clean_name(name)
    with transaction.atomic():
        table = _locked_table(table_id)
        plugins.check_rename(table, user, name, override)
        old, table.name = table.name, name
        table.save(update_fields=["name"])
        events.publish(events.TableChanged(table_id))
    return old, name


def close(table: Table, notice: dict[str, Any] | None = None) -> list[int]:
    """Close ``table`` for good (a moderator's close): every seat emptied and
    its bots gone, the table closed and off the lobby; after commit its clients
    are sent ``notice`` (if any), then ``table_closed``. ``table`` is locked by
    the caller (``select_for_update``), inside whose transaction this runs
    after any game there ended.

    :returns: the user ids that were seated.
    """
    seated = list(Seat.objects.filter(table=table).exclude(user=None)
                  .values_list("user_id", flat=True))
    Seat.objects.filter(table=table).update(user=None, ready=False, is_bot=False, bot_policy="")
    table.closed, table.status = True, Table.WAITING
    table.save(update_fields=["closed", "status"])
    events.publish(events.TableClosed(table.pk, notice))
    return seated


def unseat(table: Table, user_id: int) -> None:
    """Empty ``user_id``'s seat at ``table`` (a moderator's kick from a table
    with no game running; ``table`` locked by the caller) and announce it."""
    Seat.objects.filter(table=table, user_id=user_id).update(user=None, ready=False)
    events.publish(events.TableChanged(table.pk))


def hand_over(table: Table, user_id: int) -> int | None:
    """``user_id`` is removed from ``table`` for a while (a moderator's kick,
    RULES.md §12): if they own it, ownership passes to the player seated in
    the lowest seat, so the owner's controls (bots, wager, spectators) are
    never left with someone barred from the table. With nobody else seated it
    stays (a table of bots closes once idle, :func:`close_idle_tables`).
    ``table`` is locked by the caller.

    :returns: the new owner's user id, or ``None`` if it did not change.
    """
    if table.owner_id != user_id:
        return None
    heir = (Seat.objects.filter(table=table).exclude(user=None).exclude(user_id=user_id)
            .order_by("index").values_list("user_id", flat=True).first())
    if heir is None:
        return None
    Table.objects.filter(pk=table.pk).update(owner_id=heir)
    table.owner_id = heir
    events.publish(events.TableChanged(table.pk))
    return heir


def _owner(table: Table, user: User) -> None:
    if table.owner_id != user.pk:
        raise Refused("not_owner", _("Only the table's owner may do that."))


def add_bot(table_id: int, user: User, index: Any, policy: Any = "normal") -> None:
    """The owner puts a bot in the empty seat ``index`` (a bot makes practice
    games, RULES.md §7).

    :param policy: ``beginner`` (新手), ``normal`` (普通), ``expert`` (高手) or
        ``master`` (大师): :data:`games.engine.BOT_POLICIES`.
    :raises Refused: ``bad_bot``, ``not_owner``, ``game_running``, ``bad_seat``,
        ``seat_taken``, or a seat policy's reason (e.g. ``wager_table``).
    """
    if policy not in BOT_POLICIES:
        raise Refused("bad_bot", _("There is no such bot."))
    _set_bot(table_id, user, index, policy)


def remove_bot(table_id: int, user: User, index: Any) -> None:
    """The owner takes the bot out of seat ``index``."""
    _set_bot(table_id, user, index, None)


def _set_bot(table_id: int, user: User, index: Any, policy: str | None) -> None:
    with transaction.atomic():
        table = _locked_table(table_id)
        _owner(table, user)
        _waiting(table)
        seat = _seat(table, index)
        if policy and not seat.empty:
            raise Refused("seat_taken", _("That seat is taken."))
        if not policy and not seat.is_bot:
            raise Refused("no_bot", _("There is no bot in that seat."))
        if policy:
            plugins.check_seat(table, None, "bot")
        seat.is_bot = seat.ready = bool(policy)  # bots are always ready
        seat.bot_policy = policy or ""
        seat.save(update_fields=["is_bot", "ready", "bot_policy"])
        events.publish(events.TableChanged(table_id))
        if policy:
            _maybe_start(table)


def set_ready(table_id: int, user: User, ready: bool = True,
              seed: str | None = None, shown: Mapping[str, Any] | None = None) -> Game | None:
    """Mark oneself (un)ready; the game starts once four are seated and ready
    and every seat policy admits them (one who is not admitted is stood up
    with a ``notice``; the others stay ready). When the others are all ready,
    a player the policies would refuse is stood up without waiting for their
    ready (:func:`_maybe_start`).

    :param seed: the player's seed for the deal (``games.fairness``; already
        checked by the caller), kept until the next game starts.
    :param shown: the player's ``ready`` message: what their page showed when
        they pressed Ready (the wager), checked by the plugins'
        ``check_ready`` under the table's lock, so a ready never counts for a
        wager its player did not see (``wager_changed``). ``None`` (a ready the
        server gives itself: a practice game's) is not checked.
    :returns: the new game if this started one, else ``None``.
    :raises Refused: ``no_table``, ``game_running``, ``not_seated``, or a
        ``check_ready``'s reason; nothing has changed then.
    """
    with transaction.atomic():
        table = _locked_table(table_id)
        _waiting(table)
        fields: dict[str, Any] = (
            {"ready": bool(ready)} if seed is None else {"ready": bool(ready), "seed": seed})
        if not Seat.objects.filter(table=table, user=user).update(**fields):
            raise Refused("not_seated", _("You are not seated at this table."))
        if ready and shown is not None:
            # after the seat's check (a refusal rolls the update back); the
            # table row is locked, so set_wager waits or has committed
            plugins.check_ready(table, user, shown)
        events.publish(events.TableChanged(table_id))
        return _maybe_start(table)


def _maybe_start(table: Table) -> Game | None:
    """Start the game when four are seated and ready and the seat policies
    admit them; stand up, with a notice, whoever they refuse. With four
    seated and every player not yet ready refused by the policies at the
    start, those are stood up already: they could never ready (a short player
    at a wager table, RULES.md §9 "removed from the seat before a game"), and
    the others would wait for them forever (a tester's table did)."""
    seats = list(Seat.objects.filter(table=table).select_related("user__profile"))
    if any(s.empty for s in seats):
        return None
    waiting_on = [s for s in seats if not s.ready]
    if waiting_on and any(s.user_id is None for s in waiting_on):
        return None
    refused: list[tuple[int, Refused]] = []
    for s in waiting_on or seats:
        if s.user_id is not None:
            try:
                plugins.check_seat(table, s.user, "start")
            except Refused as e:
                refused.append((s.user_id, e))
    if waiting_on and len(refused) < len(waiting_on):
        return None  # someone who can play is still to ready: the owner may lower the wager
    if refused:
        for uid, why in refused:
            stand_up(table, [uid], why.reason, why.words, why.params)
        return None
    return None if waiting_on else play.start_game(table, seats)


def stand_up_expired(event: events.PresenceExpired) -> int:
    """Stand up, from waiting tables, users whose presence expired everywhere
    (``event.user_ids``).

    :returns: how many seats were emptied.
    """
    count = 0
    user_ids = list(event.user_ids)
    seats = Seat.objects.filter(user_id__in=user_ids, table__status=Table.WAITING)
    for table_id in set(seats.values_list("table_id", flat=True)):
        with transaction.atomic():
            table = _locked_tables(table_id).get(table_id)
            if table is None or table.status != Table.WAITING:
                continue
            n = Seat.objects.filter(table=table, user_id__in=user_ids).update(
                user=None, ready=False)
            if n:
                count += n
                events.publish(events.TableChanged(table_id))
    return count


def close_idle_tables() -> int:
    """Close waiting tables nobody sits at or watches, once they have been idle
    for ``GAMES_IDLE_TABLE_MINUTES`` (since they opened or their last game
    ended), and take them off the lobby. A table left with only bots (a
    practice game its player left) closes as soon as nobody watches it: its
    player may still save the replay from its result (a socket action), but
    testers found such tables waiting in the lobby for nobody.

    One conditional ``UPDATE … WHERE`` per table (healthchecks' claim
    pattern): someone who sits down between the scan and the close keeps
    the table.

    :returns: how many tables were closed.
    """
    cutoff = timezone.now() - timedelta(minutes=settings.GAMES_IDLE_TABLE_MINUTES)

    watched = list(presence.watched_tables())

    def idle(qs: QuerySet[Table]) -> QuerySet[Table]:
        old = qs.filter(created_at__lt=cutoff).exclude(games__ended_at__gte=cutoff)
        left = qs.filter(seats__is_bot=True)
        return ((old | left).filter(closed=False, status=Table.WAITING)
                .exclude(seats__user__isnull=False)
                .exclude(pk__in=watched))

    closed = 0
    for table_id in list(idle(Table.objects.all()).values_list("pk", flat=True).distinct()):
        if Table.objects.filter(pk__in=idle(Table.objects.filter(pk=table_id)).values("pk")
                                ).update(closed=True):
            closed += 1
            events.publish(events.TableClosed(table_id))
    return closed


def lock_owned_waiting(table_id: int, user: Any) -> Table:
    """Inside the caller's transaction, lock ``table_id`` for a change only its
    owner makes while it waits (a wager, a minimum finish rate; RULES.md §12),
    first in the lock order (Table → Seat → Profile).

    :raises Refused: ``no_table`` (closed or missing), ``not_owner``,
        ``game_running``.
    """
    table = Table.objects.select_for_update().filter(pk=table_id, closed=False).first()
    if table is None:
        raise Refused("no_table", _("This table does not exist or is closed."))
    if table.owner_id != getattr(user, "pk", None):
        raise Refused("not_owner", _("Only the table's owner may do that."))
    if table.status != Table.WAITING:
        raise Refused("game_running", _("A game is running at this table."))
    return table
