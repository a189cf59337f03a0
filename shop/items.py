"""Using items (RULES.md §8–§9, §12): gems, the 定时器's arming, 招牌 /
金字招牌, 桌布, 算牌器 and 录像机.

:func:`use` is the one entry point, for the inventory page (HTTP) and the
table socket alike. A use names its ``slot``, the item ``code`` it expects
there and a client-made ``key``: a resent use with a key already carried out
returns the first result and acts no more (``ItemUse``). Each use runs in one
transaction taking locks in the site's order — Game → Table → Profile →
inventory rows — checks everything, and only then consumes the item and acts;
a refusal keeps the item and changes nothing.

Errors: :class:`yuanzi_site.refusals.Refused` with a registered reason (``bad_key``,
``bad_slot``, ``wrong_item``, ``needs_table``, ``needs_game``, ``gem_capped``,
``not_seated``, ``game_over``, ``already_active``, ``name_protected``,
``bad_name``, ``not_owner``, ``bad_theme``, ``game_running``,
``already_saved``, ``no_table``, ``no_game``); the table socket
(``shop.handlers``) also refuses ``inventory_only`` (gems and the 定时器's
arming: :data:`INVENTORY_ONLY`).
"""

from __future__ import annotations

import secrets
from collections import Counter
from datetime import datetime, timedelta
from typing import Any, Protocol

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import GemCap, Profile, RatingEntry
from games import access, events, queries, tables, wire
from games.engine.cards import DISTINCT_CARDS, SHOE
from games.models import Game, GameSeat, Seat, Table
from games.roster import players_of
from games.seatview import seat_of
from games.tables import clean_name
from shop import inventory, itemstate
from shop.models import CounterUse, InventorySlot, ItemUse, Replay, TableDecor
from yuanzi_site.refusals import Refused

#: 桌布 themes (drawn in static/shop/shop.css); "default" is the free reset
THEMES = ("default", "jade", "crimson", "ink", "bamboo", "night")
TABLE_ITEMS = ("sign", "gold_sign", "tablecloth", "card_counter")
#: used only from the inventory (``POST /shop/use/``), never on the table socket
#: (docs/protocol.md "Items": "Only there: gems … and arming the 定时器")
INVENTORY_ONLY = ("gem_shard", "gem_standard", "gem_perfect", "timer")


def _key(value: Any) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= 64:
        raise Refused("bad_key", _("A use needs a key of 1 to 64 characters."))
    return value


def use(user: User, slot: Any, code: Any, key: Any, *, table_id: int | None = None,
        game_id: Any = None, name: Any = None, theme: Any = None) -> dict[str, Any]:
    """Use the item ``code`` in ``user``'s inventory slot ``slot``.

    :param table_id: the table it is used at (sign, tablecloth, card counter;
        a recorder without ``game_id`` saves the table's last game).
    :param game_id: the finished game a recorder saves.
    :param name: a sign's new table name; ``theme``: a tablecloth's theme.
    :returns: ``{"item": code, "slot": n, ...}`` with what it did (a gem's
        ``points``, an armed timer's ``armed``, a replay's ``token`` …); the
        same result again for a key already carried out.
    :raises Refused: see the module docstring.
    """
    key = _key(key)
    done = _carried_out(user, key)
    if done is not None:
        return done
    inventory.slot_index(slot)
    handler = _HANDLERS.get(code) if isinstance(code, str) else None
    if handler is None:
        raise Refused("wrong_item", _("That slot does not hold that item."))
    try:
        with transaction.atomic():
            # first: it must run before the views this use publishes are built
            transaction.on_commit(lambda: itemstate.forget_user(user.pk))
            result = handler(user, slot, code, table_id=table_id, game_id=game_id, name=name,
                             theme=theme)
            result = {"item": code, "slot": slot, **result}
            ItemUse.objects.create(user=user, key=key, item_code=code, result=result)
    except IntegrityError:  # the same key carried out at the same moment: this one undone
        done = _carried_out(user, key)
        if done is None:
            raise
        return done
    return result


def _carried_out(user: User, key: str) -> dict[str, Any] | None:
    """The stored result of ``user``'s use ``key``, if it was carried out.

    :raises Refused: ``bad_key`` when a purchase took that key (``shop.purchase``).
    """
    result: dict[str, Any] | None = (ItemUse.objects.filter(user=user, key=key)
                                     .values_list("result", flat=True).first())
    if isinstance(result, dict) and "bought" in result:
        raise Refused("bad_key", _("That key was already used for something else."))
    return result


# --- gems ------------------------------------------------------------------------------


def gem_cap() -> int | None:
    """The gem cap in force (``accounts.models.GemCap.cap``), ``None``: no cap."""
    row = GemCap.objects.filter(pk=1).first()
    return row.cap if row else None


