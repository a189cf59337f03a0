"""The notification centre's write side and its words (消息; RULES.md §12).

Apps register what they tell people (:func:`register_kinds`, in their
``AppConfig.ready``, like reason codes) and :func:`post` one inside the
transaction of its cause: the row commits or rolls back with it, and the live
``notification`` frame (docs/protocol.md "The per-user channel") goes only
after the commit. Text is rendered when read, in the reader's language
(:func:`render`), so a row stores a kind and its parameters, never words.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone, translation
from django.utils.functional import Promise

from accounts.models import Notification
from games import events

#: days a notification is kept (the housekeeping purge deletes older ones)
KEEP_DAYS = 90

#: kind -> its message, a lazy translation with ``%(name)s`` placeholders
KINDS: dict[str, Promise | str] = {}


def register_kinds(kinds: dict[str, Promise | str]) -> None:
    """Add notification kinds (``{kind: gettext_lazy("… %(param)s …")}``).

    :raises ValueError: a kind registered twice with another message.
    """
    for kind, message in kinds.items():
        if kind in KINDS and KINDS[kind] is not message:
            raise ValueError(f"notification kind {kind!r} registered twice")
        KINDS[kind] = message


def render(kind: str, params: dict[str, Any]) -> str:
    """The message of ``kind`` with ``params``, in the active language; an
    unknown kind or a missing parameter renders as the kind itself."""
    message = KINDS.get(kind)
    if message is None:
        return kind
    try:
        return str(message) % params
    except (KeyError, TypeError, ValueError):
        return str(message)


def unread_count(user_id: int) -> int:
    """How many of ``user_id``'s notifications are unread (one indexed count)."""
    return Notification.objects.filter(user_id=user_id, read_at__isnull=True).count()


def as_frame(n: Notification) -> dict[str, Any]:
    """The JSON shape of one notification, rendered in both languages:
    ``{"id", "kind", "params", "link", "created_at" (ISO), "read",
    "text": {"zh-hans": str, "en": str}}``."""
    text = {}
    for lang in ("zh-hans", "en"):
        with translation.override(lang):
            text[lang] = render(n.kind, n.params)
    return {"id": n.pk, "kind": n.kind, "params": n.params, "link": n.link,
            "created_at": n.created_at.isoformat(), "read": n.read_at is not None,
            "text": text}


def post(user_id: int, kind: str, params: dict[str, Any] | None = None,
         link: str = "") -> Notification:
    """Keep a notification for ``user_id`` in the current transaction and,
    after it commits, send them ``{"type": "notification", "notification":
    as_frame(n), "unread": n}`` on every open page.

    :param kind: a registered kind (:func:`register_kinds`).
    :param params: JSON-serialisable values for the message's placeholders
        (names, amounts, table names).
    :param link: a site path to what it is about, or "".
    :raises ValueError: an unregistered kind (a programming error).
    """
    if kind not in KINDS:
        raise ValueError(f"unregistered notification kind {kind!r}")
    n = Notification.objects.create(user_id=user_id, kind=kind, params=params or {},
                                    link=link)
    transaction.on_commit(lambda: _send(n))
    return n


def _send(n: Notification) -> None:
    events.send_user(n.user_id, {"type": "notification", "notification": as_frame(n),
                                 "unread": unread_count(n.user_id)})


def purge(now: Any = None) -> int:
    """Delete notifications older than :data:`KEEP_DAYS`; returns how many."""
    cutoff = (now or timezone.now()) - timedelta(days=KEEP_DAYS)
    deleted, _ = Notification.objects.filter(created_at__lt=cutoff).delete()
    return deleted
