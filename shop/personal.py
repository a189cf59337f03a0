"""A person's shop rows for their own data download (``GamePlugin.personal_data``,
``accounts.personal``): their ledger entries, inventory and replay library.
Read only; never another person's coins (a ledger entry names the other party
of a transfer by name only, as the result page does)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from shop.models import CoinEntry, InventorySlot, Replay


def shop_data(user: User) -> dict[str, Any]:
    """``{"ledger": [{"amount", "balance_after", "reason", "game", "table",
    "item", "other", "created_at"}], "inventory": [{"slot", "item", "count",
    "armed"}], "replays": [{"game", "share_path", "created_at"}]}``, oldest
    first; amounts in coins, times ISO 8601. Three queries (the ledger streamed)."""
    ledger = [
        {"amount": amount, "balance_after": after, "reason": reason, "game": game,
         "table": table, "item": item, "other": other, "created_at": at.isoformat()}
        for amount, after, reason, game, table, item, other, at in CoinEntry.objects.filter(
            user=user).order_by("created_at", "pk").values_list(
            "amount", "balance_after", "reason", "game_id", "table_id", "item_code",
            "other__username", "created_at").iterator(chunk_size=500)]
    inventory = [
        {"slot": slot, "item": code, "count": count, "armed": armed}
        for slot, code, count, armed in InventorySlot.objects.filter(
            user=user, item__isnull=False).order_by("slot").values_list(
            "slot", "item__code", "count", "armed")]
    replays = [
        {"game": game, "share_path": f"/replays/{token}/", "created_at": at.isoformat()}
        for game, token, at in Replay.objects.filter(user=user).order_by("created_at", "pk")
        .values_list("game_id", "token", "created_at")]
    return {"ledger": ledger, "inventory": inventory, "replays": replays}