def _gem(user: User, slot: Any, code: str, **_kw: Any) -> dict[str, Any]:
    slots = inventory.locked(user.pk)
    s = inventory.expect(slots, slot, code)
    cap = gem_cap()
    points = Profile.objects.filter(user=user).values_list("rating_points", flat=True).get()
    if cap is not None and points >= cap:
        raise Refused("gem_capped",
                      _("Gems work only under %(cap)s rating points; you have %(points)s.")
                      % {"cap": cap, "points": points})
    assert s.item is not None  # expect() checked the slot holds the gem
    add = s.item.gem_points
    inventory.take_one(s)
    Profile.objects.filter(user=user).update(rating_points=F("rating_points") + add)
    RatingEntry.objects.create(user=user, delta=add, reason=RatingEntry.GEM)
    events.me_changed([user.pk])  # the level in the header of every page
    return {"points": add}


# --- 定时器 ------------------------------------------------------------------------------


def _timer(user: User, slot: Any, code: str, **_kw: Any) -> dict[str, Any]:
    """Arm the timer in ``slot`` (one per user: an arming elsewhere moves here)."""
    slots = inventory.locked(user.pk)
    s = inventory.expect(slots, slot, code)
    if not s.armed:
        InventorySlot.objects.filter(user=user, armed=True).update(armed=False)
        InventorySlot.objects.filter(pk=s.pk).update(armed=True)
    return {"armed": True}


def disarm_timer(user: User) -> None:
    """Disarm ``user``'s armed timer, if any (it is kept, unused)."""
    with transaction.atomic():
        inventory.locked(user.pk)
        InventorySlot.objects.filter(user=user, armed=True).update(armed=False)
        transaction.on_commit(lambda: itemstate.forget_user(user.pk))


# --- table items ---------------------------------------------------------------------


def _need_table(table_id: int | None, code: str) -> Table:
    if table_id is None:
        raise Refused("needs_table", _("Use this item at a table."))
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None or table.closed:
        raise Refused("no_table", _("This table does not exist or is closed."))
    return table


def _decor(table: Table) -> TableDecor:
    return TableDecor.objects.get_or_create(table=table)[0]


def _sign(user: User, slot: Any, code: str, *, table_id: int | None = None, name: Any = None,
          **_kw: Any) -> dict[str, Any]:
    table = _need_table(table_id, code)
    moderator = access.is_moderator(user)
    seated = Seat.objects.filter(table=table, user=user).exists()
    if not (moderator or seated or table.owner_id == user.pk):
        raise Refused("not_seated", _("Sit at this table (or own it) to rename it."))
    decor = _decor(table)
    now = timezone.now()
    if not moderator:
        _refuse_if_protected(decor, user, now)
    text = clean_name(name)
    slots = inventory.locked(user.pk)
    inventory.take_one(inventory.expect(slots, slot, code))
    # the one writer of table rows; a moderator's rename clears the protection there
    tables.rename(table.pk, user, text, override=moderator)
    if moderator:
        return {"name": text, "protected_until": None}
    decor.sign_by, decor.sign_item = user, code
    decor.sign_until = now + timedelta(hours=settings.SHOP_SIGN_HOURS[code])
    decor.save(update_fields=["sign_by", "sign_item", "sign_until"])
    return {"name": text, "protected_until": decor.sign_until.isoformat()}


def _refuse_if_protected(decor: TableDecor, user: User, now: datetime) -> None:
    """Refuse ``name_protected`` while another player's sign protects the name."""
    if decor.sign_until and decor.sign_until > now and decor.sign_by_id != user.pk:
        raise Refused("name_protected",
                      _("The name is protected until %(when)s.")
                      % {"when": timezone.localtime(decor.sign_until).strftime("%m-%d %H:%M")})


def rename_policy(table: Table, user: User, name: str, override: bool) -> None:
    """The rename check (``shop.plugin``, ``games.tables.rename``; RULES.md §12 招牌):
    a moderator's rename (``override``) goes through and clears any sign
    protection of the table's name, in the rename's transaction; anyone
    else's is refused while another player's sign protects it.

    :raises Refused: ``name_protected``.
    """
    decor = TableDecor.objects.select_for_update().filter(table=table).first()
    if decor is None:
        return
    if not override:
        _refuse_if_protected(decor, user, timezone.now())
    elif decor.sign_by_id or decor.sign_until:
        decor.sign_by, decor.sign_item, decor.sign_until = None, "", None
        decor.save(update_fields=["sign_by", "sign_item", "sign_until"])


