"""Websocket consumers: thin — authenticate, parse, call the write modules, relay views.

The protocol (every message, both directions) is in ``docs/protocol.md``.
``TableConsumer`` serves one table (players and spectators); ``LobbyConsumer``
streams the lobby's table list; ``PersonConsumer`` carries the per-user
channel alone (pages without a socket of their own). Every logged-in
connection is in its user's person group. No rules and no game state live here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from http.cookies import SimpleCookie
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games import access, metrics, plugins, presence, queries, snapshots, wire
from games.adapters import broadcast, drain, lastview, overload, ratelimit
from games.adapters.dbcalls import db
from games.plugins import SocketContext
from games.seatview import current_view, game_view
from yuanzi_site import logs
from yuanzi_site.refusals import Refused

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

logger = logging.getLogger(__name__)

#: a text frame longer than this (characters) is refused unread (``bad_message``);
#: one over Daphne's own limit, 1 MiB of UTF-8 (``--websocket-max-message-size``),
#: never gets here: Daphne drops the connection (1006, docs/protocol.md)
MAX_FRAME = 8192


def _connect(channel_name: str, table_id: int, user: User | AnonymousUser,
             token: str | None = None,
             address: str | None = None) -> dict[str, Any] | None:
    # a private table without its invite is refused as if it did not exist
    row = access.open_table(table_id, user, token)
    if row is None:
        return None
    presence.touch_presence(channel_name, table_id, user)
    # the greeting (the table hears of it soon), from the row just read
    table = snapshots.table_snapshot(table_id, row)
    if table is None:
        presence.drop_presence(channel_name, table_id, user)
        return None
    plugins.connected(table_id, user, address)
    moderator = _moderator_here(table, user)
    barred = access.watch_barred(table, user, moderator)
    hidden = plugins.chat_hidden(user.pk) if user.is_authenticated else frozenset()
    return {
        "table": table,
        "moderator": moderator,
        "view": None if barred else game_view(table["game_id"], user,
                                              snapshots.emptied(table)),
        "chat": [line for line in queries.chat_history(table_id) if shown_to(line, hidden)],
        "hidden": hidden,
    }


def shown_to(line: dict[str, Any], hidden: frozenset[int]) -> bool:
    """Is a chat line sent to a socket whose user does not see ``hidden``'s
    lines (``GamePlugin.chat_hidden``: a block)? A moderator's always is."""
    return line.get("user_id") not in hidden or bool(line.get("moderator"))


def _moderator_here(table: snapshots.TableSnapshot, user: User | AnonymousUser) -> bool:
    """:func:`games.access.is_moderator`, answered by the snapshot when it can:
    its ``moderators`` (moderation's contribution) lists every moderator seated
    at the table, so a seated player needs no query."""
    listed: list[dict[str, Any]] | None = cast(dict[str, Any], table).get("moderators")
    seated = user.is_authenticated and any(
        s["player"] is not None and s["player"]["id"] == user.pk for s in table["seats"])
    if listed is None or not seated:
        return access.is_moderator(user)
    return any(m["id"] == user.pk for m in listed)


def _ref(content: dict[str, Any]) -> Any:
    """The client's ``ref``, if it is one we echo: a string of at most 64
    characters or an integer."""
    ref = content.get("ref")
    if isinstance(ref, str) and len(ref) <= 64:
        return ref
    if isinstance(ref, int) and not isinstance(ref, bool):
        return ref
    return None


_RATES = {"act": ("act", "GAMES_ACTION_RATE", gettext_noop("Slow down: too many actions.")),
          "chat": ("chat", "GAMES_CHAT_RATE", gettext_noop("Slow down: too many messages."))}


