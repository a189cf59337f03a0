"""The lifecycle seam: how other apps plug into the game without editing it
(DESIGN.md "The lifecycle seam"; modelled on Lichess's Finisher and Baserow's
signals).

Apps register in their ``AppConfig.ready()``. Every registry runs its entries
in ascending ``priority`` (ties: registration order), never in
``INSTALLED_APPS`` order:

- :func:`on_game_end` — ``hook(end: GameEnd) -> None``, run inside the one
  transaction that ends the game, once per game, whatever ended it. A hook
  handles its own business cases (an insolvent payer, a full inventory) and
  never raises for them; an exception means a bug and rolls the ending back.
- :func:`on_game_start` — ``hook(game: Game) -> None``, run inside the
  transaction that starts a game (``games.play.start_game``: the table row
  locked, the ``Game`` and its ``GameSeat`` rows written, ``seat_rows(game)``
  loaded), before the first views go out; e.g. the wager's held stake. Like
  a game-end hook it handles its own business cases and never raises for
  them; an exception rolls the start back.
- :func:`on_turn_timeout` — ``hook(game, seat) -> timedelta | None``, asked
  (under the game's row lock) before the RULES.md §8 timeout action; the first
  to return a duration extends the turn by it instead (the 定时器).
- :func:`seat_policy` — ``policy(table, user, moment) -> None`` with
  ``moment`` ``"sit"``, ``"start"`` (the fourth ready), ``"game_end"`` (in the
  finisher, after the game-end hooks) or ``"bot"`` (adding a bot; ``user``
  ``None``); raising :class:`~games.errors.Refused` refuses the seat or the
  bot, or at a start or a game's end stands that player up (they get a
  ``notice`` with the reason and its ``params``).
- :func:`view_contribution` — ``fn(game_id, state, seat, user_id) -> dict``:
  keys added to that seat's game view (``seat`` ``None``: a spectator).
- :func:`recent_game_contribution` — ``fn(user_id, seats) -> {game_id:
  dict}`` with ``seats`` ``{game_id: seat}``: keys added to a player's recent
  games (``games.queries.RecentGame.extra``, the profile page); batched.
- :func:`snapshot_contribution` — ``fn(tables) -> {table_id: dict}``: keys
  added to table snapshots, and to lobby rows for the keys registered in
  ``lobby``; batched so the lobby's 200 rows cost one query per app.
- :func:`lobby_filter` — a lobby query parameter (``?wager=40``) with
  ``parse(text) -> value | None``, ``query(tables, value) -> tables`` (a
  ``Table`` queryset, so the lobby filters in the database) and
  ``match(row, value) -> bool`` (for the rows the lobby socket streams).
- :func:`socket_message` — ``handler(ctx: SocketContext, msg: dict) -> dict |
  None`` for a table-socket message type, with its own validation and reason
  codes (raise ``Refused``); the reply, if any, goes back to that connection.
- :func:`chat_policy` — ``policy(table_id, user, text) -> str``: asked before a
  chat line is stored and sent; raise ``Refused`` to refuse it (a mute) or
  return the text to send (a word filter masks; the raw line is stored).
- :func:`chat_line_contribution` — ``fn(table_id, lines) -> None``: edits
  chat lines as sent (live and history) in place, e.g. a badge, or masking
  the stored raw text.
- :func:`name_policy` — ``policy(text) -> None``: asked for every table name
  (creation and rename); raise ``Refused`` to refuse it (a blocked word).
- :func:`rename_policy` — ``policy(table, user, name, override) -> None``:
  asked before a table is renamed (``games.tables.rename``); ``override`` is a
  moderator's rename, which a policy must let through (clearing any
  protection it keeps, e.g. a 招牌).
- :func:`on_connect` — ``fn(table_id, user, address) -> None``: a table
  socket connected (``address``: the client address in the ASGI scope, which
  Daphne's ``--proxy-headers`` takes from the trusted proxy), e.g. keep its
  keyed hash for same-address signals.
- :func:`close_sockets` — close every open connection of one user (after a
  final ``notice``), e.g. a suspended account's.
- :func:`subscribe` / :func:`publish` — after-commit events: the write
  modules publish, the transports (``games.broadcast``, ``games.scheduler``)
  subscribe, so nothing that writes imports a transport.
- :func:`send_user` — the per-user channel (issue 16): after commit, one frame
  to every open connection of one person, on every page they have open (the
  table's socket, the lobby's, or ``/ws/me/`` on pages without one of their
  own); :func:`notify` sends a ``notice`` on it. Frame types:
  docs/protocol.md "The per-user channel".

Events published (payload keyword arguments): ``table_changed(table_id)``,
``table_closed(table_id, notice=None)`` (``notice``: a frame every client
at the table is sent before its connection closes),
``close_sockets(user_id, notice)``, ``game_changed(game)`` (a snapshot of the game row
as committed), ``chat(table_id, line)``, ``notice(user_id, notice)``,
``user_frame(user_id, frame)`` (:func:`send_user`), ``me_changed(user_ids)``
(a person's own figures changed: coins, held coins, rating points; published
by ``shop.ledger`` for every movement and by rating settlement; ``accounts.live``
answers with a ``me`` frame to each).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.db import transaction

if TYPE_CHECKING:
    from games.models import Game, Table

# --- registries -------------------------------------------------------------------


@dataclass(order=True)
class _Entry:
    priority: int
    order: int
    fn: Callable[..., Any] = field(compare=False)
    options: dict[str, Any] = field(compare=False, default_factory=dict)


class Registry:
    """Entries run in ascending ``priority``, ties in registration order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._entries: list[_Entry] = []

    def add(self, fn: Callable[..., Any], priority: int, **options: Any) -> Callable[..., Any]:
        """Register ``fn`` (idempotent for the same function: ``ready()`` may run twice)."""
        if any(e.fn is fn for e in self._entries):
            return fn
        self._entries.append(_Entry(priority, len(self._entries), fn, options))
        self._entries.sort()
        return fn

    def remove(self, fn: Callable[..., Any]) -> None:
        """Unregister ``fn`` (tests)."""
        self._entries = [e for e in self._entries if e.fn is not fn]

    def __iter__(self):
        return iter(list(self._entries))

    def functions(self) -> list[Callable[..., Any]]:
        """The registered functions, in running order."""
        return [e.fn for e in self._entries]


