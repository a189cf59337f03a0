"""The social hall: friends and blocks (RULES.md §12)."""
