"""The shop's table-socket messages (docs/protocol.md "Items"), served by
``shop.plugin``: ``use_item`` (sign, tablecloth, card counter,
recorder at this table) and ``reset_theme`` (the owner's free default cloth).
The reply is ``{"type": "item_used", "result": {...}}``; refusals come back as
``error`` frames with the reason code. Gems and arming the 定时器 are the
inventory's (``POST /shop/use/``): here they are refused ``inventory_only``,
whoever sends them, and nothing changes.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games.plugins import SocketContext, SocketMessage
from shop import items
from yuanzi_site.refusals import Refused


def _use(ctx: SocketContext, msg: dict[str, Any]) -> dict[str, Any]:
    if msg.get("item") in items.INVENTORY_ONLY:
        raise Refused("inventory_only",
                      _("Use this item from your inventory on the shop page, not at a table."))
    result = items.use(ctx.user, msg.get("slot"), msg.get("item"), msg.get("key"),
                       table_id=ctx.table_id, game_id=msg.get("game"), name=msg.get("name"),
                       theme=msg.get("theme"))
    return {"type": "item_used", "result": result, "ref": msg.get("ref")}


def _reset_theme(ctx: SocketContext, msg: dict[str, Any]) -> None:
    items.reset_theme(ctx.user, ctx.table_id)


#: the shop's table-socket messages, served by ``shop.plugin.ShopPlugin``
MESSAGES: dict[str, SocketMessage] = {
    "use_item": SocketMessage(_use),
    "reset_theme": SocketMessage(_reset_theme),
}