GAME_START = Registry("game_start")
GAME_END = Registry("game_end")
TURN_TIMEOUT = Registry("turn_timeout")
SEAT_POLICIES = Registry("seat_policy")
VIEW_CONTRIBUTIONS = Registry("view")
SNAPSHOT_CONTRIBUTIONS = Registry("snapshot")
RECENT_GAME_CONTRIBUTIONS = Registry("recent_game")
CHAT_POLICIES = Registry("chat_policy")
CHAT_LINES = Registry("chat_lines")
NAME_POLICIES = Registry("name_policy")
RENAME_POLICIES = Registry("rename_policy")
CONNECT = Registry("connect")
SOCKET_MESSAGES: dict[str, tuple[Callable[..., Any], str | None, bool]] = {}
LOBBY_FILTERS: dict[str, LobbyFilter] = {}
_SUBSCRIBERS: dict[str, Registry] = {}


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
    reason: str
    result: dict[str, Any]
    seats: list[Any]
    record: dict[str, Any]

    @property
    def rated(self) -> bool:
        """Four people played (RULES.md §7): rating, coins and drops may move."""
        return not self.game.practice


@dataclass(frozen=True)
class SocketContext:
    """Who sent a table-socket message: ``user`` (may be anonymous),
    ``table_id`` and the connection's ``channel_name``."""

    user: Any
    table_id: int
    channel_name: str


def on_game_start(hook: Callable[[Game], None], priority: int) -> Callable[[Game], None]:
    """Register a game-start hook (see the module docstring)."""
    return GAME_START.add(hook, priority)


def on_game_end(hook: Callable[[GameEnd], None], priority: int) -> Callable[[GameEnd], None]:
    """Register a game-end hook (see the module docstring)."""
    return GAME_END.add(hook, priority)


def on_turn_timeout(
    hook: Callable[[Game, int], timedelta | None], priority: int
) -> Callable[[Game, int], timedelta | None]:
    """Register a turn-timeout hook (see the module docstring)."""
    return TURN_TIMEOUT.add(hook, priority)


def seat_policy(policy: Callable[[Table, Any, str], None], priority: int) -> Callable[..., None]:
    """Register a seat policy (see the module docstring)."""
    return SEAT_POLICIES.add(policy, priority)


def view_contribution(fn: Callable[..., dict[str, Any]], priority: int = 100) -> Callable:
    """Register a contribution to per-seat game views."""
    return VIEW_CONTRIBUTIONS.add(fn, priority)


def snapshot_contribution(
    fn: Callable[[list[Table]], dict[int, dict[str, Any]]], priority: int = 100,
    *, lobby: tuple[str, ...] = (),
) -> Callable:
    """Register a contribution to table snapshots; the keys named in ``lobby``
    also go into lobby rows."""
    return SNAPSHOT_CONTRIBUTIONS.add(fn, priority, lobby=bool(lobby), keys=tuple(lobby))


