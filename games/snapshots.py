"""Read-side pictures of tables for the lobby and the table page (no writes).

A table snapshot is what every client at a table may know: seats with their
players (name, level, title), bots, ready flags, online flags, spectator count,
status and the current game's id. Nothing from a game's hands is here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict, cast

from django.contrib.auth import get_user_model
from django.db.models import Count, Prefetch, Q, prefetch_related_objects

from accounts import levels
from games import fairness, plugins, presence
from games.access import MODERATORS_GROUP
from games.models import Seat, Table
from games.plugins import ChosenFilter
from games.presence import Entry

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class SnapshotPlayer(TypedDict):
    """A seated player as snapshots and lobby rows show them (level and title
    from their rating points, ``accounts.levels``; ``avatar``, a code of
    ``accounts.models.AVATARS``, in the frame of band ``frame``)."""

    id: int
    username: str
    level: int
    title: str
    title_en: str
    avatar: str
    frame: int


class SeatSnapshot(TypedDict):
    """One seat of a :class:`TableSnapshot` (``player`` ``None``: empty or a bot)."""

    index: int
    player: SnapshotPlayer | None
    bot: bool
    bot_policy: str | None
    ready: bool
    online: bool


class Watcher(TypedDict):
    username: str
    moderator: bool


class Watchers(TypedDict):
    """Who watches: logged-in spectators by name, anonymous ones counted."""

    names: list[Watcher]
    anonymous: int


class TableSnapshot(TypedDict):
    """A table as its clients see it: :func:`table_snapshot`. The keys other
    apps contribute (``GamePlugin.snapshot_keys``) are merged into the same
    dict and left out of this type, as ``games.seatview.SiteView`` leaves
    out other apps' view keys."""

    watchers: Watchers
    id: int
    name: str
    owner: str
    owner_avatar: dict[str, Any]
    owner_id: int
    status: str
    game_id: int | None
    spectators: int
    private: bool
    spectators_allowed: bool
    room_code: str | None
    invite_path: str | None
    next_commitment: str | None
    seats: list[SeatSnapshot]


def _player(user: User | None) -> SnapshotPlayer | None:
    if user is None:
        return None
    level = levels.level_for(user.profile.rating_points)
    return {"id": user.pk, "username": user.username, "level": level,
            "title": levels.title_for(level), "title_en": levels.title_en_for(level),
            "avatar": user.profile.avatar_code, "frame": levels.frame_for(level)}


def _owner_avatar(owner: User) -> dict[str, Any]:
    # the owner comes with its profile (select_related("owner__profile")): no query
    profile = owner.profile
    return {"avatar": profile.avatar_code, "frame": levels.frame_for(profile.level)}


def table_snapshot(table_id: int, table: Table | None = None) -> TableSnapshot | None:
    """The table as its clients see it, or ``None`` if it is gone or closed.

    :param table: the open table's row if the caller has just read it (with
        ``owner__profile``; :func:`games.access.open_table`), so it is not read twice.

    :returns: ``{"id", "name", "owner", "owner_avatar" ({"avatar", "frame"}),
        "owner_id", "status", "game_id",
        "spectators", "watchers" ({"names": [{"username", "moderator"}],
        "anonymous": n}), "private", "spectators_allowed", "room_code" (6 digits,
        private tables only, else ``None``), "invite_path" (likewise),
        "next_commitment" (while it waits: SHA-256 of the next game's server
        seed, games/fairness.py; else ``None``),
        "seats": [{"index", "player" | None, "bot", "bot_policy", "ready",
        "online"} × 4]}`` plus the keys other apps contribute
        (``GamePlugin.snapshot_keys``).
    """
    if table is None:
        table = Table.objects.filter(pk=table_id, closed=False).select_related(
            "owner__profile").first()
    if table is None:
        return None
    # loaded once for the snapshot and every contribution (table.seats.all())
    prefetch_related_objects(
        [table], Prefetch("seats", Seat.objects.select_related("user__profile").order_by("index")))
    seats = list(table.seats.all())
    live = presence.live(table_id)  # presence, not the database (DESIGN.md "Load")
    online_users = {u for _, u in live if u is not None}
    seated = {s.user_id for s in seats if s.user_id}
    not_watching = _not_watching(table, seated)
    watchers, watching = _watchers(live, not_watching)
    if table.private and not table.spectators_allowed:
        # spectators off: invite holders standing here see no game and are not
        # spectators; only the owner and moderators watch
        keep = {n["username"] for n in watchers["names"]
                if n["moderator"] or n["username"] == table.owner.username}
        watchers = Watchers(names=[n for n in watchers["names"] if n["username"] in keep],
                            anonymous=0)
        live = [e for e in live if e[1] in not_watching or watching.get(e[1]) in keep]
    spectators = presence.spectator_count(live, not_watching)
    snap: TableSnapshot = {
        "watchers": watchers,
        "id": table.pk,
        "name": table.name,
        "owner": table.owner.username,
        "owner_avatar": _owner_avatar(table.owner),
        "owner_id": table.owner_id,
        "status": table.status,
        "game_id": table.current_game_id,
        "spectators": spectators,
        "private": table.private,
        "spectators_allowed": table.spectators_allowed,
        # only ever sent to those at the table (all of whom may hold the invite)
        "room_code": table.room_code if table.private else None,
        "invite_path": f"/tables/{table.pk}/?invite={table.invite_token}" if table.private
        else None,
        # the next deal's commitment, shown before anyone readies (games/fairness.py)
        "next_commitment": fairness.commitment(table.next_server_seed)
        if table.status == Table.WAITING and table.next_server_seed else None,
        "seats": [
            {
                "index": s.index,
                "player": _player(s.user),
                "bot": s.is_bot,
                "bot_policy": s.bot_policy or None,
                "ready": s.ready,
                "online": s.is_bot or s.user_id in online_users,
            }
            for s in seats
        ],
    }
    # the plugins' keys are merged untyped, into the same dict
    plugins.add_snapshot_keys([table], {table.pk: cast(dict[str, Any], snap)})
    return snap


