"""The lifecycle seam (DESIGN.md "The lifecycle seam"): for now only the per-user
``notice`` frame, which issue 12's clock resume needs. (A minimal stand-in: the
seams issue's version — registries, after-commit publish/subscribe — replaces it.)
"""

from __future__ import annotations

from typing import Any

from django.db import transaction


def notify(user_id: int, code: str, message: str, params: dict[str, Any] | None = None) -> None:
    """Tell one user something, on every connection they have open, once the
    current transaction commits: ``{"type": "notice", "code", "message", "params"}``.

    :param code: a stable identifier (e.g. ``clock_resumed``); ``message``: a
        translated sentence for people; ``params``: the values in it.
    """
    from games import broadcast

    frame = {"code": code, "message": message, "params": params or {}}
    transaction.on_commit(lambda: broadcast.notice(user_id, frame))