def scope_language(scope: dict[str, Any]) -> str:
    """The language a socket's page speaks: the visitor's choice (the language
    cookie), else their browser's Accept-Language, else the site's default
    (as ``LocaleMiddleware`` picks it for pages), so a refusal's message reads
    in the page's language."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1")
               for k, v in scope.get("headers", [])}
    cookie = SimpleCookie()
    with contextlib.suppress(Exception):  # a malformed cookie header: no choice made
        cookie.load(headers.get("cookie", ""))
    chosen = cookie.get(settings.LANGUAGE_COOKIE_NAME)
    wanted = [chosen.value] if chosen else []
    wanted += [part.split(";")[0].strip() for part in headers.get("accept-language", "").split(",")]
    for code in wanted:
        with contextlib.suppress(LookupError):
            if code:
                return translation.get_supported_language_variant(code)
    return settings.LANGUAGE_CODE


def _handle_in(language: str, channel_name: str, table_id: int,
               user: User | AnonymousUser, msg: dict[str, Any],
               game_id: int | None = None) -> dict[str, Any] | None:
    """:func:`_handle` with the page's ``language`` active (its refusals' words)."""
    with translation.override(language):
        return _handle(channel_name, table_id, user, msg, game_id)


def _handle(channel_name: str, table_id: int, user: User | AnonymousUser,
            msg: dict[str, Any], game_id: int | None = None) -> dict[str, Any] | None:
    """Carry out one client message; returns a direct reply or ``None``.

    :param game_id: the connection's hint of the table's current game
        (``SocketContext.game_id``), or ``None``.

    ``ping`` and ``sync`` are answered by the consumer itself (no database
    thread); every other type goes to its handler in
    its plugin (``games.plugins.socket_message``: ``games.adapters.handlers`` and other apps).

    :raises Refused: for anything refused (sent back as ``error``).
    """
    kind = msg.get("type")
    entry = plugins.socket_message(kind) if isinstance(kind, str) else None
    if entry is None:
        raise Refused("bad_message", _("Unknown message type."))
    rate = entry.rate
    if entry.login and not user.is_authenticated:
        raise Refused("login_required", _("Log in to play."))
    if rate is not None:
        bucket, setting, text = _RATES[rate]
        if not ratelimit.allow(f"{bucket}:{user.pk}", *getattr(settings, setting)):
            raise Refused("rate_limited", _(text))
    return entry.handler(SocketContext(user, table_id, channel_name, game_id), msg)


#: frames dropped unread by every connection of this process (a flood's measure)
dropped_frames = 0


def frame_budget() -> tuple[float, int]:
    """A table connection's budget of frames of any type: (per second, burst).

    The sum of what the per-type limits can let through (actions, chat lines,
    pings and syncs): a client within its limits never meets it, and anything
    beyond it would be refused or dropped by one of them anyway — so it is
    dropped first, unread (a ping flood once slowed the moves at other tables).
    """
    act_hits, act_window = settings.GAMES_ACTION_RATE
    chat_hits, chat_window = settings.GAMES_CHAT_RATE
    rate = act_hits / act_window + chat_hits / chat_window + settings.GAMES_PING_RATE
    return rate, act_hits + chat_hits + settings.GAMES_PING_BURST


def quiet(send: Callable[[dict[str, Any]], Awaitable[None]]
          ) -> Callable[[dict[str, Any]], Awaitable[None]]:
    """``send`` (an ASGI send callable) dropping a frame for a socket that
    closed meanwhile — a group message on its way while the page left, after a
    4503 or a drain's 1012 —, for which Daphne's websocket raises
    ``Disconnected``: a traceback in the log for nothing anyone could do.
    Any other failure still raises."""

    async def send_quietly(message: dict[str, Any]) -> None:
        try:
            await send(message)
        except Disconnected:
            return

    return send_quietly


class _JsonSocket(AsyncJsonWebsocketConsumer):  # type: ignore[misc]  # channels ships no types
    """JSON frames in and out. Every frame first takes a token from the
    connection's ``frames`` bucket (set by the subclass's ``connect``): without
    one it is dropped before anything is done with it — not parsed, no
    database, cache or presence — and counted (``frames.dropped``,
    :data:`dropped_frames`). A frame that is not a JSON text of at most
    ``MAX_FRAME`` characters (binary, empty, too long, too deeply nested,
    ``NaN``/``Infinity``) reaches ``receive_json`` as ``None`` — a malformed
    message, answered with an error — instead of raising, and the connection's
    clean-up (:meth:`cleanup`) runs however the consumer ends."""

    _counted = False  # in metrics.OPEN_SOCKETS since accept()
    frames: TokenBucket | None = None

    async def __call__(self, scope: dict[str, Any],
                       receive: Callable[[], Awaitable[dict[str, Any]]],
                       send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        try:
            await super().__call__(scope, receive, quiet(send))
        finally:
            drain.closed(self)
            if self._counted:
                metrics.OPEN_SOCKETS.labels(type(self).__name__).dec()
            await asyncio.shield(self.cleanup())

    async def accept(self, subprotocol: str | None = None,
                     headers: list[tuple[bytes, bytes]] | None = None) -> None:
        await super().accept(subprotocol, headers)
        if not self._counted:
            self._counted = True
            metrics.OPEN_SOCKETS.labels(type(self).__name__).inc()
        drain.opened(self)
        if drain.draining():  # this process is stopping: the page reconnects elsewhere
            await self.close(code=drain.RESTART_CODE)

    async def cleanup(self) -> None:
        """Undo what connecting did (idempotent: runs on disconnect and on any exit)."""

    # the per-user channel, on every socket of a person (tables, the lobby, /ws/me/)

    def in_my_language(self, frame: dict[str, Any]) -> dict[str, Any]:
        """A frame whose words come in every language (``texts``,
        ``games.events.spoken``) with ``message`` in this page's language."""
        texts = frame.get("texts")
        if not isinstance(texts, dict):
            return frame
        if not hasattr(self, "language"):
            self.language = scope_language(self.scope)
        rest = {k: v for k, v in frame.items() if k != "texts"}
        return {**rest, "message": texts.get(self.language, frame.get("message", ""))}

    async def user_notice(self, event: dict[str, Any]) -> None:
        # something this person must be told (events.notify)
        await self.send_json(self.in_my_language(event["notice"]))

    async def user_frame(self, event: dict[str, Any]) -> None:
        # events.send_user: e.g. a `me` frame
        await self.send_json(self.in_my_language(event["frame"]))

    async def user_close(self, event: dict[str, Any]) -> None:
        # events.close_sockets: e.g. a suspended account is logged out everywhere
        if event.get("notice"):
            await self.send_json(self.in_my_language(event["notice"]))
        await self.close(code=4403)

    async def user_hidden(self, event: dict[str, Any]) -> None:
        """``events.ChatHiddenChanged``: whose lines this person is not sent
        changed; nothing to do but on a table socket (``TableConsumer``)."""

    async def site_notice(self, event: dict[str, Any]) -> None:
        # the site-wide notice (维护公告) changed: every open page shows it at once
        await self.send_json({"type": "site_notice", "notice": event["notice"]})

    async def disconnect(self, code: int) -> None:
        await self.cleanup()

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels (4.2+) runs close_old_connections in the database thread
        # before every handler: a hop to that one thread for each frame relayed
        # to a client, queued behind everyone's moves (seen in profiles under load).
        # Every database call here goes through games.adapters.dbcalls.db, which
        # closes old connections itself, so the relays skip it.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None,
                      **kwargs: Any) -> None:
        global dropped_frames
        if self.frames is not None and not self.frames.take():
            dropped_frames += 1
            return  # a flood: dropped before any work
        # the base class raises ValueError on a binary or empty frame, which
        # would kill the consumer and drop the connection
        content = (await self.decode_json(text_data)
                   if text_data and len(text_data) <= MAX_FRAME else None)
        await self.receive_json(content, **kwargs)

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        return wire.dumps(content)  # orjson: a view in a sixth of json.dumps's time

    @classmethod
    async def decode_json(cls, text_data: str) -> Any:
        try:
            return wire.loads(text_data)
        except ValueError:  # malformed, or nested ~1,000 deep
            return None


