"""The coins ledger: the only code that writes ``Profile.coins`` (DESIGN.md
"Money and points", RULES.md §9, §12 "Coins").

Every movement of coins is a ``CoinEntry`` written in the transaction of its
cause — a purchase in its own, a game-end hook inside the game's — so a balance
always equals the sum of its entries, and ``manage.py check_ledger`` (``audit``)
proves it for the whole database.

Public API (all amounts are whole coins):

- ``credit(user, amount, reason, ...)`` / ``debit(user, amount, reason, ...)``:
  one entry, ``amount > 0``;
- ``transfer(legs, reason, ...)``: a multi-party movement (a wager's settlement,
  a 定时器's 270 / 3 × 90), signed legs that sum to zero, one ``transfer_id``;
- ``lock_balances(users)``: lock profiles in the lock order and read balances,
  for a caller that must size a payment first (a loser who pays their whole
  balance, RULES.md §9); ``lock_holdings(users)``: the same with the coins
  held by running wager games (``Holding``);
- ``audit()``: the whole-database proof behind ``check_ledger``.

Held coins (RULES.md §12 "Held stake", ``shop.holds``): no movement may leave
a balance under its ``Profile.coins_held`` — a debit or transfer that would is
refused with ``NotEnoughCoins`` (``params.held``) — so a purchase, a
moderator's revoke or a 定时器 spends only coins not held; a wager game's own
settlement draws its hold down first (``shop.holds.draw``).

After the commit, every user whose balance moved is sent a ``me`` frame
with their new figures on every page they have open (the ``games.events`` event
``me_changed``; docs/protocol.md "The per-user channel"); the movement's cause
sends the ``notice`` saying why.

Writes run only inside the caller's ``transaction.atomic()`` (else
``TransactionManagementError``). A refusal (``LedgerError``, e.g.
``NotEnoughCoins`` with code ``not_enough_coins``) is raised before anything is
written, so the caller's transaction stays usable and nothing has changed.

Lock order of the whole site (every module that takes row locks follows it, so
two transactions never wait on each other in a cycle)::

    Game → Table → Seat → Profile (ascending user id) → inventory rows (ascending id)

and ledger rows are inserted last, after every balance update. A caller that
holds a game or table lock may call the ledger; code that holds Profile locks
must not then lock a game, table or seat.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeAlias, cast, overload

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F, Model, OuterRef, Subquery, Sum, Window
from django.db.models.functions import Coalesce
from prometheus_client import Counter

from accounts.models import Profile
from games import events
from games.models import Game, Table
from shop.models import CoinEntry, Hold

#: who a movement concerns: a user, or a user id
UserRef: TypeAlias = User | int

Reason = CoinEntry.Reason

SIGNUP_GRANT = 2000  # every new account's coins (RULES.md §12 "Coins")
MAX_AMOUNT = 10**12  # no single movement is larger; guards typos in grant_coins
MAX_NOTE = 200  # CoinEntry.note's length

#: committed coin movements (``/metrics``), by reason and kind (``transfer``: several
#: legs summing to zero; ``single``: one credit or debit)
MOVEMENTS = Counter("yuanzi_ledger_movements", "Committed coin movements", ["reason", "kind"])


class LedgerError(ValueError):
    """A refused ledger call; nothing was written.

    ``code`` is a reason code (``not_enough_coins``, ``bad_amount``,
    ``bad_reason``, ``bad_note``, ``bad_item``, ``unbalanced``, ``no_profile``); ``params``
    carries the figures a message needs.
    """

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.params = params


class NotEnoughCoins(LedgerError):
    """A debit would take ``user_id`` below zero (RULES.md §9: coins never go
    below zero) or into the coins a running wager game holds (RULES.md §12).
    ``params``: ``user_id``, ``balance`` (their coins), ``needed``, ``held``
    (of ``balance``, held by a running game; ``balance − held`` can be spent)."""

    def __init__(self, user_id: int, balance: int, needed: int, held: int = 0) -> None:
        super().__init__(
            "not_enough_coins",
            f"user {user_id} holds {balance} coins ({held} of them held), {needed} needed",
            user_id=user_id, balance=balance, needed=needed, held=held,
        )


class Holding(NamedTuple):
    """A locked profile's ``coins`` and the part of them ``held`` by running
    wager games; ``spendable`` is the rest (RULES.md §12 "Held stake")."""

    coins: int
    held: int

    @property
    def spendable(self) -> int:
        """Coins that may be spent: ``coins − held``."""
        return self.coins - self.held


class Leg(NamedTuple):
    """One signed movement of a transfer: ``user`` (a user or user id) gains
    ``amount`` coins (negative: pays). ``other``: the counter-party to record,
    if one; a two-leg transfer records each side as the other's."""

    user: UserRef
    amount: int
    other: UserRef | None = None