def _tablecloth(user: User, slot: Any, code: str, *, table_id: int | None = None,
                theme: Any = None, **_kw: Any) -> dict[str, Any]:
    table = _need_table(table_id, code)
    if table.owner_id != user.pk:
        raise Refused("not_owner", _("Only the table's owner may lay a tablecloth."))
    if theme not in THEMES or theme == "default":
        raise Refused("bad_theme", _("There is no such tablecloth."))
    slots = inventory.locked(user.pk)
    inventory.take_one(inventory.expect(slots, slot, code))
    decor = _decor(table)
    decor.theme = theme
    decor.save(update_fields=["theme"])
    events.publish(events.TableChanged(table.pk))
    return {"theme": theme}


def reset_theme(user: User, table_id: int) -> None:
    """Put the table's default cloth back (free; the owner only).

    :raises Refused: ``no_table``, ``not_owner``.
    """
    with transaction.atomic():
        table = _need_table(table_id, "tablecloth")
        if table.owner_id != user.pk:
            raise Refused("not_owner", _("Only the table's owner may change the tablecloth."))
        decor = TableDecor.objects.filter(table=table).first()
        if decor is not None:  # saved, not updated: the cached decor goes (shop.signals)
            decor.theme = "default"
            decor.save(update_fields=["theme"])
        events.publish(events.TableChanged(table.pk))


def _locked_current_game(table_id: int | None) -> Game:
    if table_id is None:
        raise Refused("needs_table", _("Use this item at a table."))
    game_id = queries.current_game_id(table_id)
    game = Game.objects.select_for_update().filter(pk=game_id).first() if game_id else None
    if game is None:
        raise Refused("no_game", _("No game is running at this table."))
    return game


def _card_counter(user: User, slot: Any, code: str, *, table_id: int | None = None,
                  **_kw: Any) -> dict[str, Any]:
    game = _locked_current_game(table_id)
    if seat_of(game, user) is None:
        raise Refused("not_seated", _("You are not playing in this game."))
    if game.status != Game.PLAYING:
        raise Refused("game_over", _("The game is over."))
    half = game.state["half"]
    if CounterUse.objects.filter(game=game, user=user, half=half).exists():
        raise Refused("already_active", _("Your card counter is already on for this half."))
    slots = inventory.locked(user.pk)
    inventory.take_one(inventory.expect(slots, slot, code))
    CounterUse.objects.create(game=game, user=user, half=half)
    events.publish(events.GameChanged(game.pk, game.table_id, game.state, players_of(game),
                                      game.due_at))
    return {"half": half}


def remaining_cards(state: dict[str, Any], seat: int) -> dict[str, int]:
    """What the other three hold between them (RULES.md §12 算牌器): the
    162-card shoe less ``seat``'s hand and every card played this half, as
    ``{card: count}`` over every distinct card (zeros included)."""
    left = Counter(SHOE)
    left.subtract(state["hands"][seat])
    for _seat, cards in state["actions"]:
        left.subtract(cards)
    return {card: left[card] for card in DISTINCT_CARDS}


# --- 录像机 --------------------------------------------------------------------------------


def _recorder(user: User, slot: Any, code: str, *, table_id: int | None = None,
              game_id: Any = None, **_kw: Any) -> dict[str, Any]:
    if game_id is None and table_id is not None:
        game_id = queries.current_game_id(table_id)
    if game_id is None:
        raise Refused("needs_game", _("Use the recorder on a finished game: from its result."))
    game_id = wire.whole(game_id)  # ASCII digits only: "²" or "３" is no game
    game = Game.objects.filter(pk=game_id).first() if game_id is not None else None
    if game is None:
        raise Refused("no_game", _("There is no such game."))
    if not GameSeat.objects.filter(game=game, user=user).exists():
        raise Refused("not_seated", _("Only the game's players may record it."))
    if game.status != Game.OVER or game.record is None:
        raise Refused("game_running", _("The game is still running: record it when it ends."))
    slots = inventory.locked(user.pk)
    s = inventory.expect(slots, slot, code)
    if Replay.objects.filter(user=user, game=game).exists():
        raise Refused("already_saved", _("This game is already in your replays."))
    inventory.take_one(s)
    replay = Replay.objects.create(user=user, game=game, token=secrets.token_urlsafe(32))
    return {"game_id": game.pk, "token": replay.token}


class _Handler(Protocol):
    """An item's use: ``(user, slot, code, **where) -> result``."""

    def __call__(self, user: User, slot: Any, code: str, *, table_id: int | None,
                 game_id: Any, name: Any, theme: Any) -> dict[str, Any]: ...


_HANDLERS: dict[str, _Handler] = {
    "gem_shard": _gem, "gem_standard": _gem, "gem_perfect": _gem,
    "timer": _timer,
    "sign": _sign, "gold_sign": _sign,
    "tablecloth": _tablecloth,
    "card_counter": _card_counter,
    "recorder": _recorder,
}


