"""Arenas (比赛, RULES.md §12 "Arenas"), a person's side: create one (a
moderator with ``contests.manage_arena``), join, withdraw, pause and resume.

Every write runs in one transaction; the entry fee and its refund are
zero-sum transfers between the player and the arena's pool account
(``shop.ledger``, reasons ``arena_entry`` / ``arena_refund``). Joining moves
the player out of a waiting seat and is refused (``seated_elsewhere``) while
they play a running game elsewhere (RULES.md §12 "One seat per person").
What happens while an arena runs (pairing, points, payout) is
:mod:`contests.arena_run`.

Errors: :class:`yuanzi_site.refusals.Refused`; nothing has changed when it is raised.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import levels, usernames
from accounts.models import Profile
from contests.models import Arena, ArenaEntry
from games import tables
from games.models import Seat, Table
from shop import ledger
from yuanzi_site.refusals import Refused

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

MIN_MINUTES, MAX_MINUTES = 15, 180
MAX_PLAYERS = 256
MAX_FEE = 1_000_000
START_GRACE = timedelta(minutes=1)  # a start typed this minute is not "in the past"
PERMISSION = "contests.manage_arena"


def may_manage(user: User | AnonymousUser) -> bool:
    """Whether ``user`` may create arenas (``contests.manage_arena``: the
    moderators group holds it, superusers hold every permission)."""
    return bool(getattr(user, "is_authenticated", False) and user.has_perm(PERMISSION))


@dataclass(frozen=True)
class ArenaSpec:
    """What a moderator sets for a new arena (``contests.arena_forms`` checks
    the form's text into this): ``starts_at`` (aware), ``duration_minutes``
    15–180, ``entry_fee`` ≥ 0 coins, ``min_level`` 0–16, ``max_players``
    4–256, ``prize_split`` per cent by place (whole, > 0, summing to 100),
    ``house_prize`` ≥ 0 coins."""

    name: str
    starts_at: datetime
    duration_minutes: int
    entry_fee: int = 0
    min_level: int = 0
    max_players: int = 64
    prize_split: tuple[int, ...] = (50, 30, 20)
    house_prize: int = 0


def _bad(message: str) -> Refused:
    return Refused("bad_arena", message)


def check_spec(spec: ArenaSpec) -> None:
    """Refuse a spec out of bounds (``bad_arena``, the message says which field)."""
    if not spec.name.strip() or len(spec.name.strip()) > 40:
        raise _bad(_("An arena's name has 1 to 40 characters."))
    if not MIN_MINUTES <= spec.duration_minutes <= MAX_MINUTES:
        raise _bad(_("An arena lasts 15 to 180 minutes."))
    if not 0 <= spec.entry_fee <= MAX_FEE or not 0 <= spec.house_prize <= MAX_FEE:
        raise _bad(_("The entry fee and the house prize are 0 to 1,000,000 coins."))
    if not 0 <= spec.min_level <= levels.MAX_LEVEL:
        raise _bad(_("The minimum level is 0 to 16."))
    if not 4 <= spec.max_players <= MAX_PLAYERS:
        raise _bad(_("An arena takes 4 to 256 players."))
    split = spec.prize_split
    if not split or len(split) > 20 or any(p <= 0 for p in split) or sum(split) != 100:
        raise _bad(_("The prize split is per cent by place, each above 0, summing to 100."))
    if spec.starts_at < timezone.now() - START_GRACE:
        raise _bad(_("An arena starts in the future."))


def create(moderator: User, spec: ArenaSpec) -> Arena:
    """Create an arena with its pool account (an inactive user named
    ``#arena-…``, which nobody can sign up as or log in to).

    :raises Refused: ``arena_forbidden`` without ``contests.manage_arena``;
        ``bad_arena`` for a spec out of bounds.
    """
    if not may_manage(moderator):
        raise Refused("arena_forbidden", _("Only moderators may create arenas."))
    check_spec(spec)
    with transaction.atomic():
        pool = get_user_model().objects.create_user(
            username=f"{usernames.HOUSE_PREFIX}arena-{secrets.token_hex(6)}", is_active=False)
        # an account starts with the sign-up coins (shop.signals): a pool starts empty
        ledger.debit(pool, ledger.SIGNUP_GRANT, ledger.Reason.SIGNUP,
                     note="an arena's pool starts empty")
        return Arena.objects.create(
            name=spec.name.strip(), starts_at=spec.starts_at,
            duration_minutes=spec.duration_minutes, entry_fee=spec.entry_fee,
            min_level=spec.min_level, max_players=spec.max_players,
            prize_split=list(spec.prize_split), house_prize=spec.house_prize,
            pool=pool, created_by=moderator)


def _locked_arena(arena_id: int) -> Arena:
    arena = Arena.objects.select_for_update().filter(pk=arena_id).first()
    if arena is None:
        raise Refused("no_arena", _("There is no such arena."))
    return arena


def _open(arena: Arena) -> None:
    if arena.status not in (Arena.UPCOMING, Arena.RUNNING):
        raise Refused("arena_closed", _("This arena is over."))


def _leave_waiting_seat(user: User) -> None:
    # RULES.md §12 "One seat per person": a waiting seat is given up, a
    # running game refuses (tables.stand locks the table: Table before Arena)
    seat = Seat.objects.filter(user=user).select_related("table").first()
    if seat is None:
        return
    if seat.table.status != Table.WAITING:
        raise tables.playing_elsewhere(seat.table)
    tables.stand(seat.table_id, user)


def join(arena_id: int, user: User) -> ArenaEntry:
    """Enter an upcoming or running arena, paying its entry fee into the pool;
    while it runs, the player is queued for the next table at once.

    :raises Refused: ``no_arena``, ``arena_closed``, ``already_joined``,
        ``arena_removed`` (escaped one of its games), ``arena_level`` (under the
        minimum level), ``arena_full``, ``seated_elsewhere``, ``not_enough_coins``.
    """
    with transaction.atomic():
        _leave_waiting_seat(user)
        arena = _locked_arena(arena_id)
        _open(arena)
        if user.pk == arena.pool_id or not user.is_active:
            raise Refused("arena_forbidden", _("This account cannot join arenas."))
        entry = ArenaEntry.objects.select_for_update().filter(arena=arena, user=user).first()
        now = timezone.now()
        if entry is not None and entry.status == ArenaEntry.REMOVED:
            raise _removed()
        if entry is not None and entry.status != ArenaEntry.WITHDRAWN:
            raise Refused("already_joined", _("You are already in this arena."))
        if entry is not None:  # withdrew while it ran (no refund): back into the queue
            entry.status, entry.queued_at = ArenaEntry.QUEUED, now
            entry.save(update_fields=["status", "queued_at"])
            return entry
        level = Profile.objects.get(user=user).level
        if level < arena.min_level:
            raise Refused("arena_level", _("This arena is for level %(level)s (%(title)s) and "
                                           "above.") % {"level": arena.min_level,
                                                        "title": levels.title_for(arena.min_level)},
                          {"min_level": arena.min_level})
        if ArenaEntry.objects.filter(arena=arena).count() >= arena.max_players:
            raise Refused("arena_full", _("This arena is full."))
        if arena.entry_fee:
            try:
                ledger.transfer([(user, -arena.entry_fee), (arena.pool_id, arena.entry_fee)],
                                ledger.Reason.ARENA_ENTRY, note=arena.name)
            except ledger.NotEnoughCoins:
                raise Refused("not_enough_coins",
                              _("The entry fee is %(fee)s coins.") % {"fee": arena.entry_fee},
                              {"needed": arena.entry_fee}) from None
        return ArenaEntry.objects.create(arena=arena, user=user, joined_at=now, queued_at=now,
                                         fee_paid=arena.entry_fee)


def _removed() -> Refused:
    return Refused("arena_removed", _("You left an arena game: you are out of this arena "
                                      "and its points are void."))


def _entry(arena: Arena, user: User) -> ArenaEntry:
    entry = ArenaEntry.objects.select_for_update().filter(arena=arena, user=user).first()
    if entry is not None and entry.status == ArenaEntry.REMOVED:
        raise _removed()  # they did join: "not in this arena" misled a tester
    if entry is None or entry.status == ArenaEntry.WITHDRAWN:
        raise Refused("not_joined", _("You are not in this arena."))
    return entry


def _stand_from_arena_table(arena_id: int, user: User) -> None:
    # a seated (not yet confirmed) player gives up the arena table first
    # (Table before Arena in the lock order)
    found = (Seat.objects.filter(user=user, table__owner__arena_pool__pk=arena_id,
                                 table__status=Table.WAITING)
             .values_list("table_id", flat=True).first())
    if found is not None:
        tables.stand(found, user)


def withdraw(arena_id: int, user: User) -> int:
    """Leave an arena. Before it starts the fee comes back (``arena_refund``)
    and the entry is gone; while it runs nothing is refunded, the points stay
    in the standings and no new table is given (joining again re-queues).

    :returns: the coins refunded.
    :raises Refused: ``no_arena``, ``not_joined``, ``arena_removed``, ``arena_closed`` (over),
        ``arena_in_game`` (an arena game of theirs is running).
    """
    with transaction.atomic():
        _stand_from_arena_table(arena_id, user)
        arena = _locked_arena(arena_id)
        _open(arena)
        entry = _entry(arena, user)
        if entry.status == ArenaEntry.PLAYING:
            raise Refused("arena_in_game", _("Finish your arena game first."))
        if arena.status == Arena.UPCOMING:
            refund = entry.fee_paid
            if refund:
                ledger.transfer([(arena.pool_id, -refund), (user, refund)],
                                ledger.Reason.ARENA_REFUND, note=arena.name)
            entry.delete()
            return refund
        entry.status, entry.pause_after = ArenaEntry.WITHDRAWN, False
        entry.save(update_fields=["status", "pause_after"])
        return 0


def pause(arena_id: int, user: User, paused: bool = True) -> ArenaEntry:
    """Pause (no new table is given; a running game of theirs finishes first)
    or resume (queued again, at the back).

    :raises Refused: ``no_arena``, ``not_joined``, ``arena_removed``, ``arena_closed``.
    """
    with transaction.atomic():
        if paused:
            _stand_from_arena_table(arena_id, user)
        arena = _locked_arena(arena_id)
        _open(arena)
        entry = _entry(arena, user)
        if entry.status == ArenaEntry.PLAYING:
            entry.pause_after = paused
        elif paused:
            entry.status = ArenaEntry.PAUSED
        elif entry.status == ArenaEntry.PAUSED:
            entry.status, entry.queued_at = ArenaEntry.QUEUED, timezone.now()
        entry.save(update_fields=["status", "queued_at", "pause_after"])
        return entry


def forget(user: User) -> int:
    """Withdraw ``user`` from every arena not yet over (an account being
    deleted, RULES.md §12): an upcoming arena's fee comes back, a running
    one's points stay. Returns how many entries ended."""
    ended = 0
    for arena_id in (ArenaEntry.objects
                     .filter(user=user, arena__status__in=[Arena.UPCOMING, Arena.RUNNING])
                     .exclude(status__in=[ArenaEntry.WITHDRAWN, ArenaEntry.REMOVED])
                     .values_list("arena_id", flat=True)):
        withdraw(arena_id, user)
        ended += 1
    return ended
