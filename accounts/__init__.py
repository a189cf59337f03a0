"""Users (django-allauth), profiles, rating points and levels (RULES.md §7)."""