async def _refuse_busy(socket: AsyncJsonWebsocketConsumer) -> None:
    """Saturated (games.adapters.overload): accept, then close with 4503 (a close
    before accepting would be a handshake failure the page cannot tell apart)."""
    await socket.accept()
    await socket.close(code=overload.BUSY_CODE)


def _plays_there(table: Any, user: Any) -> bool:
    """Is ``user`` seated at ``table`` (a snapshot) while its game runs?"""
    return bool(table["status"] == "playing" and user.is_authenticated and any(
        s["player"] and s["player"]["id"] == user.pk for s in table["seats"]))


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved: :meth:`take` is
    ``False`` when none is left (per connection, in its consumer; no I/O)."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.at = float(burst), time.monotonic()
        self.dropped = 0

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.dropped += 1
        return False


class TableConsumer(_JsonSocket):
    """``/ws/table/<id>/``: one table's seats, game views and chat.

    Groups: the table's (snapshots, chat), the user's own at the table (their
    seat's views), the person's (notices), and — while the user is not seated
    there — the watchers' (the seat-less view), so a player's connection is
    never sent the spectator view it would drop. Frames beyond
    :func:`frame_budget` are dropped unread; ``ping`` and ``sync`` share a
    token bucket (``GAMES_PING_RATE``/s, bursts of ``GAMES_PING_BURST``): the
    excess is dropped unanswered and counted in ``bucket.dropped``. A ping
    refreshes presence at most every third of its TTL. Connects and
    disconnects reach the table as one debounced snapshot
    (:func:`games.adapters.broadcast.table_changed_soon`).
    """

    async def connect(self) -> None:
        overload.watch()
        table_id = wire.whole(self.scope["url_route"]["kwargs"]["table_id"])
        if table_id is None:  # /ws/table/-1/, 8,000 digits …: like an unknown table
            await _refuse_route(self)
            return
        if overload.saturated() and not self.scope["user"].is_authenticated:
            await _refuse_busy(self)  # a visitor is nobody's seated player
            return
        self.table_id = table_id
        self.user = self.scope["user"]
        self.language = scope_language(self.scope)
        self.bucket = TokenBucket(settings.GAMES_PING_RATE, settings.GAMES_PING_BURST)
        self.frames = TokenBucket(*frame_budget())
        self.moderator = self.barred = False  # until the greeting says otherwise
        self.token: str | None = None  # the table's invite token this connection came with
        self.hidden: frozenset[int] = frozenset()  # authors not sent here (a block)
        self.game_id: int | None = None  # the newest game id sent here (_saw_game)
        self.follower = lastview.Follower()  # the views sent here, for a sync
        # in the watchers' group until the greeting shows this user seated, so
        # no move between reading the greeting and joining goes unseen
        self.watching = True
        # accept at once, before any group or database work: in a connect storm
        # the handshake is answered while the greeting waits its turn (Daphne
        # fails a handshake still unanswered after 30 s), and a closed table is
        # still told 4404 (a close before accept is an HTTP 403 the browser
        # cannot read). Group messages wait for connect() to return.
        await self.accept()
        self.groups_joined = [broadcast.table_group(self.table_id),
                              broadcast.watch_group(self.table_id), broadcast.SITE_GROUP]
        if self.user.is_authenticated:
            self.groups_joined.append(broadcast.user_group(self.table_id, self.user.pk))
            self.groups_joined.append(broadcast.person_group(self.user.pk))
        await asyncio.gather(*(self.channel_layer.group_add(g, self.channel_name)
                               for g in self.groups_joined))
        # read before the greeting's database read: every later change reaches this connection
        version = await lastview.current(self.channel_layer, self.table_id)
        session = self.scope.get("session")
        token = (session.get("invites", {}) if session is not None else {}).get(str(self.table_id))
        address = (self.scope.get("client") or [None])[0]
        hello = await db(_connect)(
            self.channel_name, self.table_id, self.user, token, address)
        if hello is None:
            await self._leave_groups()
            await self.close(code=4404)
            return
        if overload.saturated() and not _plays_there(hello["table"], self.user):
            await self._leave_groups()  # saturated: only a running game's players come in
            await db(presence.drop_presence)(self.channel_name, self.table_id, self.user)
            await self.close(code=overload.BUSY_CODE)
            return
        self.touched = time.monotonic()
        self.moderator = hello["moderator"]
        self.token = token  # a private table's link is shown only to who holds it (or insiders)
        self.hidden = hello["hidden"]
        self._saw_game(hello["table"].get("game_id"))
        await self._watch(hello["table"])
        broadcast.table_changed_soon(self.table_id)  # online flags, spectator count
        await self.send_json({"type": "table", "table": access.without_link(
            hello["table"], self.user, token, self.moderator)})
        await self.send_json({"type": "chat_history", "lines": hello["chat"]})
        if hello["view"] is not None:
            await self.send_json({"type": "game", "view": hello["view"]})
        self.follower.read(version, hello["view"])
        if self.user.is_authenticated:  # after the greeting: not on the connect's path
            await db(plugins.came_online)(self.user)

    def _saw_game(self, game_id: Any) -> None:
        """Keep the newest game id sent to this connection (ids only grow): the
        hint a move carries instead of asking the database for the table's
        current game (checked under the game's lock, ``games.play.act``)."""
        if isinstance(game_id, int) and (self.game_id is None or game_id > self.game_id):
            self.game_id = game_id

    async def _watch(self, table: dict[str, Any]) -> None:
        """Be in the watchers' group exactly while this user is not seated and
        may watch (:func:`games.access.watch_barred`: spectators off)."""
        seated = self.user.is_authenticated and any(
            s["player"] and s["player"]["id"] == self.user.pk for s in table["seats"])
        self.barred = access.watch_barred(table, self.user, self.moderator)
        watch = not seated and not self.barred
        group = broadcast.watch_group(self.table_id)
        if watch and not self.watching:
            self.watching = True
            self.groups_joined.append(group)
            await self.channel_layer.group_add(group, self.channel_name)
        elif not watch and self.watching:
            self.watching = False
            self.groups_joined.remove(group)
            await self.channel_layer.group_discard(group, self.channel_name)

    async def _leave_groups(self) -> None:
        groups, self.groups_joined = self.groups_joined, []
        await asyncio.gather(*(self.channel_layer.group_discard(g, self.channel_name)
                               for g in groups))

    async def cleanup(self) -> None:
        if getattr(self, "groups_joined", None):
            await self._leave_groups()
            await db(presence.drop_presence)(
                self.channel_name, self.table_id, self.user)
            broadcast.table_changed_soon(self.table_id)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if not isinstance(content, dict) or not isinstance(content.get("type"), str):
            with translation.override(self.language):  # the page's words, not the default's
                message = _("Malformed message.")
            await self.send_json({"type": "error", "reason": "bad_message", "message": message})
            return
        kind = content["type"]
        if kind in ("ping", "sync"):
            if not self.bucket.take():
                return  # over the limit: dropped, for this connection only
            if kind == "ping":
                await self.send_json({"type": "pong"})
                if time.monotonic() - self.touched > settings.GAMES_PRESENCE_TTL_SECONDS / 3:
                    self.touched = time.monotonic()
                    await sync_to_async(presence.touch_presence, thread_sensitive=False)(
                        self.channel_name, self.table_id, self.user)
            elif self.barred:  # spectators off: no game view
                await self.send_json({"type": "game", "view": None})
            else:
                await self.send_json({"type": "game", "view": await self._current_view()})
            return
        start, outcome = time.perf_counter(), "error"  # "error": it raised (a bug)
        try:
            async with drain.action():  # a drain lets it finish before closing
                reply = await db(_handle_in)(
                    self.language, self.channel_name, self.table_id, self.user, content,
                    self.game_id)
            outcome = "ok"
        except Refused as e:
            outcome = e.reason
            reply = {"type": "error", "reason": e.reason, "message": str(e),
                     "ref": _ref(content)}
            if e.params:
                reply["params"] = e.params
        finally:  # one line per message, whatever came of it
            logs.socket_message(kind, outcome, self.user.pk, self.table_id, self.channel_name,
                                (time.perf_counter() - start) * 1000)
        if reply is not None:
            await self.send_json(reply)

    # --- channel-layer events ---

    async def table_update(self, event: dict[str, Any]) -> None:
        self._saw_game(event["table"].get("game_id"))
        await self._watch(event["table"])
        await self.send_json({"type": "table", "table": access.without_link(
            event["table"], self.user, self.token, self.moderator)})

    async def _current_view(self) -> dict[str, Any] | None:
        """This connection's current game view for a ``sync``: as last
        broadcast if that is provably current (:mod:`lastview`: the process's
        own broadcasts with one process; with Redis, what this connection was
        sent, if it missed no version since), else from the database."""
        kept = lastview.view(self.table_id, self.user.pk)
        if kept is not None:
            return kept
        now = await lastview.current(self.channel_layer, self.table_id)
        kept = self.follower.answer(now)
        if kept is not None:
            return kept
        view = await db(current_view)(self.table_id, self.user)
        self.follower.read(now, view)
        return view  # type: ignore[return-value]  # a SiteView is such a dict

    async def game_update(self, event: dict[str, Any]) -> None:
        # this user's own seat view (only their connections are in that group)
        self._saw_game(event["view"].get("game_id"))
        await self.send_json({"type": "game", "view": event["view"]})
        self.follower.sent(event.get("v"), event["view"])

    async def game_spectate(self, event: dict[str, Any]) -> None:
        # the seat-less view; a player's connection can still hold one sent
        # before it left the watchers' group: their own view comes as game_update
        view = event["view"]
        if self.barred:
            return  # sent before this connection left the watchers' group
        if self.user.is_authenticated and any(
            p["user_id"] == self.user.pk for p in view["players"]
        ):
            return  # a player: their own view comes through game_update
        await self.send_json({"type": "game", "view": view})
        self.follower.sent(event.get("v"), view)

    async def chat_message(self, event: dict[str, Any]) -> None:
        # a line of someone this user blocks is dropped here, for this socket only
        if shown_to(event["line"], self.hidden):
            await self.send_json({"type": "chat", "line": event["line"]})

    async def user_hidden(self, event: dict[str, Any]) -> None:
        # a block or unblock of this user's: ask again whose lines to drop
        if self.user.is_authenticated:
            self.hidden = await db(plugins.chat_hidden)(self.user.pk)

    async def table_gone(self, event: dict[str, Any]) -> None:
        # the table closed (a moderator, or idle): say so, then close like a closed table
        if event.get("notice"):
            await self.send_json(self.in_my_language(event["notice"]))
        await self.send_json({"type": "table_closed", "id": event["id"]})
        await self.close(code=4404)


