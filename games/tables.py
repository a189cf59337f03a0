"""Tables and seats, the write side (DESIGN.md "server-authoritative"): create a
table, sit, stand, bots, ready (starting the game), close idle tables.

Owns ``Table`` and ``Seat`` rows. Every change runs in one transaction with the
table row locked (``select_for_update``) and is broadcast only after commit.
Starting a game hands over to :mod:`games.play` (its clock and first views).

Errors: :class:`games.errors.Refused`; nothing has changed when it is raised.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import broadcast, play, presence
from games.errors import Refused
from games.models import Game, Seat, Table


def create_table(user, name: str = "") -> Table:
    """Open a new table owned by ``user`` with four empty seats.

    :param name: up to 40 characters; blank gives the default "桌 N".
    :raises Refused: ``too_many_tables`` when the user already owns
        ``GAMES_MAX_IDLE_TABLES`` open tables where nobody sits.
    """
    name = (name or "").strip()[:40]
    with transaction.atomic():
        idle = Table.objects.filter(owner=user, closed=False, status=Table.WAITING).exclude(
            seats__user__isnull=False
        )
        if idle.count() >= settings.GAMES_MAX_IDLE_TABLES:
            raise Refused(
                "too_many_tables",
                _("You already have %(count)s empty tables open: sit at one of them.")
                % {"count": settings.GAMES_MAX_IDLE_TABLES},
            )
        table = Table.objects.create(name=name or "-", owner=user)
        if not name:
            table.name = _("Table %(number)s") % {"number": table.pk}
            table.save(update_fields=["name"])
        Seat.objects.bulk_create(Seat(table=table, index=i) for i in range(4))
        transaction.on_commit(lambda: broadcast.table_changed(table.pk))
    return table


def _locked_table(table_id: int) -> Table:
    try:
        # the table row serialises every seat change at this table
        return Table.objects.select_for_update().get(pk=table_id, closed=False)
    except Table.DoesNotExist:
        raise Refused("no_table", _("This table does not exist or is closed.")) from None


def _waiting(table: Table) -> None:
    if table.status != Table.WAITING:
        raise Refused("game_running", _("A game is running at this table."))


def _seat(table: Table, index: Any) -> Seat:
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index <= 3:
        raise Refused("bad_seat", _("There is no such seat."))
    return Seat.objects.select_for_update().get(table=table, index=index)


def sit(table_id: int, user, index: int) -> None:
    """Take the empty seat ``index`` (moving from another seat at this table)."""
    with transaction.atomic():
        table = _locked_table(table_id)
        _waiting(table)
        seat = _seat(table, index)
        if seat.user_id == user.pk:
            return
        if not seat.empty:
            raise Refused("seat_taken", _("That seat is taken."))
        Seat.objects.filter(table=table, user=user).update(user=None, ready=False)
        seat.user, seat.ready = user, False
        seat.save(update_fields=["user", "ready"])
        transaction.on_commit(lambda: broadcast.table_changed(table_id))


def stand(table_id: int, user) -> None:
    """Leave one's seat while no game runs (during a game, see :func:`escape`)."""
    with transaction.atomic():
        table = _locked_table(table_id)
        _waiting(table)
        if not Seat.objects.filter(table=table, user=user).update(user=None, ready=False):
            raise Refused("not_seated", _("You are not seated at this table."))
        transaction.on_commit(lambda: broadcast.table_changed(table_id))


def _owner(table: Table, user) -> None:
    if table.owner_id != user.pk:
        raise Refused("not_owner", _("Only the table's owner may do that."))


def add_bot(table_id: int, user, index: int) -> None:
    """The owner puts a bot in the empty seat ``index`` (a bot makes practice games)."""
    _set_bot(table_id, user, index, True)


def remove_bot(table_id: int, user, index: int) -> None:
    """The owner takes the bot out of seat ``index``."""
    _set_bot(table_id, user, index, False)


def _set_bot(table_id: int, user, index: int, bot: bool) -> None:
    with transaction.atomic():
        table = _locked_table(table_id)
        _owner(table, user)
        _waiting(table)
        seat = _seat(table, index)
        if bot and not seat.empty:
            raise Refused("seat_taken", _("That seat is taken."))
        if not bot and not seat.is_bot:
            raise Refused("no_bot", _("There is no bot in that seat."))
        seat.is_bot = seat.ready = bot  # bots are always ready
        seat.save(update_fields=["is_bot", "ready"])
        transaction.on_commit(lambda: broadcast.table_changed(table_id))
        if bot:
            _maybe_start(table)


def set_ready(table_id: int, user, ready: bool = True) -> Game | None:
    """Mark oneself (un)ready; the game starts once four are seated and ready.

    :returns: the new game if this started one, else ``None``.
    """
    with transaction.atomic():
        table = _locked_table(table_id)
        _waiting(table)
        if not Seat.objects.filter(table=table, user=user).update(ready=bool(ready)):
            raise Refused("not_seated", _("You are not seated at this table."))
        transaction.on_commit(lambda: broadcast.table_changed(table_id))
        return _maybe_start(table)


def _maybe_start(table: Table) -> Game | None:
    seats = list(Seat.objects.filter(table=table).select_related("user__profile"))
    if not all(s.ready and not s.empty for s in seats):
        return None
    return play.start_game(table, seats)


def close_idle_tables() -> int:
    """Close waiting tables nobody sits at or watches, once they have been idle
    for ``GAMES_IDLE_TABLE_MINUTES`` (since they opened or their last game
    ended), and take them off the lobby.

    :returns: how many tables were closed.
    """
    cutoff = timezone.now() - timedelta(minutes=settings.GAMES_IDLE_TABLE_MINUTES)
    idle = (
        Table.objects.filter(closed=False, status=Table.WAITING, created_at__lt=cutoff)
        .exclude(seats__user__isnull=False)
        .exclude(pk__in=list(presence.watched_tables()))
        .exclude(games__ended_at__gte=cutoff)
    )
    ids = list(idle.values_list("pk", flat=True).distinct())
    if ids:
        Table.objects.filter(pk__in=ids).update(closed=True)
        for table_id in ids:
            broadcast.table_closed(table_id)
    return len(ids)