def recent_game_contribution(fn: Callable[[int, dict[int, int]], dict[int, dict[str, Any]]],
                             priority: int = 100) -> Callable:
    """Register a contribution to players' recent games (see the module docstring)."""
    return RECENT_GAME_CONTRIBUTIONS.add(fn, priority)


def chat_policy(policy: Callable[[int, Any, str], str], priority: int) -> Callable:
    """Register a chat policy (see the module docstring)."""
    return CHAT_POLICIES.add(policy, priority)


def chat_line_contribution(fn: Callable[[int, list[dict[str, Any]]], None],
                           priority: int = 100) -> Callable:
    """Register a chat-line contribution (see the module docstring)."""
    return CHAT_LINES.add(fn, priority)


def name_policy(policy: Callable[[str], None], priority: int = 100) -> Callable:
    """Register a table-name policy (see the module docstring)."""
    return NAME_POLICIES.add(policy, priority)


def rename_policy(policy: Callable[..., None], priority: int = 100) -> Callable:
    """Register a rename policy (see the module docstring)."""
    return RENAME_POLICIES.add(policy, priority)


def on_connect(fn: Callable[[int, Any, str | None], None], priority: int = 100) -> Callable:
    """Register a table-socket connect hook (see the module docstring)."""
    return CONNECT.add(fn, priority)


def socket_message(kind: str, handler: Callable[[SocketContext, dict], dict | None], *,
                   rate: str | None = "act", login: bool = True) -> Callable:
    """Register the handler of table-socket messages of type ``kind``.

    :param rate: the per-user rate-limit bucket (``"act"``: actions, ``"chat"``;
        ``None``: none), see ``GAMES_ACTION_RATE`` / ``GAMES_CHAT_RATE``.
    :param login: anonymous senders are refused with ``login_required``.
    :raises ValueError: if another handler already owns ``kind``.
    """
    known = SOCKET_MESSAGES.get(kind)
    if known is not None and known[0] is not handler:
        raise ValueError(f"socket message type {kind!r} is already handled")
    SOCKET_MESSAGES[kind] = (handler, rate, login)
    return handler


@dataclass(frozen=True)
class LobbyFilter:
    """A registered lobby filter (see :func:`lobby_filter`)."""

    key: str
    parse: Callable[[str], Any]
    query: Callable[..., Any]
    match: Callable[[dict[str, Any], Any], bool]
    label: Any = ""
    choices: tuple[tuple[str, Any], ...] = ()


def lobby_filter(key: str, parse: Callable[[str], Any], query: Callable[..., Any],
                 match: Callable[[dict[str, Any], Any], bool], *, label: Any = "",
                 choices: tuple[tuple[str, Any], ...] = ()) -> None:
    """Register the lobby filter named by the query parameter ``key``.

    :param parse: ``text -> value``, or ``None`` for text that is no value
        (the filter is then not applied).
    :param query: ``(tables, value) -> tables`` on a ``Table`` queryset.
    :param match: ``(lobby row, value) -> bool``, the same test on a row.
    :param label, choices: for the lobby page's filter form: its label and
        ``(text, label)`` options (``text`` as ``parse`` reads it).
    :raises ValueError: if another app already owns ``key``.
    """
    known = LOBBY_FILTERS.get(key)
    if known is not None and known.parse is not parse:
        raise ValueError(f"lobby filter {key!r} is already registered")
    LOBBY_FILTERS[key] = LobbyFilter(key, parse, query, match, label, tuple(choices))


def lobby_filters(params: Any) -> list[tuple[Callable[..., Any], Callable[..., bool], Any]]:
    """The filters a request asks for: ``params`` maps query parameters to text
    (a ``QueryDict`` or a dict); returns ``[(query, match, value)]`` for each
    registered key present with a value that parses."""
    chosen = []
    for f in LOBBY_FILTERS.values():
        text = params.get(f.key)
        value = f.parse(text) if isinstance(text, str) else None
        if value is not None:
            chosen.append((f.query, f.match, value))
    return chosen


def lobby_filter_form(params: Any) -> list[dict[str, Any]]:
    """The lobby page's filter form: per registered filter with choices
    ``{"key", "label", "choices": [(text, label)], "current": text or ""}``."""
    return [{"key": f.key, "label": f.label, "choices": list(f.choices),
             "current": params.get(f.key) or ""} for f in LOBBY_FILTERS.values() if f.choices]


# --- after-commit events ------------------------------------------------------------


def subscribe(event: str, fn: Callable[..., None], priority: int = 100) -> Callable[..., None]:
    """Call ``fn(**payload)`` after each commit that published ``event``."""
    return _SUBSCRIBERS.setdefault(event, Registry(event)).add(fn, priority)


