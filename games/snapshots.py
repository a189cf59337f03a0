"""Read-side pictures of tables for the lobby and the table page (no writes).

A table snapshot is what every client at a table may know: seats with their
players (name, level, title), bots, ready flags, online flags, spectator count,
status and the current game's id. Nothing from a game's hands is here.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q

from accounts import levels
from games import lifecycle
from games.models import Presence, Table
from games.presence import online_cutoff


def _player(user) -> dict[str, Any]:
    level = levels.level_for(user.profile.rating_points)
    return {"id": user.pk, "username": user.username, "level": level,
            "title": levels.title_for(level), "title_en": levels.title_en_for(level)}


def table_snapshot(table_id: int) -> dict[str, Any] | None:
    """The table as its clients see it, or ``None`` if it is gone or closed.

    :returns: ``{"id", "name", "owner", "owner_id", "status", "game_id",
        "spectators", "seats": [{"index", "player" | None, "bot", "bot_policy",
        "ready", "online"} × 4]}`` plus the keys other apps contribute
        (``lifecycle.snapshot_contribution``).
    """
    table = (
        Table.objects.filter(pk=table_id, closed=False).select_related("owner").first()
    )
    if table is None:
        return None
    seats = list(table.seats.select_related("user__profile").order_by("index"))
    cutoff = online_cutoff()
    live = Presence.objects.filter(table_id=table_id, last_seen__gte=cutoff)
    online_users = set(live.exclude(user=None).values_list("user_id", flat=True))
    seated = {s.user_id for s in seats if s.user_id}
    spectators = live.exclude(user_id__in=seated).values("channel_name").count()
    snap = {
        "id": table.pk,
        "name": table.name,
        "owner": table.owner.username,
        "owner_id": table.owner_id,
        "status": table.status,
        "game_id": table.current_game_id,
        "spectators": spectators,
        "seats": [
            {
                "index": s.index,
                "player": _player(s.user) if s.user_id else None,
                "bot": s.is_bot,
                "bot_policy": s.bot_policy or None,
                "ready": s.ready,
                "online": s.is_bot or s.user_id in online_users,
            }
            for s in seats
        ],
    }
    lifecycle.contribute_snapshots([table], {table.pk: snap})
    return snap


def lobby_row(snap: dict[str, Any]) -> dict[str, Any]:
    """The lobby's row for a table snapshot (the same data, no online flags;
    contributed keys only from contributions registered with ``lobby=True``)."""
    row = {k: snap[k] for k in ("id", "name", "owner", "status", "spectators", "seats")}
    for entry in lifecycle.SNAPSHOT_CONTRIBUTIONS:
        if entry.options.get("lobby"):
            for key in entry.options.get("keys", ()):
                if key in snap:
                    row[key] = snap[key]
    return row


def lobby_rows(limit: int = 200, filters=()) -> list[dict[str, Any]]:
    """Every open table's lobby row, newest first (a bounded number of queries).

    :param filters: ``lifecycle.lobby_filters(request params)``: only the
        tables every filter's query keeps (filtered in the database).
    """
    cutoff = online_cutoff()
    found = Table.objects.filter(closed=False)
    for query, _match, value in filters:
        found = query(found, value)
    tables = list(
        found
        .select_related("owner")
        .annotate(watchers=Count("presences", filter=Q(presences__last_seen__gte=cutoff)))
        .order_by("-created_at", "-pk")  # Meta.ordering is not applied to GROUP BY queries
        .prefetch_related("seats__user__profile")[:limit]
    )
    rows: dict[int, dict[str, Any]] = {}
    for t in tables:
        seats = sorted(t.seats.all(), key=lambda s: s.index)
        seated = sum(1 for s in seats if s.user_id)
        rows[t.pk] = (
            {
                "id": t.pk,
                "name": t.name,
                "owner": t.owner.username,
                "status": t.status,
                "spectators": max(0, t.watchers - seated),
                "seats": [
                    {"index": s.index, "player": _player(s.user) if s.user_id else None,
                     "bot": s.is_bot, "ready": s.ready}
                    for s in seats
                ],
            }
        )
    lifecycle.contribute_snapshots(tables, rows, lobby=True)
    return list(rows.values())