@overload
def _id(obj: Model | int) -> int: ...
@overload
def _id(obj: Model | int | None) -> int | None: ...


def _id(obj: Model | int | None) -> int | None:
    """A model instance's pk, or the id itself (None stays None)."""
    return cast("int | None", getattr(obj, "pk", obj))


def _require_atomic() -> None:
    if not transaction.get_connection().in_atomic_block:
        raise transaction.TransactionManagementError(
            "shop.ledger writes only inside transaction.atomic(), in the transaction "
            "of the movement's cause"
        )


def _check_amount(amount: object, *, allow_zero: bool = False, signed: bool = False) -> int:
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise LedgerError("bad_amount", f"amount must be a whole number of coins, not {amount!r}")
    if abs(amount) > MAX_AMOUNT or (amount == 0 and not allow_zero) or (amount < 0 and not signed):
        raise LedgerError("bad_amount", f"amount {amount} is out of range")
    return amount


def _check_reason(reason: Any) -> str:
    if reason not in Reason.values:
        raise LedgerError("bad_reason", f"unknown ledger reason {reason!r}")
    return str(reason)


def lock_balances(users: Iterable[UserRef]) -> dict[int, int]:
    """Lock the profiles of ``users`` (users or ids) in ascending user id —
    the lock order above — and return ``{user_id: coins}``.

    Must run inside ``transaction.atomic()``; the locks last until it ends.
    Raises ``LedgerError("no_profile")`` if a user has no profile.
    """
    return {user_id: h.coins for user_id, h in lock_holdings(users).items()}


def lock_holdings(users: Iterable[UserRef]) -> dict[int, Holding]:
    """As ``lock_balances``, returning ``{user_id: Holding(coins, held)}``."""
    _require_atomic()
    ids = sorted({_id(u) for u in users})
    rows = (
        Profile.objects.select_for_update()
        .filter(user_id__in=ids)
        .order_by("user_id")
        .values_list("user_id", "coins", "coins_held")
    )
    holdings = {user_id: Holding(coins, held) for user_id, coins, held in rows}
    missing = [i for i in ids if i not in holdings]
    if missing:
        raise LedgerError("no_profile", f"no profile for user {missing[0]}", user_id=missing[0])
    return holdings


def _post(
    legs: Sequence[Leg], reason: str, *, transfer_id: uuid.UUID | None,
    game: Game | int | None, table: Table | int | None, item_code: str, note: str,
) -> list[CoinEntry]:
    """Lock, check every leg, update balances, then insert the entries."""
    if not isinstance(item_code, str) or len(item_code) > 32:
        raise LedgerError("bad_item", f"item code {item_code!r} is not a code")
    if not isinstance(note, str) or len(note) > MAX_NOTE:
        raise LedgerError("bad_note", f"a note is text of at most {MAX_NOTE} characters")
    holdings = lock_holdings(leg.user for leg in legs)
    balances = {user_id: h.coins for user_id, h in holdings.items()}
    rows = []
    for leg in legs:  # in the order given: each row's balance_after is the running one
        user_id = _id(leg.user)
        balance = balances[user_id] + leg.amount
        if balance < holdings[user_id].held:  # below zero, or into held coins (§12)
            raise NotEnoughCoins(user_id, balances[user_id], -leg.amount,
                                 holdings[user_id].held)
        balances[user_id] = balance
        rows.append(CoinEntry(
            user_id=user_id, amount=leg.amount, balance_after=balance, reason=reason,
            game_id=_id(game), table_id=_id(table), item_code=item_code,
            other_id=_id(leg.other), transfer_id=transfer_id, note=note,
        ))
    moved = sorted({row.user_id for row in rows})
    for user_id in moved:
        Profile.objects.filter(user_id=user_id).update(coins=balances[user_id])
    counted = MOVEMENTS.labels(reason, "single" if transfer_id is None else "transfer")
    transaction.on_commit(counted.inc)  # a rolled-back movement never happened
    # every page of each person shows the new balance once this commits
    events.me_changed(moved)
    return CoinEntry.objects.bulk_create(rows)  # ledger rows last


