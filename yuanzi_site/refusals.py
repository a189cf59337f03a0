"""The one error the site raises for a refused request, and the registry of
every reason code a client can be sent (docs/protocol.md lists each; its test
reads :data:`REASONS`, so a code added anywhere is a code documented). Site-wide:
every app registers its codes here in its ``ready()`` and raises ``Refused``
without reaching into another app for it.

Errors: :class:`Refused` (a ``ValueError``) with a stable ``reason`` code and a
translated message; nothing has changed when it is raised. :func:`refused_json`
is its answer to an API request, the same shape from every app (docs/api.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import JsonResponse

#: every reason code → what it means (for docs and tests; users get the message)
REASONS: dict[str, str] = {}


def register_reasons(codes: dict[str, str]) -> None:
    """Add reason codes (``{code: meaning}``); apps call this in ``ready()``.

    :raises ValueError: for a code already registered with another meaning.
    """
    for code, meaning in codes.items():
        if REASONS.get(code, meaning) != meaning:
            raise ValueError(f"reason code {code!r} is already registered")
        REASONS[code] = meaning


class Refused(ValueError):
    """A request the rules or the table refuse; ``reason`` is a registered code,
    ``params`` the figures its message names (e.g. ``{"needed": 4000}``; sent
    in the ``error`` frame or ``notice`` when not empty).

    :raises ValueError: (at construction) for an unregistered code, so a new
        code cannot reach a client undocumented.
    """

    def __init__(self, reason: str, message: str | Callable[[], str],
                 params: dict[str, Any] | None = None) -> None:
        if reason not in REASONS:
            raise ValueError(f"unregistered reason code {reason!r}")
        super().__init__(message if isinstance(message, str) else message())
        self.reason = reason
        self.params = dict(params or {})
        #: the message as given: a function that says it in the active language
        #: lets a notice of it reach each reader in theirs (``games.events.notify``)
        self.words = message


def refused_json(refusal: Refused, status: int = 400) -> JsonResponse:
    """The JSON answer of a refused API request (docs/api.md):
    ``{"ok": false, "reason", "message", "params"}`` with ``status`` (400 by
    default); ``params`` as in :class:`Refused` (``{}`` when none), e.g. the
    ``table_id`` of ``seated_elsewhere``, which pages link back to."""
    return JsonResponse({"ok": False, "reason": refusal.reason, "message": str(refusal),
                         "params": refusal.params}, status=status)