async def _refuse_route(consumer: AsyncJsonWebsocketConsumer) -> None:
    """Accept, then close with 4404 (a close before accept would be an HTTP 403
    handshake refusal); log one short line, never the whole path."""
    path = consumer.scope.get("path", "")
    logger.info("websocket to no route closed with 4404: %r (%d chars)", path[:40], len(path))
    await consumer.accept()
    await consumer.close(code=4404)


class NoSuchRoute(AsyncJsonWebsocketConsumer):  # type: ignore[misc]  # channels ships no types
    """Any websocket path that is no route: accepted and closed with 4404."""

    async def connect(self) -> None:
        await _refuse_route(self)


class _PersonalSocket(_JsonSocket):
    """A socket that belongs to no table but carries the per-user channel
    (docs/protocol.md "The per-user channel"): a logged-in user's connection
    joins their person group (``notice`` and ``me`` frames,
    ``events.send_user``; an ``events.close_sockets`` closes it with
    4403, e.g. a suspension) and keeps them online (``presence.touch_person``
    at connect and at most every third of the presence TTL on a ``ping``).
    Every message is answered with ``pong``; every frame is a ping here, so
    the frame budget is the ping bucket and a flood is dropped unread."""

    async def join(self, groups: list[str]) -> None:
        """Join ``groups`` and, for a logged-in user, their person group."""
        self.user = self.scope["user"]
        self.bucket = TokenBucket(settings.GAMES_PING_RATE, settings.GAMES_PING_BURST)
        self.frames = self.bucket  # every frame is a ping here: dropped unread
        self.groups_joined = [*groups, broadcast.SITE_GROUP]
        if self.user.is_authenticated:
            self.groups_joined.append(broadcast.person_group(self.user.pk))
            await sync_to_async(presence.touch_person, thread_sensitive=False)(
                self.channel_name, self.user)
        self.touched = time.monotonic()
        await asyncio.gather(*(self.channel_layer.group_add(g, self.channel_name)
                               for g in self.groups_joined))
        if self.user.is_authenticated:
            await db(plugins.came_online)(self.user)

    async def cleanup(self) -> None:
        groups, self.groups_joined = getattr(self, "groups_joined", []), []
        for g in groups:
            await self.channel_layer.group_discard(g, self.channel_name)
        if groups and self.user.is_authenticated:
            await sync_to_async(presence.drop_person, thread_sensitive=False)(
                self.channel_name, self.user)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        await self.send_json({"type": "pong"})  # the frame took its token unread
        if (self.user.is_authenticated
                and time.monotonic() - self.touched > settings.GAMES_PRESENCE_TTL_SECONDS / 3):
            self.touched = time.monotonic()
            await sync_to_async(presence.touch_person, thread_sensitive=False)(
                self.channel_name, self.user)