def credit(
    user: UserRef, amount: int, reason: str, *, game: Game | int | None = None,
    table: Table | int | None = None, item_code: str = "", other: UserRef | None = None,
    note: str = "",
) -> CoinEntry:
    """Give ``user`` (user or id) ``amount`` > 0 coins; return the entry.

    ``reason``: a ``CoinEntry.Reason``; ``game`` / ``table`` (instances or ids),
    ``item_code``, ``other`` (the counter-party, e.g. the granting moderator)
    and ``note`` (≤ 200 characters) are recorded on the entry. Inside
    ``transaction.atomic()`` only. Raises ``LedgerError`` (``bad_amount``,
    ``bad_reason``, ``bad_note``, ``no_profile``) with nothing written.
    """
    _require_atomic()
    leg = Leg(user, _check_amount(amount), other)
    return _post([leg], _check_reason(reason), transfer_id=None, game=game, table=table,
                 item_code=item_code, note=note)[0]


def debit(
    user: UserRef, amount: int, reason: str, *, game: Game | int | None = None,
    table: Table | int | None = None, item_code: str = "", other: UserRef | None = None,
    note: str = "",
) -> CoinEntry:
    """Take ``amount`` > 0 coins from ``user``; return the (negative) entry.

    Arguments as ``credit``. Raises ``NotEnoughCoins`` (``not_enough_coins``)
    when the balance is short — never clamps — and the other ``LedgerError``
    codes of ``credit``; nothing is written then.
    """
    _require_atomic()
    leg = Leg(user, -_check_amount(amount), other)
    return _post([leg], _check_reason(reason), transfer_id=None, game=game, table=table,
                 item_code=item_code, note=note)[0]


def transfer(
    legs: Iterable[Leg | tuple[UserRef, int] | tuple[UserRef, int, UserRef | None]],
    reason: str, *, game: Game | int | None = None, table: Table | int | None = None,
    item_code: str = "", note: str = "",
) -> list[CoinEntry]:
    """Move coins between players in one movement; return its entries.

    ``legs``: ``Leg(user, amount, other=None)`` or plain tuples, signed
    (negative: pays), summing to zero (RULES.md §9: a wager creates and loses
    no coins). A user may appear in several legs (e.g. one per payer a winner
    receives from); each row's ``balance_after`` follows the legs' order.
    Zero legs write no row, so a split that gives someone nothing needs no
    filtering. All rows share a new ``transfer_id``; with exactly two rows each
    records the other as its counter-party unless ``other`` is given. Inside
    ``transaction.atomic()`` only. Raises ``LedgerError("unbalanced")`` if the
    legs do not sum to zero, ``NotEnoughCoins`` if a payer is short (no
    clamping: size payments with ``lock_balances`` first), and the codes of
    ``credit``; nothing is written then. No nonzero leg: returns ``[]``.
    """
    _require_atomic()
    given = [Leg(*leg) for leg in legs]
    for leg in given:
        _check_amount(leg.amount, allow_zero=True, signed=True)
    reason = _check_reason(reason)
    total = sum(leg.amount for leg in given)
    if total != 0:
        raise LedgerError("unbalanced", f"a transfer must sum to zero, not {total}", total=total)
    moving = [leg for leg in given if leg.amount]
    if not moving:
        return []
    if len(moving) == 2:
        a, b = moving
        moving = [a._replace(other=a.other if a.other is not None else b.user),
                  b._replace(other=b.other if b.other is not None else a.user)]
    return _post(moving, reason, transfer_id=uuid.uuid4(), game=game, table=table,
                 item_code=item_code, note=note)


