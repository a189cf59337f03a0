"""The notification centre (消息; RULES.md §12): its writes, its pages of
rows and its words.

Apps register what they tell people (:func:`register_kinds`, in their
``AppConfig.ready``, like reason codes) and :func:`post` one inside the
transaction of its cause: the row commits or rolls back with it, and the live
``notification`` frame (docs/protocol.md "The per-user channel") goes only
after the commit. Text is rendered when read, in the reader's language
(:func:`render`), so a row stores a kind and its parameters, never words.
The reader pages through them (:func:`page`, 50 a page, newest first) and
marks them read (:func:`mark_read`); :func:`purge` (the periodic job
``purge-notifications``) forgets them after :data:`KEEP_DAYS`. A kind that
asks for something by a deadline is a :class:`Prompt`: its rows and frames
carry a button to their link until then (:func:`action`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone, translation
from django.utils.dateparse import parse_datetime
from django.utils.functional import Promise
from django.utils.translation import gettext as _

from accounts.models import Notification
from games import events
from games.names import display_name
from yuanzi_site.refusals import Refused

#: days a notification is kept (the housekeeping purge deletes older ones)
KEEP_DAYS = 90

#: rows on a page of the notification centre (and most ids one read request names)
PAGE_SIZE = 50

#: a message built from its params in the active language (where a fixed
#: sentence with placeholders would read badly, e.g. "wager 0 coins")
Render = Callable[[dict[str, Any]], str]

#: kind -> its message: a lazy translation with ``%(name)s`` placeholders, or a Render
KINDS: dict[str, Promise | str | Render] = {}


@dataclass(frozen=True)
class Prompt:
    """A kind that asks for something by a deadline (an arena's "your table
    is ready, confirm within 30 seconds", RULES.md §12 "Arenas"), registered
    like any kind's message: ``message`` (a lazy translation with
    placeholders), ``button`` (the words of a button to the row's link) and
    ``until``, the params key of the deadline (ISO time). Until then its
    rows on the page and its frames carry the button (:func:`action`); its
    toast stays until then (docs/protocol.md "The per-user channel")."""

    message: Promise | str
    button: Promise | str
    until: str = "until"

    def __call__(self, params: dict[str, Any]) -> str:
        try:
            return str(self.message) % params
        except (KeyError, TypeError, ValueError):
            return str(self.message)


def register_kinds(kinds: Mapping[str, Promise | str | Render]) -> None:
    """Add notification kinds (``{kind: gettext_lazy("… %(param)s …")}``, or
    a function of the params for a message with optional parts).

    :raises ValueError: a kind registered twice with another message.
    """
    for kind, message in kinds.items():
        if kind in KINDS and KINDS[kind] is not message:
            raise ValueError(f"notification kind {kind!r} registered twice")
        KINDS[kind] = message


def render(kind: str, params: dict[str, Any]) -> str:
    """The message of ``kind`` with ``params``, in the active language; an
    unknown kind or a missing parameter renders as the kind itself. A
    ``table`` parameter is the stored name: a site-given bilingual one reads
    in this language only (``games.names.display_name``)."""
    message = KINDS.get(kind)
    if message is None:
        return kind
    if isinstance(params.get("table"), str):
        params = {**params, "table": display_name(params["table"])}
    if not isinstance(message, Promise | str):
        return message(params)
    try:
        return str(message) % params
    except (KeyError, TypeError, ValueError):
        return str(message)


def _prompt(n: Notification, now: Any = None) -> tuple[Prompt, str] | None:
    """``n``'s :class:`Prompt` and its deadline (ISO) while that is ahead of
    ``now``; ``None`` for another kind, no link, or a deadline missing,
    malformed or past."""
    kind = KINDS.get(n.kind)
    if not isinstance(kind, Prompt) or not n.link:
        return None
    until = n.params.get(kind.until)
    deadline = parse_datetime(until) if isinstance(until, str) else None
    if deadline is None or timezone.is_naive(deadline) or deadline <= (now or timezone.now()):
        return None
    return kind, deadline.isoformat()


def action(n: Notification, now: Any = None) -> dict[str, str] | None:
    """The button a :class:`Prompt` kind's row carries while its deadline is
    ahead of ``now`` (default now): ``{"text": its words in the active
    language, "until": ISO time}``; ``None`` for any other kind, a row with
    no link, or a deadline missing, malformed or past."""
    prompt = _prompt(n, now)
    return None if prompt is None else {"text": str(prompt[0].button), "until": prompt[1]}


def get(user_id: int, pk: int) -> Notification | None:
    """``user_id``'s notification ``pk``, or ``None`` (another's, gone, or
    no id a row can have: no query)."""
    if not 0 < pk < 2**63:
        return None
    return Notification.objects.filter(user_id=user_id, pk=pk).first()


def unread_count(user_id: int) -> int:
    """How many of ``user_id``'s notifications are unread (one indexed count)."""
    return Notification.objects.filter(user_id=user_id, read_at__isnull=True).count()


