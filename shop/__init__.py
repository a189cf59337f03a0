"""Coins ledger, catalogue, inventory, items and gems (RULES.md §9). Shell for now."""
