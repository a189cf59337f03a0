"""The plugin seam: how the site's apps plug into a game (DESIGN.md "The plugin
seam"; shaped like Django's ``MIDDLEWARE`` and Saleor's ``PLUGINS``).

An app says in one file, its ``plugin.py``, what it does to a game: a subclass
of :class:`GamePlugin` overriding the hooks it needs. ``settings.GAME_PLUGINS``
lists the plugins by dotted path, and **that list is the order** every hook
runs in; an app with several steps in one hook runs them in its own method, in
its own order. Today's list, and why it is in that order:

1. ``moderation`` — a suspension or ban is refused at a seat before anything
   else is asked; its game-end bookkeeping (fair play) depends on no order.
2. ``games`` — the table socket's own messages and the deal's fairness keys.
3. ``accounts`` — rating settlement at game end: before the shop's wagers,
   which read this game's rating changes.
4. ``social`` — blocks at seats (after moderation, before the wager's
   solvency check).
5. ``shop`` — items, wagers and the held stake: at game end wagers and holds,
   then drops.

A hook that raises :class:`~yuanzi_site.refusals.Refused` refuses (seat checks, chat,
names); any other exception is a bug and rolls back the transaction it runs
in. After-commit events are :mod:`games.events`, not hooks.

The loops below run a hook over every plugin that overrides it (so a hook no
plugin needs costs nothing on the hot path).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cache
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from django.conf import settings
from django.core.signals import setting_changed
from django.utils.module_loading import import_string

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User
    from django.db.models import Q, QuerySet

    from games.engine import EndReason, Record, Result
    from games.fairness import SiteState
    from games.models import Game, GameSeat, Table
    from yuanzi_site.refusals import Refused

#: where a page includes the plugins' panels (templates): the table page, the
#: lobby page, each lobby row (context ``row``), each rating change on a
#: result page (``change``), each game of a profile's recent games (``game``),
#: the lobby's form that opens a table (its extra fields, see
#: ``GamePlugin.on_table_opened``), a profile page (``player``, ``player_user``)
#: and the moderators' fair-play page (``mod_flags``: contests' signals)
Slot = Literal["table", "lobby", "lobby_row", "result_row", "recent_game_row", "create_table",
               "profile", "mod_flags"]

#: when a seat is checked: sitting down, a game starting (the fourth ready), a
#: game's end (in the finisher, after the game-end hooks), a bot being added
Moment = Literal["sit", "start", "game_end", "bot"]


@dataclass(frozen=True)
class GameEnd:
    """What a game-end hook is told (RULES.md §6–§7, §11–§12).

    :ivar game: the ``Game`` row, locked, already marked over and settled.
    :ivar reason: ``"normal"``, ``"escape"``, ``"moderator_close"``,
        ``"moderator_kick"`` or ``"suspension"``.
    :ivar result: the engine state's ``result`` (``winner``, ``double_clamp``,
        ``abandoned_by``, ``rating_changes`` per seat …).
    :ivar seats: the game's ``GameSeat`` rows in seat order.
    :ivar record: the game's RULES.md §11 record as stored.
    """

    game: Game
    reason: EndReason
    result: Result
    seats: list[GameSeat]
    record: Record

    @property
    def rated(self) -> bool:
        """Four people played (RULES.md §7): rating, coins and drops may move."""
        return not self.game.practice


@dataclass(frozen=True)
class SocketContext:
    """Who sent a table-socket message: ``user`` (may be anonymous),
    ``table_id`` and the connection's ``channel_name``; ``game_id``, the
    newest game id the server sent that connection for the table (a hint that
    spares a move the current-game query: whoever uses it checks it against
    the locked game row, ``games.play.act``), or ``None``.

    ``user`` is typed ``Any``: it is a ``User`` for every message whose
    :class:`SocketMessage` has ``login`` (anonymous senders are refused
    before the handler runs), ``AnonymousUser`` possible only for the others,
    which a type on this shared field cannot say; handlers pass it on as
    the ``User`` the write modules take."""

    user: Any
    table_id: int
    channel_name: str
    game_id: int | None = None


@dataclass(frozen=True)
class SocketMessage:
    """The handler of one table-socket message type.

    :ivar handler: ``(ctx, msg) -> reply | None``; validates its own fields
        and raises ``Refused`` with its reason codes; the reply, if any, goes
        back to that connection.
    :ivar rate: the per-user rate-limit bucket (``"act"``, ``"chat"``; ``None``:
        none), see ``GAMES_ACTION_RATE`` / ``GAMES_CHAT_RATE``.
    :ivar login: anonymous senders are refused with ``login_required``.
    """

    handler: Callable[[SocketContext, dict[str, Any]], dict[str, Any] | None]
    rate: str | None = "act"
    login: bool = True


@dataclass(frozen=True)
class LobbyFilter:
    """A lobby query parameter (``?wager=40``).

    :ivar parse: ``text -> value``, or ``None`` for text that is no value (the
        filter is then not applied).
    :ivar query: ``(tables, value) -> tables`` on a ``Table`` queryset (the
        lobby filters in the database).
    :ivar match: ``(lobby row, value) -> bool``, the same test on a row the
        lobby socket streams.
    :ivar label, choices: the lobby page's filter form: its label and
        ``(text, label)`` options (``text`` as ``parse`` reads it).
    """

    key: str
    parse: Callable[[str], Any]
    query: Callable[[QuerySet[Table], Any], QuerySet[Table]]
    match: Callable[[dict[str, Any], Any], bool]
    label: Any = ""
    choices: tuple[tuple[str, Any], ...] = field(default=())


@dataclass(frozen=True)
class HistoryFilter:
    """A yes/no filter of a player's game history (战绩, ``?wager=1``).

    :ivar key: the query parameter (``"1"`` applies it).
    :ivar seats: a ``Q`` over ``games.GameSeat`` rows (the seat a player
        played): the games that have the property (built in the owning app,
        which knows its own relations, e.g. the shop's settled wagers).
    :ivar label: the history page's checkbox label.
    """

    key: str
    seats: Q
    label: Any = ""


@dataclass(frozen=True)
class Reviewable:
    """A finished record whose player may ask for its review (复盘,
    ``games.reviews``), as the review page and the request see it: a game's
    seat (``games`` builds these itself) or another app's record, e.g. a daily
    challenge board (``contests.challenge_review``, through :class:`ReviewKind`).

    :ivar kind: ``"game"`` or the owning plugin's kind (``"challenge"``).
    :ivar ref: the record's id in its app (the game's, the board's).
    :ivar seat: the player's seat (0–3); only its decisions are judged and
        only its hand is shown (RULES.md §12).
    :ivar user_id: the player's id (the review is theirs only).
    :ivar title: the review page's heading, in the visitor's language.
    :ivar names: the four seats' names as the page shows them.
    :ivar links: ``[(path, text)]`` at the foot of the page (back to the record).
    :ivar not_yet: why it may not be reviewed yet (its refusal: the request
        raises it, the page shows its message and no button), or ``None``.
    :ivar wait_link: ``(path, text)`` shown with ``not_yet`` (the table), or ``None``.
    :ivar game: the ``Game`` for ``kind == "game"``, else ``None``.
    """

    kind: str
    ref: int
    seat: int
    user_id: int
    title: str
    names: list[str]
    links: list[tuple[str, str]]
    not_yet: Refused | None = None
    wait_link: tuple[str, str] | None = None
    game: Game | None = None


@dataclass(frozen=True)
class ReviewKind:
    """A kind of record other than a game that 复盘 reviews, handed to
    ``games.reviews`` by the plugin that owns it (:meth:`GamePlugin.review_kinds`),
    so the review's queue, worker, cache and page serve it without ``games``
    importing that app.

    :ivar find: ``(ref, user) -> Reviewable`` for ``user``'s own record ``ref``;
        raises ``Refused`` when there is none of theirs (the views answer 404).
        Sets ``not_yet`` while it may not be reviewed (e.g. its day is open).
    :ivar load: ``ref -> (record, by)`` for the worker and the page: the
        finished RULES.md §11 record (raises ``ValueError`` while it may not be
        served) and, per index of its action log (``record_actions`` order),
        who chose the actions the player did not: ``"bot"``, ``"clock"`` or
        ``"auto"`` (absent: the player's own choice).
    """

    find: Callable[[int, User], Reviewable]
    load: Callable[[int], tuple[Record, dict[int, str]]]


class GamePlugin:
    """One app's part in a game: override the hooks it needs; every hook here
    is a no-op. Adding a method here is how a new feature extends the seam."""

    #: snapshot keys that also go into lobby rows (see :meth:`snapshot_keys`)
    lobby_keys: tuple[str, ...] = ()

    def on_game_start(self, game: Game) -> None:
        """Inside the transaction that starts a game (``games.play.start_game``:
        the table row locked, the ``Game`` and its ``GameSeat`` rows written),
        before the first views go out; e.g. the wager's held stake. Handles its
        own business cases and never raises for them."""

    def on_game_end(self, end: GameEnd) -> None:
        """Inside the one transaction that ends the game, once per game,
        whatever ended it. Handles its own business cases (an insolvent payer,
        a full inventory) and never raises for them."""

    def on_turn_timeout(self, game: Game, seat: int) -> timedelta | None:
        """Asked under the game's row lock before the RULES.md §8 timeout
        action; the first plugin to return a duration extends the turn by it
        instead (the 定时器)."""
        return None

    def check_seat(self, table: Table, user: User | None, moment: Moment) -> None:
        """Raise ``Refused`` to refuse the seat or the bot (``user`` is ``None``
        for ``"bot"``), or at ``"start"`` / ``"game_end"`` to stand that
        player up (they get a ``notice`` with the reason and its params)."""

    def check_ready(self, table: Table, user: User, shown: Mapping[str, Any]) -> None:
        """Asked under the table's lock before a player's Ready counts
        (``games.tables.set_ready``; never for an un-ready, nor for a ready
        the server gives itself, e.g. a practice game's): ``shown`` is the
        ``ready`` message, which says what its page showed (the wager). Raise
        ``Refused`` to refuse it (the page showed an old wager); nothing has
        changed then."""

    def view_keys(self, game_id: int, state: dict[str, Any], seat: int | None,
                  user_id: int | None) -> dict[str, Any]:
        """Keys added to one seat's game view (``seat`` ``None``: a spectator's),
        beside the keys of the ``SiteView`` type (``games.seatview``), which
        leaves other apps' keys untyped. ``state`` is the game's state, a
        ``games.fairness.SiteState``, handed over as a plain dict (so a plugin's
        helpers may take ``dict[str, Any]``)."""
        return {}

    def snapshot_keys(self, tables: list[Table], *, lobby: bool) -> dict[int, dict[str, Any]]:
        """``{table_id: keys}`` added to table snapshots; for ``lobby`` rows
        only the keys in :attr:`lobby_keys` are kept (so compute only those).
        Batched: the lobby's 200 rows cost one query per plugin. Each table
        comes with its seats loaded (``t.seats.all()``, with ``user__profile``):
        read them there rather than query them again."""
        return {}

    def lobby_filters(self) -> Sequence[LobbyFilter]:
        """The lobby query parameters this plugin filters by."""
        return ()

    def recent_game_keys(self, user_id: int,
                         seats: dict[int, int]) -> dict[int, dict[str, Any]]:
        """``{game_id: keys}`` added to a player's recent games (the profile
        page), for ``seats`` ``{game_id: the seat they played}``; batched."""
        return {}

    def socket_messages(self) -> Mapping[str, SocketMessage]:
        """The table-socket message types this plugin handles (one owner each)."""
        return {}

    def history_filters(self) -> Sequence[HistoryFilter]:
        """The yes/no filters a player's game history (战绩) takes from this
        plugin (the shop's ``wager``); read-only, asked per history request."""
        return ()

    def filter_chat(self, table_id: int, user: User, text: str) -> str:
        """Asked before a chat line is stored and sent: raise ``Refused`` to
        refuse it (a mute) or return the text to send (a word filter masks;
        the raw line is stored)."""
        return text

    def chat_lines(self, table_id: int, lines: list[dict[str, Any]]) -> None:
        """Edit chat lines as sent (live and history) in place, e.g. a badge."""

    def check_name(self, text: str) -> None:
        """Asked for every table name (creation and rename); raise ``Refused``."""

    def check_rename(self, table: Table, user: User, name: str, override: bool) -> None:
        """Asked before a table is renamed (``games.tables.rename``);
        ``override`` is a moderator's rename, which must be let through
        (clearing any protection kept, e.g. a 招牌)."""

    def on_connect(self, table_id: int, user: User | AnonymousUser,
                   address: str | None) -> None:
        """A table socket connected (``address``: the client address Daphne's
        ``--proxy-headers`` took from the trusted proxy)."""

    def on_online(self, user: User) -> None:
        """A logged-in person's socket connected — a table's (after its
        greeting), the lobby's or ``/ws/me/`` — off the connect's counted
        statements (tests/test_query_counts.py); e.g. a friend-online notice.
        Never raises for business cases."""

    def grants_entry(self, table: Table, user: User) -> bool:
        """Asked by ``games.access.may_open`` for a private table that
        ``user`` (logged in) may not open otherwise (not an insider, no
        invite token): ``True`` opens it (e.g. an accepted invite, a grant to
        that one person)."""
        return False
    def on_table_opened(self, table: Table, user: User, params: Mapping[str, Any]) -> None:
        """A table was opened from the lobby's form (``games.views.create_table``),
        after its transaction: ``params`` is the form (the fields a
        ``create_table`` panel adds). Never raises for a bad value (ignore it)."""

    def chat_hidden(self, user_id: int) -> frozenset[int]:
        """The authors whose chat lines (and quick phrases) ``user_id``'s table
        sockets are not sent, a moderator's lines excepted (a block). Asked at
        connect and when ``events.ChatHiddenChanged`` names the user: keep it
        off the database (a cache)."""
        return frozenset()

    def quick_start_tables(self, user: User, tables: list[Table]) -> list[Table]:
        """快速开始's candidates (best first) for ``user``: return those to try,
        in order (e.g. without the tables where someone they block sits)."""
        return tables

    def panels(self, slot: Slot) -> Sequence[str]:
        """Templates a page includes at ``slot`` (with the page's context, e.g.
        the table page's ``table``, ``boot``, ``user``): the wager box, the
        report dialog, a lobby row's wager badge; so ``games`` templates never
        name another app's."""
        return ()

    def personal_data(self, user: User) -> dict[str, Any]:
        """This app's part of ``user``'s own data (the 你的数据 download,
        ``accounts.personal``): JSON-able top-level keys, one per kind of row
        (``"games"``, ``"ledger"``, ``"notifications"`` …), each key owned by
        one plugin. Only what ``user`` may see: never another person's coins,
        never a running game's record."""
        return {}

    def on_account_deleted(self, user: User) -> None:
        """Inside the transaction that anonymises ``user``'s account
        (``accounts.deletion``, RULES.md §12 "Deleting an account"), after the
        running-game check and before the name changes: end what ties them to
        others (friendships, blocks, requests, invites, waiting seats, future
        arena entries). Never delete a game record or a ledger entry; never
        raise for a business case."""

    def review_kinds(self) -> Mapping[str, ReviewKind]:
        """The kinds of record other than games whose players may ask for a
        review (复盘) of their own decisions: ``{kind: ReviewKind}``, one
        owner per kind (``"game"`` is the games app's own)."""
        return {}

    def page_modules(self) -> Sequence[str]:
        """JS modules (static paths, e.g. ``"shop/wager.js"``) the table page
        loads through the import map; each may export ``wire(page)``,
        ``render(state)`` and ``onMessage(msg) -> bool`` (``static/js/table.js``)."""
        return ()


# --- the list --------------------------------------------------------------------------


@cache
def plugins() -> tuple[GamePlugin, ...]:
    """The plugins of ``settings.GAME_PLUGINS``, in that order (loaded once).

    :raises ImportError: for a path that names nothing.
    :raises TypeError: for one that is not a :class:`GamePlugin`.
    """
    loaded = []
    for path in settings.GAME_PLUGINS:
        plugin = import_string(path)()
        if not isinstance(plugin, GamePlugin):
            raise TypeError(f"{path} is not a GamePlugin")
        loaded.append(plugin)
    return tuple(loaded)


@cache
def _overriding(hook: str) -> tuple[GamePlugin, ...]:
    base = getattr(GamePlugin, hook)
    return tuple(p for p in plugins() if getattr(type(p), hook) is not base)


@cache
def _socket_messages() -> dict[str, SocketMessage]:
    found: dict[str, SocketMessage] = {}
    for p in _overriding("socket_messages"):
        for kind, message in p.socket_messages().items():
            if kind in found:
                raise ValueError(f"socket message type {kind!r} has two owners")
            found[kind] = message
    return found


@cache
def _lobby_filters() -> tuple[LobbyFilter, ...]:
    found: dict[str, LobbyFilter] = {}
    for p in _overriding("lobby_filters"):
        for f in p.lobby_filters():
            if f.key in found:
                raise ValueError(f"lobby filter {f.key!r} has two owners")
            found[f.key] = f
    return tuple(found.values())


@cache
def _review_kinds() -> dict[str, ReviewKind]:
    found: dict[str, ReviewKind] = {}
    for p in _overriding("review_kinds"):
        for kind, rk in p.review_kinds().items():
            if kind in found or kind == "game":
                raise ValueError(f"review kind {kind!r} has two owners")
            found[kind] = rk
    return found


def reload() -> None:
    """Forget the loaded plugins (``GAME_PLUGINS`` changed: a test's
    ``override_settings``)."""
    for fn in (plugins, _overriding, _socket_messages, _lobby_filters, _review_kinds):
        getattr(fn, "cache_clear", lambda: None)()  # a test may have put a plain function


def _setting_changed(*, setting: str, **_: Any) -> None:
    if setting == "GAME_PLUGINS":
        reload()


setting_changed.connect(_setting_changed)


# --- running the hooks ------------------------------------------------------------------


def game_started(game: Game) -> None:
    """Run every ``on_game_start``, in order."""
    for p in _overriding("on_game_start"):
        p.on_game_start(game)


def game_ended(end: GameEnd) -> None:
    """Run every ``on_game_end``, in order."""
    for p in _overriding("on_game_end"):
        p.on_game_end(end)


def turn_extension(game: Game, seat: int) -> timedelta | None:
    """The first ``on_turn_timeout`` extension, or ``None``."""
    for p in _overriding("on_turn_timeout"):
        extension = p.on_turn_timeout(game, seat)
        if extension is not None:
            return extension
    return None


def check_seat(table: Table, user: User | None, moment: Moment) -> None:
    """Ask every seat check in order; the first ``Refused`` propagates."""
    for p in _overriding("check_seat"):
        p.check_seat(table, user, moment)


def check_ready(table: Table, user: User, shown: Mapping[str, Any]) -> None:
    """Ask every ``check_ready`` in order; the first ``Refused`` propagates."""
    for p in _overriding("check_ready"):
        p.check_ready(table, user, shown)


#: a seat's view: a ``games.seatview.SiteView`` (not imported: it imports this module)
V = TypeVar("V", bound=Mapping[str, object])


def add_view_keys(view: V, game_id: int, state: SiteState,
                  seat: int | None, user_id: int | None) -> V:
    """Add every plugin's view keys to ``view`` (in place; returned, its type
    unchanged). The keys are merged as a plain dict: other apps' keys are not
    in ``SiteView``."""
    merged = cast(dict[str, Any], view)  # the same dict, its keys open
    plain = cast(dict[str, Any], state)  # the hook's type (GamePlugin.view_keys)
    for p in _overriding("view_keys"):
        merged.update(p.view_keys(game_id, plain, seat, user_id))
    return view


def add_snapshot_keys(tables: list[Table], rows: dict[int, dict[str, Any]],
                      *, lobby: bool = False) -> None:
    """Add the plugins' snapshot keys to ``rows`` (``{table_id: row}``, in
    place); for lobby rows only each plugin's ``lobby_keys``."""
    if not tables:
        return
    for p in _overriding("snapshot_keys"):
        if lobby and not p.lobby_keys:
            continue
        for table_id, extra in p.snapshot_keys(tables, lobby=lobby).items():
            if table_id in rows:
                rows[table_id].update(
                    {k: v for k, v in extra.items() if k in p.lobby_keys} if lobby else extra)


def lobby_row_keys() -> tuple[str, ...]:
    """Every plugin's ``lobby_keys``: what a snapshot's lobby row keeps."""
    return tuple(k for p in plugins() for k in p.lobby_keys)


def recent_game_keys(user_id: int, seats: dict[int, int]) -> dict[int, dict[str, Any]]:
    """``{game_id: extra keys}`` from every plugin, for ``user_id``'s games
    ``seats`` (``{game_id: the seat they played}``)."""
    extra: dict[int, dict[str, Any]] = {game_id: {} for game_id in seats}
    for p in _overriding("recent_game_keys"):
        for game_id, keys in p.recent_game_keys(user_id, seats).items():
            if game_id in extra:
                extra[game_id].update(keys)
    return extra


def history_filters() -> list[HistoryFilter]:
    """Every plugin's history filters, in ``GAME_PLUGINS`` order (keys unique)."""
    found = [f for p in _overriding("history_filters") for f in p.history_filters()]
    if len({f.key for f in found}) != len(found):
        raise ValueError("two history filters share a key")
    return found


def socket_message(kind: str) -> SocketMessage | None:
    """The handler of table-socket messages of type ``kind``, if any."""
    return _socket_messages().get(kind)


def socket_message_types() -> frozenset[str]:
    """Every table-socket message type a plugin handles (docs/protocol.md)."""
    return frozenset(_socket_messages())


#: a chosen lobby filter: ``(LobbyFilter.query, LobbyFilter.match, the parsed value)``
ChosenFilter = tuple[Callable[["QuerySet[Table]", Any], "QuerySet[Table]"],
                     Callable[[dict[str, Any], Any], bool], Any]


def lobby_filters(params: Mapping[str, Any]) -> list[ChosenFilter]:
    """The filters a request asks for: ``params`` maps query parameters to text
    (a ``QueryDict`` or a dict); ``[(query, match, value)]`` for each filter
    present with a value that parses."""
    chosen: list[ChosenFilter] = []
    for f in _lobby_filters():
        text = params.get(f.key)
        value = f.parse(text) if isinstance(text, str) else None
        if value is not None:
            chosen.append((f.query, f.match, value))
    return chosen


def lobby_filter_form(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The lobby page's filter form: per filter with choices ``{"key", "label",
    "choices": [(text, label)], "current": text or ""}``."""
    return [{"key": f.key, "label": f.label, "choices": list(f.choices),
             "current": params.get(f.key) or ""} for f in _lobby_filters() if f.choices]


def filter_chat(table_id: int, user: User, text: str) -> str:
    """Run every ``filter_chat`` in order; returns the text to send."""
    for p in _overriding("filter_chat"):
        text = p.filter_chat(table_id, user, text)
    return text


def chat_lines(table_id: int, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run every ``chat_lines`` over ``lines`` (in place; returned)."""
    for p in _overriding("chat_lines"):
        p.chat_lines(table_id, lines)
    return lines


def check_name(text: str) -> None:
    """Ask every ``check_name``; the first ``Refused`` propagates."""
    for p in _overriding("check_name"):
        p.check_name(text)


def check_rename(table: Table, user: User, name: str, override: bool) -> None:
    """Ask every ``check_rename``; the first ``Refused`` propagates."""
    for p in _overriding("check_rename"):
        p.check_rename(table, user, name, override)


def connected(table_id: int, user: User | AnonymousUser, address: str | None) -> None:
    """Run every ``on_connect`` (``games.adapters.consumers``)."""
    for p in _overriding("on_connect"):
        p.on_connect(table_id, user, address)


def came_online(user: User | AnonymousUser) -> None:
    """Run every ``on_online`` for a logged-in ``user`` (``games.adapters.consumers``)."""
    if user.is_authenticated:
        for p in _overriding("on_online"):
            p.on_online(user)


def grants_entry(table: Table, user: User | AnonymousUser | None) -> bool:
    """Does any plugin's ``grants_entry`` open ``table`` to a logged-in ``user``?"""
    if user is None or not user.is_authenticated:
        return False
    return any(p.grants_entry(table, user) for p in _overriding("grants_entry"))
def table_opened(table: Table, user: User, params: Mapping[str, Any]) -> None:
    """Run every ``on_table_opened`` (``games.views.create_table``)."""
    for p in _overriding("on_table_opened"):
        p.on_table_opened(table, user, params)


def chat_hidden(user_id: int) -> frozenset[int]:
    """The union of every ``chat_hidden`` for ``user_id``."""
    hidden: frozenset[int] = frozenset()
    for p in _overriding("chat_hidden"):
        hidden |= p.chat_hidden(user_id)
    return hidden


def quick_start_tables(user: User, tables: list[Table]) -> list[Table]:
    """Run every ``quick_start_tables`` over the candidates, in order."""
    for p in _overriding("quick_start_tables"):
        tables = p.quick_start_tables(user, tables)
    return tables


def panels(slot: Slot) -> list[str]:
    """The panel templates of ``slot``, in plugin order
    (``{% plugin_panels "lobby" as found %}``, ``games/templatetags/panels.py``)."""
    return [t for p in _overriding("panels") for t in p.panels(slot)]


def personal_data(user: User) -> dict[str, Any]:
    """Every plugin's :meth:`GamePlugin.personal_data` merged, in plugin order.

    :raises ValueError: two plugins give the same key (a programming error).
    """
    merged: dict[str, Any] = {}
    for p in _overriding("personal_data"):
        for key, value in p.personal_data(user).items():
            if key in merged:
                raise ValueError(f"personal data key {key!r} has two owners")
            merged[key] = value
    return merged


def account_deleted(user: User) -> None:
    """Run every ``on_account_deleted``, in order (``accounts.deletion``)."""
    for p in _overriding("on_account_deleted"):
        p.on_account_deleted(user)


def page_modules() -> list[str]:
    """The table page's plugin JS modules (static paths), in plugin order."""
    return [m for p in _overriding("page_modules") for m in p.page_modules()]


def review_kind(kind: str) -> ReviewKind | None:
    """The plugin-owned review kind ``kind`` (复盘 of a record other than a
    game), or ``None`` if no plugin owns it."""
    return _review_kinds().get(kind)
