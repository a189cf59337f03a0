"""Contests' models, one module per contest kind (Django loads this package
as ``contests.models``): each module's models are imported here."""

from contests.models.arena import Arena, ArenaEntry, ArenaSeating

__all__ = ["Arena", "ArenaEntry", "ArenaSeating"]
