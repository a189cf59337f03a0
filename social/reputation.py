"""完成率, the finish rate (RULES.md §12 "Finish rate"), and a table's minimum.

A player's finish rate is the share of their last 100 rated games *that
count* which ended normally (托管 included); their own escape counts against
them; a game a moderator ended (their own kick or suspension included) or
that ended by someone else's escape does not count. It is kept on
``accounts.Profile`` (``finish_record``: the last 100 counted outcomes,
``finish_rate``, ``counted_games``), updated once per game by the game-end
hook (:func:`record`, ``social.plugin``), so showing it costs no query
(:func:`shown`). It is shown once a player has 5 rated games that ended
normally or by an escape (RULES.md §12 "Rated game"); until then they are
新人 and pass any minimum.

A table's owner may require a minimum (:data:`MINIMUMS`: off, 80, 90, 95 %)
to sit (:func:`seat_policy`, ``reputation_too_low``); raising it stands up
those below it, each told by a notice and a notification
(:func:`set_minimum`). Snapshots carry each seat's rate and the table's
minimum, the lobby rows the owner's rate (:func:`table_keys`); the minimum
is read from the shared cache there (:func:`minimums_of`), so a connect costs
no extra query.

Errors: :class:`yuanzi_site.refusals.Refused`; nothing has changed when it is raised.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import inbox
from accounts.models import Profile, RatingEntry
from games import events, tables
from games.models import Game, Seat, Table
from games.plugins import GameEnd, SocketContext, SocketMessage
from social.models import TableMinimum
from yuanzi_site import readthrough
from yuanzi_site.refusals import Refused

#: the counted outcomes a rate is taken over (RULES.md §12)
WINDOW = 100
#: rated games (ended normally or by an escape) before a rate is shown
SHOWN_FROM = 5
#: the minimums an owner may require, in percent (0: none)
MINIMUMS: tuple[int, ...] = (0, 80, 90, 95)
#: the days of escapes a profile lists
ESCAPE_DAYS = 30
#: the notification kind of a player stood up by a raised minimum
KIND_KEPT_OUT = "reputation_kept_out"

FINISHED, ESCAPED = "1", "0"


# --- a player's rate ------------------------------------------------------------------------


def rate_of(finish_record: str) -> int:
    """The finish rate in whole percent (rounded half up) of a record of
    counted outcomes (``"1"`` finished, ``"0"`` escaped); 100 for an empty one
    (nothing counts against them).

    >>> rate_of("1110"), rate_of(""), rate_of("110")
    (75, 100, 67)
    """
    if not finish_record:
        return 100
    done = finish_record.count(FINISHED)
    return (200 * done + len(finish_record)) // (2 * len(finish_record))


def shown(profile: Profile | None) -> int | None:
    """The finish rate a player is shown with (0–100), or ``None`` (新人)
    before 5 rated games that ended normally or by an escape. Reads only the
    profile's fields: no query."""
    if profile is None or profile.counted_games < SHOWN_FROM:
        return None
    return profile.finish_rate


def passes(profile: Profile | None, minimum: int) -> bool:
    """Does a player with ``profile`` meet a table's ``minimum`` (percent)?
    New players (:func:`shown` ``None``) always do."""
    rate = shown(profile)
    return not minimum or rate is None or rate >= minimum


def outcomes(end: GameEnd) -> dict[int, str | None]:
    """``{user_id: outcome}`` of a rated game's human players (RULES.md §12):
    ``"1"`` ended normally, ``"0"`` their own escape, ``None`` a game that
    counts toward the 5 but not the rate (someone else's escape). A game a
    moderator ended, and a practice game, give ``{}``."""
    if not end.rated or end.reason not in (Game.NORMAL, Game.ESCAPE):
        return {}
    escaper = end.result.get("abandoned_by")
    out: dict[int, str | None] = {}
    for row in end.seats:
        if row.user_id is None:
            continue
        if end.reason == Game.NORMAL:
            out[row.user_id] = FINISHED
        else:
            out[row.user_id] = ESCAPED if row.index == escaper else None
    return out


