"""Coin wager tables (押宝, RULES.md §9 "Wager tables", §12 "Wagers").

A table's owner sets a wager from :data:`LADDER` while the table waits
(:func:`set_wager`, the socket message ``set_wager``). Everything else plugs
into the game through ``shop.plugin`` (``games`` never imports this module):

- a seat policy (:func:`seat_policy`): sitting and the start of a game need
  ``100 × wager`` coins (``not_enough_coins``); a bot is refused at a wager
  table (``wager_table``);
- a ready check (:func:`ready_check`): a Ready counts only for the wager
  its page showed (``wager_changed``);
- a game-end hook (:func:`settle`, after rating settlement):
  coins move by ``wager × rating change`` in one ledger transfer, inside the
  transaction that ends the game (:func:`settlement`: the arithmetic);
- snapshot keys (:func:`table_keys`): ``wager`` (table snapshot and lobby row), and on
  the table page ``wager_afford`` and ``wager_stakes``;
- a lobby filter ``?wager=N`` (:data:`LOBBY_FILTER`, a database query), and a
  history filter ``?wager=1`` (:data:`HISTORY_FILTER`, settled wager games);
- view keys (:func:`view_keys`): once a wager game is over, ``wager``, ``coin_changes``
  and the viewer's ``coins`` (the result panel and page), and recent-game
  keys ``coin_change`` (:func:`recent_game_keys`) (the profile's recent games).

Errors: :class:`yuanzi_site.refusals.Refused`; nothing has changed when it is raised.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils.text import format_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop, ngettext
from django_stubs_ext import StrOrPromise

from accounts import inbox, levels
from accounts.models import Profile
from games import events, tables, wire
from games.models import Game, Seat, Table
from games.plugins import GameEnd, HistoryFilter, LobbyFilter, SocketContext, SocketMessage
from shop import holds, ledger
from shop.models import CoinEntry, GameWager, TableWager
from yuanzi_site import readthrough
from yuanzi_site.refusals import Refused

#: the wagers a table may carry, in coins (RULES.md §12): 0 and 10 × 2^k up to 10,240
LADDER: tuple[int, ...] = (0, *(10 * 2**k for k in range(11)))
SEAT_FACTOR = 100  # coins needed to sit: 100 × wager (RULES.md §9)

REASONS = {
    "bad_wager": "set_wager with a wager not a JSON integer on the ladder 0, 10, 20 … 10240",
    "bots_seated": "set_wager while a bot sits at the table",
    "wager_table": "add_bot at a table with a wager (a wager table takes no bots)",
    # not_enough_coins: registered by shop.reasons (the coins are short; params: needed)
    "private_table": "set_wager at a private table (a private table takes no wager)",
    "wager_stands_up": "set_wager to a wager some seated players cannot afford, without confirm",
    "wager_changed": "ready whose wager (the one its page showed) is not the table's, or "
                     "without a wager at a wager table",
}


def needed(wager: int) -> int:
    """Coins a player must hold to sit at a table with ``wager`` (RULES.md §9)."""
    return SEAT_FACTOR * wager


def parse_wager(value: object) -> int:
    """A client's wager: a JSON integer on :data:`LADDER`.

    :raises Refused: ``bad_wager`` for anything else (``"40"``, ``40.0``,
        ``true``, negatives, numbers off the ladder, a missing field).
    """
    if isinstance(value, bool) or not isinstance(value, int) or value not in LADDER:
        raise Refused("bad_wager", _("A wager is one of %(ladder)s coins.")
                      % {"ladder": ", ".join(str(w) for w in LADDER)})
    return value


def wager_of(table_id: int) -> int:
    """The wager of table ``table_id`` in coins (0: none)."""
    wager: int | None = (TableWager.objects.filter(table_id=table_id)
                         .values_list("wager", flat=True).first())
    return wager or 0


def without_wager(tables_: list[Table]) -> list[Table]:
    """``tables_`` less those with a wager, in order (one query; RULES.md §12
    "Wagers": a bet is the sitter's choice, so quick start leaves them out)."""
    wagered = set(TableWager.objects.filter(table_id__in=[t.pk for t in tables_], wager__gt=0)
                  .values_list("table_id", flat=True))
    return [t for t in tables_ if t.pk not in wagered]


#: every write of a ``TableWager`` drops its table's entry (``shop.signals``);
#: the expiry bounds what a read racing a write can leave
WAGER_CACHE_SECONDS = 60


def _wager_key(table_id: int) -> str:
    return f"shop:wager:{table_id}"


def forget_wager(table_id: int) -> None:
    """Drop the cached wager of ``table_id`` (after a write of its ``TableWager``)."""
    cache.delete(_wager_key(table_id))


def wagers_of(table_ids: Iterable[int]) -> dict[int, int]:
    """``{table_id: wager}`` for the tables given (0 for those without one), as
    table snapshots and lobby rows show it: from the shared cache (one round
    trip), with one query for the tables it lacks. Rules that decide on the
    wager (seating, holds) read the row itself (:func:`wager_of`). Inside a
    transaction (it may hold writes not committed yet) the cache is not used."""
    def load(missing: list[int]) -> dict[int, int]:
        found = dict(TableWager.objects.filter(table_id__in=missing)
                     .values_list("table_id", "wager"))
        return {t: found.get(t, 0) for t in missing}

    return readthrough.many(table_ids, _wager_key, load, WAGER_CACHE_SECONDS)


def _coins(user_id: int) -> int:
    coins: int | None = (Profile.objects.filter(user_id=user_id)
                         .values_list("coins", flat=True).first())
    return coins or 0


def _short(wager: int) -> Refused:
    # in the reader's language: a start stands the short player up by a notice
    return Refused(
        "not_enough_coins",
        lambda: _("This table's wager is %(wager)s coins: you need %(needed)s coins to sit "
                  "here.") % {"wager": wager, "needed": needed(wager)},
        {"needed": needed(wager), "wager": wager},
    )


# --- setting the wager ------------------------------------------------------------------


def set_wager(table_id: int, user: User, wager: object, confirm: bool = False) -> int:
    """The owner sets the table's wager while it waits (RULES.md §12 "Wagers").

    The owner must hold ``100 × wager`` coins themself, seated or not (they
    may not set a wager they could not sit at: ``not_enough_coins``, params
    ``needed``, ``wager``). A wager that some seated players cannot afford is
    set only with ``confirm`` (else ``wager_stands_up``, params ``count`` —
    how many would be stood up, never their balances — and ``wager``). A
    changed wager un-readies everyone seated and stands up, each told by a
    ``notice`` (``not_enough_coins``), whoever holds under ``100 × wager``;
    the other seated players but the owner are told by a ``wager_changed``
    notice (params ``wager``, ``table_id``).
    Setting the wager it already has changes nothing.

    :param wager: the message's ``wager`` field, checked by :func:`parse_wager`.
    :param confirm: the owner was told how many would be stood up and agreed.
    :returns: the table's wager.
    :raises Refused: ``bad_wager``, ``no_table``, ``not_owner``,
        ``game_running``, ``private_table``, ``bots_seated``,
        ``not_enough_coins``, ``wager_stands_up``; nothing has changed then.
    """
    wager = parse_wager(wager)
    with transaction.atomic():
        # lock order: Table → Seat (→ Profile, read only here)
        table = tables.lock_owned_waiting(table_id, user)
        # RULES.md §12: "a private table takes no wager". Table.private is set
        # only when the table is opened, so a wager table never becomes one.
        if wager and table.private:
            raise Refused("private_table", _("A private table cannot carry a wager."))
        seats = list(Seat.objects.select_for_update().filter(table=table).order_by("index"))
        if wager and any(s.is_bot for s in seats):
            raise Refused("bots_seated", _("Remove the bots first: a wager table takes no bots."))
        current = TableWager.objects.select_for_update().filter(table=table).first()
        if (current.wager if current else 0) == wager:
            return wager
        if _coins(table.owner_id) < needed(wager):  # the owner must be able to sit at it
            raise Refused(
                "not_enough_coins",
                _("You need %(needed)s coins to set a wager of %(wager)s coins: the owner must "
                  "be able to sit at it.") % {"needed": needed(wager), "wager": wager},
                {"needed": needed(wager), "wager": wager})
        seated = [s.user_id for s in seats if s.user_id is not None]
        balances = dict(Profile.objects.filter(user_id__in=seated).values_list("user_id", "coins"))
        short = [uid for uid in seated if balances.get(uid, 0) < needed(wager)]
        if short and not confirm:
            raise Refused(
                "wager_stands_up",
                ngettext("%(count)s seated player cannot afford a wager of %(wager)s coins and "
                         "would be stood up.",
                         "%(count)s seated players cannot afford a wager of %(wager)s coins and "
                         "would be stood up.", len(short))
                % {"count": len(short), "wager": wager},
                {"count": len(short), "wager": wager})
        TableWager.objects.update_or_create(table=table, defaults={"wager": wager})
        Seat.objects.filter(table=table, user__isnull=False).update(ready=False)
        if short:
            e = _short(wager)
            tables.stand_up(table, short, e.reason, e.words, e.params)
        # the others' Ready went with the old wager: say why (no "table" param:
        # that would read as a stand-up's reason, static/js/notices.js)
        for uid in seated:
            if uid != table.owner_id and uid not in short:
                events.notify(uid, "wager_changed", events.say(
                    gettext_noop("The owner changed the wager to %(wager)s coins: press Ready "
                                 "again to play at it."), wager=wager),
                    {"wager": wager, "table_id": table.pk})
        events.publish(events.TableChanged(table.pk))
    return wager


def _set_wager_message(ctx: SocketContext, msg: dict[str, Any]) -> None:
    """``{"type": "set_wager", "wager": 40, "confirm": true}`` (docs/protocol.md;
    ``confirm`` optional, only ``true`` confirms)."""
    set_wager(ctx.table_id, ctx.user, msg.get("wager"), confirm=msg.get("confirm") is True)


def ready_check(table: Table, shown: Mapping[str, Any]) -> None:
    """A player's Ready counts only for the wager their page showed (RULES.md
    §12 "Wagers": a bet is the sitter's choice): ``shown["wager"]``, the
    ``ready`` message's field, must be the table's wager, read from its row
    under the table's lock (``games.tables.set_ready`` holds it, and
    :func:`set_wager` takes it first), so a Ready that crossed a change of the
    wager is refused, not counted at a stake its player never saw. A ready
    without the field is accepted only at a table without a wager (an old
    page at a wager table cannot be committed blind).

    :raises Refused: ``bad_message`` (a ``wager`` that is no whole number),
        ``wager_changed`` (params ``wager``: the table's); nothing has changed.
    """
    wager = wager_of(table.pk)
    if "wager" not in shown:
        if wager:
            raise Refused("wager_changed", _(
                "This table's wager is %(wager)s coins: reload the page, check the wager and "
                "press Ready again.") % {"wager": wager}, {"wager": wager})
        return
    value = shown["wager"]
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refused("bad_message", _("“wager” must be a whole number of coins."))
    if value == wager:
        return
    if wager:
        words = _("The wager changed to %(wager)s coins: check it and press Ready "
                  "again.") % {"wager": wager}
    else:
        words = _("The table no longer has a wager: press Ready again.")
    raise Refused("wager_changed", words, {"wager": wager})


# --- who may sit --------------------------------------------------------------------------


def seat_policy(table: Table, user: User | None, moment: str) -> None:
    """The wager's seat policy (RULES.md §9): at a wager table a person needs
    ``100 × wager`` coins to sit (``"sit"``) and before a game starts
    (``"start"``, read under the seated players' profile locks, so the held
    stake that follows sees the same balances); a bot may not sit (``"bot"``).
    After a game (``"game_end"``) nobody is stood up for coins: §9 removes a
    player who has fallen below "before a game", so a loser keeps the seat
    until the other three are ready (``games.tables._maybe_start`` asks
    ``"start"`` of whoever they wait for), and the owner may lower the wager
    meanwhile (a tester's wager-20 table of new players broke up after one game).

    :raises Refused: ``not_enough_coins`` (params ``needed``, ``wager``),
        ``wager_table``.
    """
    if moment == "game_end":
        return
    wager = wager_of(table.pk)
    if not wager:
        return
    if moment == "bot":
        raise Refused("wager_table", _("A wager table takes no bots."))
    assert user is not None  # only a bot's seat ("bot") comes without a user
    if moment == "start":
        # the four profiles locked now, in the lock order, until the game has
        # started and held its stakes: a purchase racing the start either
        # commits first (and a player left short is stood up) or sees the hold
        seated = Seat.objects.filter(table=table, user__isnull=False).values_list(
            "user_id", flat=True)
        coins = ledger.lock_balances([user.pk, *seated])[user.pk]
    else:
        coins = _coins(user.pk)
    if coins < needed(wager):
        raise _short(wager)


# --- settlement ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Payment:
    """One payer's payment split among its receivers: ``payer`` (a seat) pays
    ``amount`` coins; ``shares`` ``{seat: coins}`` sum to ``amount``."""

    payer: int
    amount: int
    shares: dict[int, int]


def split(payer: int, amount: int, receivers: list[int]) -> dict[int, int]:
    """Share ``amount`` coins paid by seat ``payer`` among ``receivers`` (seats)
    equally; the remainder goes one coin at a time to the receivers in turn
    order from the seat after the payer: ``(p+3)%4, (p+2)%4, (p+1)%4``
    (RULES.md §2 counterclockwise, §12 "Wagers").

    >>> split(0, 7, [1, 3])
    {3: 4, 1: 3}
    >>> split(2, 10, [0, 1, 3])
    {1: 4, 0: 3, 3: 3}
    """
    order = [s for s in ((payer + 3) % 4, (payer + 2) % 4, (payer + 1) % 4) if s in receivers]
    base, rest = divmod(amount, len(order))
    return {s: base + (1 if k < rest else 0) for k, s in enumerate(order)}


def settlement(wager: int, rating_changes: list[int], balances: list[int],
               escaper: int | None = None) -> list[Payment]:
    """What each payer pays and to whom, for a finished rated game (RULES.md §9).

    :param wager: the table's wager (coins, > 0).
    :param rating_changes: the game's rating-point change per seat (engine
        ``result["rating_changes"]``: the stake, × 2 on a double clamp; an
        escaper's penalty; bonuses are not in it).
    :param balances: each seat's coins before settlement.
    :param escaper: the seat that escaped, or ``None`` for a normal ending.
    :returns: one :class:`Payment` per payer who pays anything. A normal
        ending: each loser pays ``wager × |change|`` (their whole balance if
        short) to the two winners; an escape: the escaper pays ``wager ×
        penalty`` (their whole balance if short) to the other three.
    """
    payments = []
    for seat, change in enumerate(rating_changes):
        if change >= 0:
            continue
        amount = min(wager * -change, balances[seat])
        if escaper is not None:
            receivers = [s for s in range(4) if s != seat]
        else:
            receivers = [s for s, c in enumerate(rating_changes) if c > 0]
        if amount and receivers:
            payments.append(Payment(seat, amount, split(seat, amount, receivers)))
    return payments


def coin_changes(payments: list[Payment]) -> list[int]:
    """Each seat's signed coin change from ``payments`` (sums to zero)."""
    out = [0, 0, 0, 0]
    for p in payments:
        out[p.payer] -= p.amount
        for seat, coins in p.shares.items():
            out[seat] += coins
    return out


def settle(end: GameEnd) -> None:
    """The wager's game-end hook (RULES.md §9, §12): inside the transaction
    that ends the game, once per game (the finisher's guard), after rating
    settlement.

    Only a rated game at a wager table that ended normally or by an escape
    settles; a moderator's close or kick, or a suspension, moves no coins.
    All of it is one ``ledger.transfer`` (reason ``wager``, or
    ``escape_wager``) naming the game, summing to zero; payments are sized
    from the balances locked first, so nobody goes below zero. A
    :class:`~shop.models.GameWager` records the wager and each seat's change.
    Each payment is drawn from the payer's held stake first (``shop.holds``);
    ``shop.holds.release`` releases the rest after this hook.
    """
    if not end.rated or end.reason not in (Game.NORMAL, Game.ESCAPE):
        return
    game = end.game
    wager = wager_of(game.table_id)
    if not wager:
        return
    users = [row.user_id for row in end.seats if row.user_id is not None]
    if len(users) != len(end.seats):  # a bot: practice (cannot happen at a wager table)
        return
    locked = ledger.lock_balances(users)  # Profile rows, ascending user id (lock order)
    escaper = end.result.get("abandoned_by") if end.reason == Game.ESCAPE else None
    payments = settlement(wager, list(end.result["rating_changes"]),
                          [locked[u] for u in users], escaper)
    legs = []
    for p in payments:
        holds.draw(game, users[p.payer], p.amount)  # paid out of the held stake first (§12)
        legs.append(ledger.Leg(users[p.payer], -p.amount))
        legs.extend(ledger.Leg(users[seat], coins, users[p.payer])
                    for seat, coins in p.shares.items())
    reason = CoinEntry.Reason.ESCAPE_WAGER if escaper is not None else CoinEntry.Reason.WAGER
    ledger.transfer(legs, reason, game=game, table=game.table_id,
                    note=f"wager {wager}")
    changes = coin_changes(payments)
    GameWager.objects.create(game=game, wager=wager, coin_changes=changes)
    tell_receivers(end, changes, escaper)
    tell_escaper(end, changes, escaper)
    tell_losers(end, changes, escaper)


def tell_receivers(end: GameEnd, changes: list[int], escaper: int | None) -> None:
    """A ``notice`` to each player who gained coins in ``end``'s settlement,
    naming why: ``wager_won`` (``params``: ``coins``) or,
    after an escape, ``escape_paid`` (``params``: ``coins``, ``name``: the
    escaper). Sent after commit; the ``me`` frames carry the new balances.
    Each is kept in the winner's notification centre too (``accounts.inbox``,
    in the game's transaction), linking to the game's result page."""
    table_id = end.game.table_id
    result = f"/games/{end.game.pk}/"
    for row, change in zip(end.seats, changes, strict=True):
        if change <= 0 or row.user_id is None:
            continue
        if escaper is not None:
            name = end.seats[escaper].username
            events.notify(row.user_id, "escape_paid", events.say(gettext_noop(
                "%(name)s left the game: you receive %(coins)s coins."), name=name, coins=change),
                          {"coins": change, "name": name, "table_id": table_id})
            inbox.post(row.user_id, "escape_paid", {"coins": change, "name": name}, result,
                       quiet=True)  # the notice is its toast
        else:
            events.notify(row.user_id, "wager_won", events.say(gettext_noop(
                "The wager is settled: you win %(coins)s coins."), coins=change),
                          {"coins": change, "table_id": table_id})
            inbox.post(row.user_id, "wager_won", {"coins": change}, result, quiet=True)


def tell_escaper(end: GameEnd, changes: list[int], escaper: int | None) -> None:
    """Keep an ``escape_fined`` notification (``params``: ``coins``) for the
    escaper of ``end`` who paid coins (RULES.md §12 "Wagers"), in the game's
    transaction, linking to the game's result page like the three paid. Not
    quiet: no ``notice`` says it, so its frame is the toast."""
    if escaper is None or changes[escaper] >= 0:
        return
    user_id = end.seats[escaper].user_id
    if user_id is not None:
        inbox.post(user_id, "escape_fined", {"coins": -changes[escaper]},
                   f"/games/{end.game.pk}/")


def tell_losers(end: GameEnd, changes: list[int], escaper: int | None) -> None:
    """Keep a ``wager_lost`` notification (``params``: ``coins``, the net
    loss) for each player who paid in ``end``'s normal settlement (RULES.md
    §12 "Wagers"), in the game's transaction, linking to the game's result
    page: the winners' ``wager_won`` has its pair (a tester's losers had no
    word of it in 消息). Not quiet: no ``notice`` says it, so its frame is the
    toast. After an escape only the escaper paid (:func:`tell_escaper`)."""
    if escaper is not None:
        return
    for row, change in zip(end.seats, changes, strict=True):
        if change < 0 and row.user_id is not None:
            inbox.post(row.user_id, "wager_lost", {"coins": -change}, f"/games/{end.game.pk}/")


# --- what clients see ------------------------------------------------------------------------


def table_keys(tables_: list[Table], *, lobby: bool) -> dict[int, dict[str, Any]]:
    """``wager`` for table snapshots and lobby rows (one query); for the table
    page also :func:`_snapshot_details`."""
    wagers = wagers_of([t.pk for t in tables_])
    out = {t: {"wager": w} for t, w in wagers.items()}
    if not lobby:
        for t, keys in _snapshot_details(tables_, wagers).items():
            out[t].update(keys)
    return out


def _snapshot_details(tables_: list[Table], wagers: dict[int, int]) -> dict[int, dict[str, Any]]:
    """For the table page: ``wager_afford`` (per seat: can that player afford
    the wager, ``null`` for an empty seat or a bot) and ``wager_stakes``
    (``null`` without a wager or a player; else ``stake``, the RULES.md §7
    stake of the lowest-level player seated, and what each player wins or
    loses: ``normal`` = wager × stake, ``double_clamp`` = 2 × that). ``wagers``:
    :func:`wagers_of` the tables; their seats as the snapshot loaded them
    (``table.seats``, prefetched with ``user__profile``)."""
    seats: dict[int, list[Seat]] = {t.pk: list(t.seats.all()) for t in tables_}
    out = {}
    for table_id, wager in wagers.items():
        # (seat index, profile) of each person seated
        people = [(s.index, s.user.profile) for s in seats[table_id] if s.user is not None]
        afford: list[bool | None] = [None] * 4
        for index, profile in people:
            afford[index] = profile.coins >= needed(wager)
        stakes = None
        if wager and people:
            low = min(levels.level_for(profile.rating_points) for _index, profile in people)
            stake = levels.stake_for(low)
            stakes = {"stake": stake, "normal": wager * stake, "double_clamp": 2 * wager * stake}
        out[table_id] = {"wager_afford": afford, "wager_stakes": stakes}
    return out


def _lobby_query(found: QuerySet[Table], wager: int) -> QuerySet[Table]:
    if wager == 0:
        return found.exclude(wager__wager__gt=0)
    return found.filter(wager__wager=wager)


def _lobby_match(row: dict[str, Any], wager: int) -> bool:
    found: int = row.get("wager", 0)
    return found == wager


def _parse_filter(text: str) -> int | None:
    value = wire.whole(text)  # ASCII digits only
    return value if value in LADDER else None


def view_keys(game_id: int, state: dict[str, Any], seat: int | None,
          user_id: int | None) -> dict[str, Any]:
    """Once a wager game is over: ``wager``, ``coin_changes`` (per seat) and,
    for a player's own view, ``coins`` (their balance now). Nothing while it
    runs (the table snapshot carries the wager) or for a game without one."""
    if state.get("status") != "over":
        return {}
    record = GameWager.objects.filter(game_id=game_id).values_list("wager", "coin_changes").first()
    if record is None:
        return {}
    extra: dict[str, Any] = {"wager": record[0], "coin_changes": record[1]}
    if user_id is not None:
        extra["coins"] = _coins(user_id)
    return extra


def recent_game_keys(user_id: int, seats: dict[int, int]) -> dict[int, dict[str, Any]]:
    """``coin_change`` for a player's recent wager games (the profile page)."""
    return {game_id: {"coin_change": changes[seats[game_id]]}
            for game_id, changes in GameWager.objects.filter(game_id__in=list(seats))
            .values_list("game_id", "coin_changes")}


def _ladder_label(wager: int) -> StrOrPromise:
    if not wager:
        return gettext_lazy("No wager")
    return format_lazy("{} {}", wager, gettext_lazy("coins"))


#: the lobby's ``?wager=`` filter (RULES.md §12 wager ladder)
LOBBY_FILTER = LobbyFilter(
    "wager", _parse_filter, _lobby_query, _lobby_match, label=gettext_lazy("Wager"),
    choices=tuple((str(w), _ladder_label(w)) for w in LADDER),
)

#: a player's history (战绩) ``?wager=1``: the games whose wager settled (a
#: ``GameWager`` row; a moderator's ending moves nothing and is not one)
HISTORY_FILTER = HistoryFilter("wager", Q(game__wager__isnull=False),
                               label=gettext_lazy("Wager games only"))

#: the wager's table-socket message (docs/protocol.md "Wagers")
MESSAGES = {"set_wager": SocketMessage(_set_wager_message)}