def publish(event: str, **payload: Any) -> None:
    """Tell ``event``'s subscribers once the current transaction commits (at
    once outside one); nothing is announced that was not committed."""
    subscribers = _SUBSCRIBERS.get(event)
    if subscribers is None:
        return
    fns = subscribers.functions()
    transaction.on_commit(lambda: [fn(**payload) for fn in fns])


# --- running the registries -------------------------------------------------------------


def contribute_view(view: dict[str, Any], game_id: int, state: dict[str, Any],
                    seat: int | None, user_id: int | None) -> dict[str, Any]:
    """Add every registered contribution's keys to ``view`` (in place; returned)."""
    for entry in VIEW_CONTRIBUTIONS:
        view.update(entry.fn(game_id, state, seat, user_id) or {})
    return view


def contribute_snapshots(tables: list[Table], rows: dict[int, dict[str, Any]],
                         *, lobby: bool = False) -> None:
    """Add the registered snapshot keys to ``rows`` (``{table_id: row}``, in
    place); for lobby rows only the contributions registered with ``lobby``."""
    if not tables:
        return
    for entry in SNAPSHOT_CONTRIBUTIONS:
        keys = entry.options.get("keys", ())
        if lobby and not keys:
            continue
        for table_id, extra in (entry.fn(tables) or {}).items():
            if table_id in rows:
                rows[table_id].update({k: v for k, v in extra.items() if not lobby or k in keys})


def contribute_recent_games(user_id: int, seats: dict[int, int]) -> dict[int, dict[str, Any]]:
    """``{game_id: extra keys}`` from every recent-game contribution, for
    ``user_id``'s games ``seats`` (``{game_id: the seat they played}``)."""
    extra: dict[int, dict[str, Any]] = {game_id: {} for game_id in seats}
    for entry in RECENT_GAME_CONTRIBUTIONS:
        for game_id, keys in (entry.fn(user_id, seats) or {}).items():
            if game_id in extra:
                extra[game_id].update(keys)
    return extra


def check_seat(table: Table, user: Any, moment: str) -> None:
    """Ask every seat policy; the first ``Refused`` propagates."""
    for entry in SEAT_POLICIES:
        entry.fn(table, user, moment)


def filter_chat(table_id: int, user: Any, text: str) -> str:
    """Run the chat policies in order; returns the text to send."""
    for entry in CHAT_POLICIES:
        text = entry.fn(table_id, user, text)
    return text


def contribute_chat_lines(table_id: int, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run the chat-line contributions over ``lines`` (in place; returned)."""
    for entry in CHAT_LINES:
        entry.fn(table_id, lines)
    return lines


def check_name(text: str) -> None:
    """Ask every name policy; the first ``Refused`` propagates."""
    for entry in NAME_POLICIES:
        entry.fn(text)


def check_rename(table: Table, user: Any, name: str, override: bool) -> None:
    """Ask every rename policy; the first ``Refused`` propagates."""
    for entry in RENAME_POLICIES:
        entry.fn(table, user, name, override)


def connected(table_id: int, user: Any, address: str | None) -> None:
    """Run the connect hooks (``games.consumers``)."""
    for entry in CONNECT:
        entry.fn(table_id, user, address)


def close_sockets(user_id: int, notice: dict[str, Any] | None = None) -> None:
    """After commit, send ``notice`` (if any) to every open connection of
    ``user_id`` and close them (code 4403, docs/protocol.md)."""
    publish("close_sockets", user_id=user_id, notice=notice)


def notify(user_id: int, code: str, message: str, params: dict[str, Any] | None = None) -> None:
    """Tell one person something that is not a view change (after commit):
    ``{"type": "notice", "code", "message", "params"}`` to every open
    connection of theirs, on every page (the per-user channel, docs/protocol.md)."""
    publish("notice", user_id=user_id,
            notice={"type": "notice", "code": code, "message": message, "params": params or {}})


def send_user(user_id: int, frame: dict[str, Any]) -> None:
    """Send ``frame`` (a JSON object with a string ``type``, documented in
    docs/protocol.md "The per-user channel") to every open connection of
    ``user_id`` — every page they have open — once the current transaction
    commits (at once outside one). Nothing is queued for a person with no
    connection open."""
    publish("user_frame", user_id=user_id, frame=frame)


def me_changed(user_ids: Any) -> None:
    """After commit, send each of ``user_ids`` a fresh ``me`` frame (their coins,
    held coins, rating points and level: the header of every page). Publish it
    wherever those figures change; a caller outside a transaction sends at once."""
    ids = sorted({u for u in user_ids if u})
    if ids:
        publish("me_changed", user_ids=ids)