def record(end: GameEnd) -> None:
    """The game-end hook (``social.plugin``): each human player's finish
    record, rate and counted games move, inside the transaction that ends the
    game (the profiles locked in ascending user id, the lock order)."""
    moved = outcomes(end)
    if not moved:
        return
    profiles = list(Profile.objects.select_for_update().filter(user_id__in=moved)
                    .order_by("user_id"))
    for p in profiles:
        outcome = moved[p.user_id]
        p.counted_games += 1
        if outcome is not None:
            p.finish_record = (p.finish_record + outcome)[-WINDOW:]
            p.finish_rate = rate_of(p.finish_record)
    Profile.objects.bulk_update(profiles, ["finish_record", "finish_rate", "counted_games"])


def recent_escapes(user_id: int, days: int = ESCAPE_DAYS) -> list[dict[str, Any]]:
    """A player's escapes from rated games in the last ``days`` days, newest
    first (the profile page): ``[{"game_id", "table", "at"}]``; one query
    (the escape's rating entry, RULES.md §7 penalty)."""
    since = timezone.now() - timedelta(days=days)
    rows = (RatingEntry.objects.filter(user_id=user_id, reason=RatingEntry.ESCAPE,
                                       created_at__gte=since, game__isnull=False)
            .select_related("game").order_by("-created_at")[:50])
    return [{"game_id": r.game_id, "table": r.game.table_name if r.game else "",
             "at": r.created_at} for r in rows]


# --- a table's minimum ----------------------------------------------------------------------

#: every write of a ``TableMinimum`` drops its table's entry; the expiry bounds
#: what a read racing a write can leave
MINIMUM_CACHE_SECONDS = 60


def _key(table_id: int) -> str:
    return f"social:minimum:{table_id}"


def forget_minimum(table_id: int) -> None:
    """Drop the cached minimum of ``table_id`` (after a write of its row)."""
    cache.delete(_key(table_id))


def minimum_of(table_id: int) -> int:
    """The minimum finish rate of table ``table_id`` (percent, 0: none), read
    from its row: what decides a seat."""
    found: int | None = (TableMinimum.objects.filter(table_id=table_id)
                         .values_list("minimum", flat=True).first())
    return found or 0


def minimums_of(table_ids: Iterable[int]) -> dict[int, int]:
    """``{table_id: minimum}`` as snapshots show it: from the shared cache (one
    round trip), with one query for the tables it lacks; inside a transaction
    (which may hold writes not committed yet) the cache is not used."""
    def load(missing: list[int]) -> dict[int, int]:
        found = dict(TableMinimum.objects.filter(table_id__in=missing)
                     .values_list("table_id", "minimum"))
        return {t: found.get(t, 0) for t in missing}

    return readthrough.many(table_ids, _key, load, MINIMUM_CACHE_SECONDS)


