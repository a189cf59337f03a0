"""After-commit events: what the write side announces once its transaction
commits (DESIGN.md "The plugin seam").

The write modules (``games.tables``, ``games.play``, ``shop.ledger`` …)
:func:`publish` an event; the transports (``games.adapters.broadcast``,
``games.adapters.scheduler``, ``accounts.live``) :func:`subscribe` to its type in their
app's ``ready()``. So nothing that writes imports a transport, and nothing is
announced that was not committed. Each event is a frozen dataclass: its
payload is declared once, here, and a misspelt event fails at import.

The per-user channel (docs/protocol.md "The per-user channel") is three of
them: :class:`Notice` (:func:`notify`), :class:`UserFrame` (:func:`send_user`)
and :class:`MeChanged` (:func:`me_changed`); :class:`CloseSockets` ends every
connection of one person (:func:`close_sockets`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from django.conf import settings
from django.db import transaction
from django.utils import translation

if TYPE_CHECKING:
    from games.fairness import SiteState
    from games.models import Player


@dataclass(frozen=True)
class TableChanged:
    """A table's seats, settings or status changed: its snapshot and lobby row
    are sent again."""

    table_id: int


@dataclass(frozen=True)
class TableClosed:
    """A table closed: every client there is sent ``notice`` (if any), then
    ``table_closed``, and its connection closes; the lobby drops its row."""

    table_id: int
    notice: dict[str, Any] | None = None


@dataclass(frozen=True)
class GameChanged:
    """A game moved: every seat's view and the spectators' view are sent, and
    the next due action (a bot's move, a timeout) is scheduled.

    :ivar state: the game's state as committed (RULES.md §10; the engine's
        plus the site's ``fairness``).
    :ivar players: ``games.roster.players_of(game)``, one per seat.
    :ivar due_at: when the turn times out or the bot moves, or ``None``.
    """

    game_id: int
    table_id: int
    state: SiteState
    players: list[Player]
    due_at: datetime | None


@dataclass(frozen=True)
class ChatPosted:
    """One chat line, as every client shows it (``games.chat.chat_line``)."""

    table_id: int
    line: dict[str, Any]


@dataclass(frozen=True)
class Notice:
    """A ``notice`` frame (``{"type": "notice", "code", "message", "params"}``)
    for every open connection of one person."""

    user_id: int
    notice: dict[str, Any]


@dataclass(frozen=True)
class UserFrame:
    """Any per-user frame (a JSON object with a string ``type``) for every open
    connection of one person."""

    user_id: int
    frame: dict[str, Any]


@dataclass(frozen=True)
class MeChanged:
    """These people's own figures changed (coins, held coins, rating points,
    level): each is sent a fresh ``me`` frame (``accounts.live``)."""

    user_ids: tuple[int, ...]


@dataclass(frozen=True)
class CloseSockets:
    """Send ``notice`` (if any) to every open connection of one person and
    close them (code 4403, docs/protocol.md), e.g. a suspended account's."""

    user_id: int
    notice: dict[str, Any] | None = None


@dataclass(frozen=True)
class PresenceExpired:
    """These people have no live connection left anywhere (``games.presence``):
    they are stood up from waiting tables."""

    user_ids: tuple[int, ...]


@dataclass(frozen=True)
class SiteNoticeChanged:
    """The site-wide notice (维护公告) changed: every open socket is sent the
    one shown now (``{"id", "text", "text_en", "until"}``), or ``None``."""

    notice: dict[str, Any] | None


@dataclass(frozen=True)
class ReviewQueued:
    """A review (复盘, ``games.reviews``) was queued, or asked for again after
    waiting long: it is sent to the review worker (``games.adapters.scheduler``)."""

    review_id: int


@dataclass(frozen=True)
class ChatHiddenChanged:
    """Whose chat lines one person is not sent changed (a block or an unblock,
    ``GamePlugin.chat_hidden``): their open table sockets ask again."""

    user_id: int


Event = (TableChanged | TableClosed | GameChanged | ChatPosted | Notice | UserFrame
         | MeChanged | CloseSockets | PresenceExpired | SiteNoticeChanged | ReviewQueued
         | ChatHiddenChanged)
