"""Shop models will live here (RULES.md §9)."""
