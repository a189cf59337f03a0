"""Coins and what they buy (RULES.md §8–§9, §12): the ledger (``shop.ledger``,
the only writer of coins), check-in and relief, the catalogue and purchases,
inventories, every item and gem in play, replays, wager tables and their held
stakes. ``shop`` may import ``games`` and ``accounts``; neither imports it."""
