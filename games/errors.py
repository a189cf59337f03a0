"""The one error the write side raises for a refused request.

Errors: :class:`Refused` (a ``ValueError``) with a stable ``reason`` code and a
translated message; nothing has changed when it is raised.
"""

from __future__ import annotations


class Refused(ValueError):
    """A request the rules or the table refuse; ``reason`` is a stable code."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