class PersonConsumer(_PersonalSocket):
    """``/ws/me/``: the per-user channel alone, for the pages with no socket of
    their own (the shop, a profile, the rules …). An anonymous connection is
    accepted and closed with 4403 (signed out: the page does not retry)."""

    async def connect(self) -> None:
        overload.watch()
        await self.accept()
        if not self.scope["user"].is_authenticated:
            await self.close(code=4403)
            return
        if overload.saturated():
            await self.close(code=overload.BUSY_CODE)
            return
        await self.join([])


class LobbyConsumer(_PersonalSocket):
    """``/ws/lobby/``: every open table, then each change as it happens; with
    lobby filters in the query string (``/ws/lobby/?wager=40``,
    ``GamePlugin.lobby_filters``) only the tables they keep. It also carries the
    per-user channel (:class:`_PersonalSocket`): the lobby page opens this one
    socket only, and a suspension closes it like the table sockets."""

    async def connect(self) -> None:
        overload.watch()
        if overload.saturated():
            await _refuse_busy(self)
            return
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.filters = plugins.lobby_filters({k: v[-1] for k, v in query.items()})
        self.shown: set[int] = set()
        await self.join([broadcast.LOBBY_GROUP])
        await self.accept()
        rows = await db(snapshots.lobby_rows)(filters=self.filters)
        self.shown = {row["id"] for row in rows}
        await self.send_json({"type": "tables", "tables": rows})

    async def lobby_table(self, event: dict[str, Any]) -> None:
        row = event["table"]
        if all(match(row, value) for _query, match, value in self.filters):
            self.shown.add(row["id"])
            await self.send_json({"type": "table", "table": row})
        elif row["id"] in self.shown:  # it left this client's filter: off its list
            self.shown.discard(row["id"])
            await self.send_json({"type": "table_closed", "id": row["id"]})

    async def lobby_closed(self, event: dict[str, Any]) -> None:
        self.shown.discard(event["id"])
        await self.send_json({"type": "table_closed", "id": event["id"]})