def as_frame(n: Notification) -> dict[str, Any]:
    """The JSON shape of one notification, rendered in both languages:
    ``{"id", "kind", "params", "link", "created_at" (ISO), "read",
    "text": {"zh-hans": str, "en": str}}`` and, for a :class:`Prompt` whose
    deadline is ahead, ``"action": {"text": {"zh-hans", "en"}, "until": ISO}``
    (its button to ``link``) (the ``notification`` frame's and
    ``GET /api/notifications``' rows, docs/api.md)."""
    text, button = {}, {}
    prompt = _prompt(n)
    for lang in ("zh-hans", "en"):
        with translation.override(lang):
            text[lang] = render(n.kind, n.params)
            if prompt is not None:
                button[lang] = str(prompt[0].button)
    frame = {"id": n.pk, "kind": n.kind, "params": n.params, "link": n.link,
             "created_at": n.created_at.isoformat(), "read": n.read_at is not None,
             "text": text}
    if prompt is not None:
        frame["action"] = {"text": button, "until": prompt[1]}
    return frame


def post(user_id: int, kind: str, params: dict[str, Any] | None = None,
         link: str = "", *, quiet: bool = False,
         supersedes: dict[str, Any] | None = None) -> Notification:
    """Keep a notification for ``user_id`` in the current transaction and,
    after it commits, send them ``{"type": "notification", "notification":
    as_frame(n), "unread": n, "quiet": bool}`` on every open page.

    :param kind: a registered kind (:func:`register_kinds`).
    :param params: JSON-serialisable values for the message's placeholders
        (names, amounts, table names).
    :param link: a site path to what it is about, or "".
    :param quiet: the cause also sends its own ``notice`` (a toast of the same
        news): the page then only bumps its badge, no second toast.
    :param supersedes: this one replaces the user's earlier notifications of
        ``kind`` whose ``params`` hold these values (a prompt that only the
        latest counts for, as an arena's "your table is ready": a tester's
        inbox held 36 of one arena); they are deleted.
    :raises ValueError: an unregistered kind (a programming error).
    """
    if kind not in KINDS:
        raise ValueError(f"unregistered notification kind {kind!r}")
    if supersedes:
        Notification.objects.filter(user_id=user_id, kind=kind, **{
            f"params__{key}": value for key, value in supersedes.items()}).delete()
    n = Notification.objects.create(user_id=user_id, kind=kind, params=params or {},
                                    link=link)
    transaction.on_commit(lambda: _send(n, quiet))
    return n


def _send(n: Notification, quiet: bool) -> None:
    events.send_user(n.user_id, {"type": "notification", "notification": as_frame(n),
                                 "unread": unread_count(n.user_id), "quiet": quiet})


@dataclass(frozen=True)
class Page:
    """One page of a person's notifications, newest first: ``rows`` (at most
    :data:`PAGE_SIZE` :class:`Notification`), its ``number`` (from 1) and
    whether another follows (``has_next``)."""

    rows: list[Notification]
    number: int
    has_next: bool