def parse_minimum(value: object) -> int:
    """A client's minimum: a JSON integer of :data:`MINIMUMS`.

    :raises Refused: ``bad_minimum`` for anything else.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value not in MINIMUMS:
        raise Refused("bad_minimum", _("A minimum finish rate is one of %(choices)s.")
                      % {"choices": ", ".join(str(m) for m in MINIMUMS)})
    return value


def too_low(minimum: int) -> Refused:
    """The refusal of a player below ``minimum`` (params ``minimum``)."""
    return Refused("reputation_too_low",
                   lambda: _("This table asks for a finish rate of at least %(minimum)s%%.")
                   % {"minimum": minimum}, {"minimum": minimum})


def seat_policy(table: Table, user: User | None, moment: str) -> None:
    """The minimum's seat policy (RULES.md §12): sitting (``"sit"``) needs a
    shown finish rate of at least the table's minimum; new players pass. The
    table's row decides (not the cached copy snapshots show).

    :raises Refused: ``reputation_too_low`` (params ``minimum``).
    """
    if moment != "sit" or user is None:
        return
    minimum = minimum_of(table.pk)
    if minimum and not passes(Profile.objects.filter(user_id=user.pk).first(), minimum):
        raise too_low(minimum)


def set_minimum(table_id: int, user: User, minimum: object) -> int:
    """The owner sets the table's minimum finish rate while it waits (RULES.md
    §12). Raising it stands up each seated player below it, told by a
    ``notice`` (``reputation_too_low``) and a notification
    (:data:`KIND_KEPT_OUT`). Setting the minimum it has changes nothing. The
    owner may not ask for more than their own shown rate (as a wager needs
    the owner's coins): they must be able to sit at their own table.

    :returns: the table's minimum.
    :raises Refused: ``bad_minimum``, ``no_table``, ``not_owner``,
        ``game_running``, ``reputation_too_low`` (the owner's own rate is
        below it; params ``minimum``).
    """
    minimum = parse_minimum(minimum)
    with transaction.atomic():
        # lock order: Table → Seat (→ Profile, read only)
        table = tables.lock_owned_waiting(table_id, user)
        current = TableMinimum.objects.select_for_update().filter(table=table).first()
        if (current.minimum if current else 0) == minimum:
            return minimum
        own = Profile.objects.filter(user_id=table.owner_id).first()
        if not passes(own, minimum):  # the owner must be able to sit at their own table
            raise Refused("reputation_too_low",
                          _("You cannot ask for a finish rate above your own (%(mine)s%%).")
                          % {"mine": shown(own)}, {"minimum": minimum})
        TableMinimum.objects.update_or_create(table=table, defaults={"minimum": minimum})
        # dropped before the TableChanged below builds the snapshot (on_commit order)
        transaction.on_commit(lambda: forget_minimum(table_id))
        seated = list(Seat.objects.select_for_update().filter(table=table, user__isnull=False)
                      .values_list("user_id", flat=True))
        profiles = {p.user_id: p for p in Profile.objects.filter(user_id__in=seated)}
        short = [uid for uid in seated if uid is not None
                 and not passes(profiles.get(uid), minimum)]
        if short:
            e = too_low(minimum)
            tables.stand_up(table, short, e.reason, e.words, e.params)
            for uid in short:
                inbox.post(uid, KIND_KEPT_OUT, {"table": table.name, "minimum": minimum},
                           f"/tables/{table.pk}/")
        events.publish(events.TableChanged(table.pk))
    return minimum


def _set_minimum_message(ctx: SocketContext, msg: dict[str, Any]) -> None:
    """``{"type": "set_min_finish_rate", "minimum": 90}`` (docs/protocol.md)."""
    set_minimum(ctx.table_id, ctx.user, msg.get("minimum"))


MESSAGES = {"set_min_finish_rate": SocketMessage(_set_minimum_message)}


def table_keys(table_list: list[Table], *, lobby: bool) -> dict[int, dict[str, Any]]:
    """Snapshot keys: ``min_finish_rate`` (percent, 0: none) and
    ``finish_rates`` (``[rate | None] × 4`` by seat, ``None`` for an empty seat,
    a bot or a 新人); a lobby row gets ``min_finish_rate`` and
    ``owner_finish_rate``. Seats come with their profiles loaded; the owner's
    profile is read once for all the lobby's owners not seated. A table
    snapshot carries ``owner_finish_rate`` only while the owner sits there
    (no query on a connect): the lobby row the lobby socket streams from it
    then shows it, and otherwise no badge until the lobby page is reloaded."""
    minimums = minimums_of(t.pk for t in table_list)
    out: dict[int, dict[str, Any]] = {}
    owners: dict[int, Profile | None] = {}
    for t in table_list:
        seats = sorted(t.seats.all(), key=lambda s: s.index)
        for s in seats:
            if s.user is not None:
                owners[s.user.pk] = s.user.profile
        out[t.pk] = {"min_finish_rate": minimums[t.pk]}
        if not lobby:
            out[t.pk]["finish_rates"] = [shown(s.user.profile) if s.user is not None else None
                                         for s in seats]
            if t.owner_id in owners:  # seated: the lobby row streamed from it shows it
                out[t.pk]["owner_finish_rate"] = shown(owners[t.owner_id])
    if lobby:
        missing = {t.owner_id for t in table_list} - set(owners)
        if missing:
            owners.update({p.user_id: p for p in Profile.objects.filter(user_id__in=missing)})
        for t in table_list:
            out[t.pk]["owner_finish_rate"] = shown(owners.get(t.owner_id))
    return out


def open_with_minimum(table_id: int, user: User, text: object) -> None:
    """Set a new table's minimum at its creation (the lobby's form field
    ``min_finish_rate``, text); a value that is no minimum is ignored (the
    table opens without one)."""
    if not isinstance(text, str) or not text.isascii() or not text.isdigit() or len(text) > 3:
        return
    with contextlib.suppress(Refused):  # e.g. a game started: the owner sets it at the table
        set_minimum(table_id, user, int(text))
