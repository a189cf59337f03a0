"""The social hall (issue 18): friends and blocks (RULES.md §12)."""