def page_number(value: object) -> int:
    """A ``?page=`` value as a page number: a whole number 1 – 100,000, else 1."""
    text = value if isinstance(value, str) else ""
    return int(text) if text.isascii() and text.isdigit() and 1 <= int(text) <= 100_000 else 1


def page(user_id: int, number: int = 1, *, unread_only: bool = False) -> Page:
    """Page ``number`` of ``user_id``'s notifications, newest first (one
    query, on the index ``accounts_notice_newest``, whatever the page)."""
    rows = Notification.objects.filter(user_id=user_id)
    if unread_only:
        rows = rows.filter(read_at__isnull=True)
    start = (number - 1) * PAGE_SIZE
    got = list(rows.order_by("-created_at", "-id")[start:start + PAGE_SIZE + 1])
    return Page(got[:PAGE_SIZE], number, len(got) > PAGE_SIZE)


def _ids(ids: object) -> list[int]:
    if not isinstance(ids, list) or not 1 <= len(ids) <= PAGE_SIZE or not all(
            isinstance(i, int) and not isinstance(i, bool) and 0 < i < 2**63 for i in ids):
        raise Refused("bad_notifications", _(
            "Name the notifications to mark read: 1 to %(limit)s ids, or all of them.")
            % {"limit": PAGE_SIZE}, {"limit": PAGE_SIZE})
    return ids


def mark_read(user_id: int, ids: object = None, *, everything: bool = False) -> int:
    """Mark ``user_id``'s notifications ``ids`` read (a list of 1 –
    :data:`PAGE_SIZE` ids; ids of others' or already read ones change
    nothing), or all of theirs with ``everything``. Returns their unread count
    afterwards, which every page of theirs is sent too (``{"type": "unread",
    "unread": n}``, docs/protocol.md), so all their badges agree.

    :raises Refused: ``bad_notifications`` (``ids`` is not such a list and
        not ``everything``); nothing changed.
    """
    rows = Notification.objects.filter(user_id=user_id, read_at__isnull=True)
    if not everything:
        rows = rows.filter(pk__in=_ids(ids))
    rows.update(read_at=timezone.now())
    left = unread_count(user_id)
    events.send_user(user_id, {"type": "unread", "unread": left})
    return left


def mark_read_link(user_id: int, link: str) -> None:
    """The page ``link`` (a site path) has been opened by ``user_id``: their
    unread notifications pointing at it are read now, as Lichess marks a
    notification read once you follow it; their pages get the new unread
    count (``{"type": "unread"}``) when it changed."""
    if Notification.objects.filter(user_id=user_id, read_at__isnull=True, link=link).update(
            read_at=timezone.now()):
        events.send_user(user_id, {"type": "unread", "unread": unread_count(user_id)})


def mark_read_about(user_id: int, kind: str, link: str, **params: Any) -> None:
    """What ``user_id``'s unread notifications of ``kind`` at ``link`` told
    them has been answered (a friend request accepted or declined, RULES.md
    §12 "Friends and blocks"): those whose ``params`` hold every value of
    ``params`` are read now; others at the same link stay unread. Their
    pages get the new unread count when it changed, as :func:`mark_read_link`."""
    rows = Notification.objects.filter(user_id=user_id, read_at__isnull=True, kind=kind,
                                       link=link)
    if rows.filter(**{f"params__{key}": value for key, value in params.items()}).update(
            read_at=timezone.now()):
        events.send_user(user_id, {"type": "unread", "unread": unread_count(user_id)})


def purge(now: Any = None) -> int:
    """Delete notifications older than :data:`KEEP_DAYS` (read or not) before
    ``now`` (a datetime, default now); returns how many. One indexed delete
    (``accounts_notice_age``), run hourly by the periodic job
    ``purge-notifications`` (``yuanzi_site.jobs``)."""
    cutoff = (now or timezone.now()) - timedelta(days=KEEP_DAYS)
    deleted, _by_model = Notification.objects.filter(created_at__lt=cutoff).delete()
    return deleted