E = TypeVar("E", TableChanged, TableClosed, GameChanged, ChatPosted, Notice, UserFrame,
            MeChanged, CloseSockets, PresenceExpired, SiteNoticeChanged, ReviewQueued,
            ChatHiddenChanged)

_SUBSCRIBERS: dict[type[Any], list[Callable[[Any], object]]] = {}


def subscribe(kind: type[E], fn: Callable[[E], object]) -> None:
    """Call ``fn(event)`` after each commit that published an event of type
    ``kind`` (what it returns is ignored); subscribers run in the order they subscribed (idempotent:
    ``ready()`` may run twice)."""
    fns = _SUBSCRIBERS.setdefault(kind, [])
    if fn not in fns:
        fns.append(fn)


def unsubscribe(kind: type[E], fn: Callable[[E], object]) -> None:
    """Stop calling ``fn`` for ``kind`` (a test's listener)."""
    fns = _SUBSCRIBERS.get(kind, [])
    if fn in fns:
        fns.remove(fn)


def publish(event: Event) -> None:
    """Tell the event's subscribers once the current transaction commits (at
    once outside one).

    :raises TypeError: for an object that is not one of this module's events.
    """
    if not isinstance(event, Event):
        raise TypeError(f"not an event: {event!r}")
    fns = list(_SUBSCRIBERS.get(type(event), ()))
    if fns:
        transaction.on_commit(lambda: [fn(event) for fn in fns])


# --- the per-user channel -----------------------------------------------------------


#: a message as a sender gives it: the words, or (better) a function that
#: says them in the active language, so each reader reads their own
Words = str | Callable[[], str]


def spoken(words: Words) -> dict[str, Any]:
    """``{"message": str}`` in the active language and, when ``words`` is a
    function, ``"texts": {language code: str}`` in every one of
    ``settings.LANGUAGES``: a socket sends its page the text of the page's own
    language (``games.adapters.consumers``), not the language of whoever
    caused the news (a moderator, the fourth player's Ready)."""
    if isinstance(words, str):
        return {"message": words}
    texts = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            texts[code] = str(words())
    return {"message": str(words()), "texts": texts}


def say(template: str, **params: Any) -> Callable[[], str]:
    """Words (:data:`Words`) from an English ``template`` marked with
    ``gettext_noop`` (so ``makemessages`` finds it) and its ``params``, bound
    now (a loop's variables included): translated when said."""
    return lambda: translation.gettext(template) % params


def notice_frame(code: str, words: Words, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """``{"type": "notice", "code", "message", "params"}`` (and ``texts``,
    see :func:`spoken`): a notice for :func:`notify`, a table's close or a
    socket's close."""
    return {"type": "notice", "code": code, **spoken(words), "params": params or {}}


def notify(user_id: int, code: str, message: Words, params: dict[str, Any] | None = None) -> None:
    """Tell one person something that is not a view change (after commit):
    ``{"type": "notice", "code", "message", "params"}`` to every open
    connection of theirs, on every page (docs/protocol.md), in each page's
    language when ``message`` is a function (:func:`spoken`)."""
    publish(Notice(user_id, notice_frame(code, message, params)))


def send_user(user_id: int, frame: dict[str, Any]) -> None:
    """Send ``frame`` (documented in docs/protocol.md "The per-user channel")
    to every open connection of ``user_id`` once the current transaction
    commits. Nothing is queued for a person with no connection open."""
    publish(UserFrame(user_id, frame))


def me_changed(user_ids: Iterable[int | None]) -> None:
    """After commit, send each of ``user_ids`` a fresh ``me`` frame (the header
    of every page). Publish it wherever those figures change."""
    ids = tuple(sorted({u for u in user_ids if u}))
    if ids:
        publish(MeChanged(ids))


def close_sockets(user_id: int, notice: dict[str, Any] | None = None) -> None:
    """After commit, send ``notice`` (if any) to every open connection of
    ``user_id`` and close them (code 4403, docs/protocol.md)."""
    publish(CloseSockets(user_id, notice))