# --- audit (read only) -----------------------------------------------------------


@dataclass
class Audit:
    """The result of ``audit()``: counts and one line per difference found."""

    accounts: int = 0
    entries: int = 0
    transfers: int = 0
    differences: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the ledger holds (no difference)."""
        return not self.differences

    def summary(self) -> str:
        """One line, e.g. ``ledger OK: 12 accounts, 40 entries, 3 transfers``."""
        counts = f"{self.accounts} accounts, {self.entries} entries, {self.transfers} transfers"
        if self.ok:
            return f"ledger OK: {counts}"
        return f"ledger FAILED: {len(self.differences)} differences in {counts}"


def audit() -> Audit:
    """Prove the ledger for the whole database (``manage.py check_ledger``).

    Checks: every profile's ``coins`` equals the sum of its entries and its
    last entry's ``balance_after`` (0 with no entries); every entry's
    ``balance_after`` is the running sum of that user's entries in id order;
    every entry's user has a profile; every multi-party transfer sums to zero;
    every profile's ``coins_held`` equals what its running games still hold
    (``Hold.held``), and no ended game holds anything (RULES.md §12 "Held
    stake"). Read only; a handful of queries whatever the size.
    """

    of_running = Hold.objects.filter(user_id=OuterRef("user_id"), game__status=Game.PLAYING)
    result = Audit(entries=CoinEntry.objects.count())
    of_user = CoinEntry.objects.filter(user_id=OuterRef("user_id"))
    profiles = Profile.objects.annotate(
        total=Coalesce(
            Subquery(of_user.order_by().values("user_id").annotate(s=Sum("amount")).values("s")),
            0,
        ),
        last=Subquery(of_user.order_by("-id").values("balance_after")[:1]),
        holds=Coalesce(
            Subquery(of_running.order_by().values("user_id").annotate(s=Sum("held"))
                     .values("s")),
            0,
        ),
    ).select_related("user").order_by("user_id")
    for p in profiles:
        result.accounts += 1
        last = 0 if p.last is None else p.last
        if not p.coins == p.total == last:
            result.differences.append(
                f"{p.user.username} (user {p.user_id}): coins {p.coins}, "
                f"entries sum {p.total}, last balance_after {last}"
            )
        if p.coins_held != p.holds:
            result.differences.append(
                f"{p.user.username} (user {p.user_id}): coins_held {p.coins_held}, "
                f"running games hold {p.holds}"
            )
    stale = (Hold.objects.filter(held__gt=0).exclude(game__status=Game.PLAYING)
             .values_list("game_id", "user_id", "held"))
    for game_id, user_id, held in stale:
        result.differences.append(
            f"game {game_id} is over but still holds {held} coins of user {user_id}")
    broken = (
        CoinEntry.objects.annotate(
            running=Window(Sum("amount"), partition_by=F("user_id"), order_by=F("id").asc())
        )
        .exclude(balance_after=F("running"))
        .values_list("id", "user_id", "balance_after", "running")
    )
    for entry_id, user_id, after, running in broken:
        result.differences.append(
            f"entry {entry_id} (user {user_id}): balance_after {after}, running sum {running}"
        )
    orphans = CoinEntry.objects.filter(user__profile__isnull=True).values_list("user_id", flat=True)
    for user_id in sorted(set(orphans)):
        result.differences.append(f"user {user_id} has entries but no profile")
    transfers = (
        CoinEntry.objects.filter(transfer_id__isnull=False)
        .order_by()
        .values("transfer_id")
        .annotate(total=Sum("amount"))
    )
    for t in transfers:
        result.transfers += 1
        if t["total"] != 0:
            result.differences.append(f"transfer {t['transfer_id']} sums to {t['total']}, not 0")
    return result
