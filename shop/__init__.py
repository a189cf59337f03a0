"""Coins ledger (``shop.ledger``), and later the catalogue, inventory, items and
gems (RULES.md §9). ``shop`` may import ``accounts``; never the reverse."""
