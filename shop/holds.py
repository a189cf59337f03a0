"""The held stake of a wager game (RULES.md §12 "Held stake").

When a rated game starts at a wager table, each player's coins up to their
largest possible loss in it, ``min(coins, wager × max(2 × stake, 20))`` with
the game's stake (RULES.md §7), are held until the game ends. A hold is not a
coin movement: the balance stays as it is; ``Profile.coins_held`` (a database
constraint keeps it within ``coins``) is the sum of the player's running
games' :class:`~shop.models.Hold` rows, and ``shop.ledger`` refuses any
movement that would take a balance into its held part — so a purchase, a
moderator's revoke or a 定时器 spends only the rest.

Plugged into the game by ``shop.plugin``:

- :func:`hold_stakes`, at game start, in the transaction that starts the
  game (before the 定时器's warning, which reads it);
- :func:`draw`, called by the wager's settlement (``shop.wagers.settle``) for
  each payer before its ledger transfer: the game's own payment comes out of
  its hold first;
- :func:`release`, at game end (after the wager's settlement drew on it,
  before drops), releasing whatever is still held, whatever ended
  the game (normal, escape, a moderator's close or kick, a suspension), in
  the finisher's transaction;
- view keys (:func:`view_keys`): ``coins_held`` in a player's own view of a running
  game that holds their coins.

A crash or restart is not an ending: the rows stay with the running game and
it resumes with them. Games started before holds existed have none and settle
as before. ``shop.ledger.audit`` (``check_ledger``) proves ``coins_held``
equals the running games' holds.
"""

from __future__ import annotations

from typing import Any

from django.db.models import F
from django.utils import timezone

from accounts.models import Profile
from games import engine, events
from games.models import Game
from games.plugins import GameEnd
from games.roster import seat_rows
from shop import ledger
from shop.models import Hold, TableWager

LOSS_FLOOR = 20  # an escape in the first half costs at least 20 points (RULES.md §7)


def largest_loss(wager: int, stake: int) -> int:
    """The most coins a player can lose in a game of ``stake`` at ``wager``:
    a double clamp (2 × stake) or an escape (max(2 × stake, 20 / 10)), times
    the wager (RULES.md §7, §9, §12).

    >>> largest_loss(10, 1), largest_loss(10, 60)
    (200, 1200)
    """
    return wager * max(2 * stake, LOSS_FLOOR)


def hold_stakes(game: Game) -> None:
    """Game-start hook: hold each player's ``min(coins, largest_loss)`` (their
    coins not already held, which one seat per person makes all of them) for a
    rated game at a wager table; one :class:`Hold` per player, the profiles
    locked in ascending user id (the lock order: the table is locked by the
    caller). Nothing for a practice game or a table without a wager."""
    if game.practice:
        return
    wager = TableWager.objects.filter(table_id=game.table_id).values_list(
        "wager", flat=True).first()
    if not wager:
        return
    seats = seat_rows(game)
    users = [row.user_id for row in seats if row.user_id is not None]
    if len(users) != len(seats):  # a bot: cannot be at a wager table
        return
    most = largest_loss(wager, game.state["stake"])
    holdings = ledger.lock_holdings(users)
    rows = []
    for user_id in sorted(holdings):
        amount = min(holdings[user_id].spendable, most)
        if amount:
            Profile.objects.filter(user_id=user_id).update(coins_held=F("coins_held") + amount)
        rows.append(Hold(game=game, user_id=user_id, amount=amount, held=amount))
    Hold.objects.bulk_create(rows)
    events.me_changed(users)  # every page shows "N 冻结" once the start commits


def draw(game: Game, user_id: int, paid: int) -> int:
    """Draw ``user_id``'s hold in ``game`` down by what they are about to pay
    (``paid`` coins, the game's own settlement or escape payment), so that
    payment may come out of held coins; call it with the profile locked,
    before the ledger movement.

    :returns: the coins drawn from the hold (0 without one).
    """
    hold = Hold.objects.filter(game=game, user_id=user_id, held__gt=0).first()
    if hold is None or paid <= 0:
        return 0
    drawn = min(hold.held, paid)
    Hold.objects.filter(pk=hold.pk).update(held=F("held") - drawn)
    Profile.objects.filter(user_id=user_id).update(coins_held=F("coins_held") - drawn)
    return drawn


def release(end: GameEnd) -> None:
    """Game-end hook: every ending releases what the game still holds (the
    profiles locked in ascending user id), in the finisher's transaction."""
    holds = list(Hold.objects.filter(game=end.game, released_at__isnull=True))
    if not holds:
        return
    ledger.lock_holdings(h.user_id for h in holds)
    now = timezone.now()
    for hold in holds:
        if hold.held:
            Profile.objects.filter(user_id=hold.user_id).update(
                coins_held=F("coins_held") - hold.held)
    Hold.objects.filter(pk__in=[h.pk for h in holds]).update(held=0, released_at=now)
    events.me_changed(h.user_id for h in holds)  # "N 冻结" goes from every page


#: (game_id, seed) → {user_id: held}: a running game's holds change only at its
#: start and its end, so its views read them once per process
_VIEW_CACHE: dict[tuple[int, str], dict[int, int]] = {}


def forget() -> None:
    """Drop the cached holds of every game (tests)."""
    _VIEW_CACHE.clear()


def _held_in(game_id: int, state: dict[str, Any]) -> dict[int, int]:
    key = (game_id, state["seed"])  # the seed: no id reuse across databases
    found = _VIEW_CACHE.get(key)
    if found is None:
        if len(_VIEW_CACHE) > 1000:
            _VIEW_CACHE.clear()
        found = _VIEW_CACHE[key] = dict(
            Hold.objects.filter(game_id=game_id).values_list("user_id", "held"))
    return found


def view_keys(game_id: int, state: dict[str, Any], seat: int | None,
              user_id: int | None) -> dict[str, Any]:
    """``coins_held``: in a player's own view of a running game that holds
    their coins, how many it holds (shown as "N 冻结" to them alone)."""
    if seat is None or user_id is None or state.get("status") != engine.PLAYING:
        return {}
    held = _held_in(game_id, state).get(user_id)
    return {} if held is None else {"coins_held": held}