def emptied(snap: TableSnapshot) -> bool:
    """Does the table wait with no player seated (bots at most)? Its last
    game's board (刀, scores, badges) is then not shown to newcomers
    (``games.seatview.game_view``; static/js/state.js ``emptied`` likewise)."""
    return snap["status"] == Table.WAITING and not any(s["player"] for s in snap["seats"])


def _not_watching(table: Table, seated: set[int]) -> set[int]:
    """Users at the table who are not spectators: the seated ones, and the
    owner of a waiting table, standing at it to run it (the owner alone once
    showed as "1 watching")."""
    return seated | {table.owner_id} if table.status == Table.WAITING else seated


def _watchers(live: list[Entry],
              seated: set[int]) -> tuple[Watchers, dict[int | None, str]]:
    """Who watches: logged-in spectators by name, moderators marked,
    anonymous ones only counted; and their usernames by id. One query, and
    none when nobody is logged in."""
    ids = {u for _, u in live if u is not None and u not in seated}
    anonymous = sum(1 for _, u in live if u is None)
    names: list[Watcher] = []
    by_id: dict[int | None, str]
    if ids:
        users = (get_user_model().objects.filter(pk__in=ids).order_by("username")
                 .annotate(mod=Count("groups", filter=Q(groups__name=MODERATORS_GROUP))))
        names = [{"username": u.username, "moderator": bool(u.mod) or u.is_superuser}
                 for u in users]
        by_id = {u.pk: u.username for u in users}
    else:
        by_id = {}
    return Watchers(names=names, anonymous=anonymous), by_id


def lobby_row(snap: Mapping[str, Any]) -> dict[str, Any]:
    """The lobby's row for a table snapshot (the same data, seats by
    :func:`_lobby_seat`: no online flags or bot policies, no ready flag while
    it plays; contributed keys only from contributions registered with
    ``lobby=True``)."""
    row = {k: snap[k] for k in ("id", "name", "owner", "owner_avatar", "status", "spectators")}
    row["seats"] = [_lobby_seat(s["index"], s["player"], s["bot"], s["ready"], snap["status"])
                    for s in snap["seats"]]
    for key in plugins.lobby_row_keys():
        if key in snap:
            row[key] = snap[key]
    return row


def _lobby_seat(index: int, player: SnapshotPlayer | None, bot: bool, ready: bool,
                status: str) -> dict[str, Any]:
    """One seat of a lobby row: ``{"index", "player", "bot", "ready"}``.

    ``ready`` is false while the table plays: a ready flag says who is ready
    for the next game (docs/protocol.md, "Lobby"), which mid-game reads as
    if the game were waiting. Decided here, once, for both renderers of a row
    (the lobby page's template and ``static/js/lobby.js``).
    """
    return {"index": index, "player": player, "bot": bot,
            "ready": ready and status != Table.PLAYING}


def lobby_rows(limit: int = 200, filters: Sequence[ChosenFilter] = (), *,
               private: bool = False) -> list[dict[str, Any]]:
    """Every open table's lobby row, newest first (a bounded number of queries).

    :param filters: ``plugins.lobby_filters(request params)``: only the
        tables every filter's query keeps (filtered in the database).
    :param private: include the private tables too, each row then with
        ``private`` and ``spectators_allowed`` (the moderators' console, which
        may watch any table); the lobby never lists them.
    """
    found = Table.objects.filter(closed=False)
    if not private:
        found = found.filter(private=False)  # 好友房 are never listed in the lobby
    for query, _match, value in filters:
        found = query(found, value)
    tables = list(
        found
        .select_related("owner__profile")
        .order_by("-created_at", "-pk")
        .prefetch_related("seats__user__profile")[:limit]
    )
    live = presence.live_many([t.pk for t in tables])  # one round trip for them all
    rows: dict[int, dict[str, Any]] = {}
    for t in tables:
        seats = sorted(t.seats.all(), key=lambda s: s.index)
        seated = {s.user_id for s in seats if s.user_id}
        rows[t.pk] = (
            {
                "id": t.pk,
                "name": t.name,
                "owner": t.owner.username,
                "owner_avatar": _owner_avatar(t.owner),
                "status": t.status,
                "spectators": presence.spectator_count(live[t.pk], _not_watching(t, seated)),
                "seats": [_lobby_seat(s.index, _player(s.user), s.is_bot, s.ready, t.status)
                          for s in seats],
            }
        )
        if private:
            rows[t.pk].update(private=t.private, spectators_allowed=t.spectators_allowed)
    plugins.add_snapshot_keys(tables, rows, lobby=True)
    return list(rows.values())
