"""The shop's reason codes (yuanzi_site.refusals.REASONS; docs/protocol.md lists each)."""

from shop import wagers
from yuanzi_site.refusals import register_reasons

CODES = {
    "already_checked_in": "today's check-in (每日签到) was already claimed",
    "relief_too_rich": "relief (救济金) is only for players under 200 coins",
    "relief_too_soon": "relief was claimed in the last 24 hours",
    "no_item": "an unknown item, or one not for sale (gems)",
    "bad_quantity": "a quantity that is not a whole number 1–99",
    "price_changed": "the unit price shown is no longer the item's price",
    "inventory_full": "the items do not all fit in the inventory (refused whole)",
    "not_enough_coins": "the coins are short",
    "bad_key": "an item use without a key of 1–64 characters, a purchase key not of "
               "1–64 characters, or a key another kind of request already took",
    "bad_slot": "a slot that is not 0–23",
    "wrong_item": "the slot is empty or holds another item than the one named",
    "needs_table": "a table item (sign, tablecloth, card counter) used away from a table",
    "needs_game": "a recorder used without a finished game",
    "gem_capped": "rating points at or over the gem cap: the gem is kept",
    "already_active": "the card counter is already on for this half",
    "name_protected": "the table's name is protected by another player's sign",
    "bad_theme": "a tablecloth theme that does not exist",
    "already_saved": "this game is already in your replay library",
    "inventory_only": "a gem or the timer's arming sent on the table socket: "
                      "they are used from the inventory (POST /shop/use/)",
}


def register() -> None:
    """Register the codes, the wagers' among them (``ShopConfig.ready``)."""

    register_reasons(CODES)
    register_reasons(wagers.REASONS)
