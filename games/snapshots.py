"""Read-side pictures of tables for the lobby and the table page (no writes).

A table snapshot is what every client at a table may know: seats with their
players (name, level, title), bots, ready flags, online flags, spectator count,
status and the current game's id. Nothing from a game's hands is here.
"""

from __future__ import annotations

from typing import Any

from accounts import levels
from games import presence
from games.models import Table


def _player(user) -> dict[str, Any]:
    level = levels.level_for(user.profile.rating_points)
    return {"id": user.pk, "username": user.username, "level": level,
            "title": levels.title_for(level), "title_en": levels.title_en_for(level)}


def table_snapshot(table_id: int) -> dict[str, Any] | None:
    """The table as its clients see it, or ``None`` if it is gone or closed.

    :returns: ``{"id", "name", "owner", "status", "game_id", "spectators",
        "seats": [{"index", "player" | None, "bot", "ready", "online"} × 4]}``.
    """
    table = (
        Table.objects.filter(pk=table_id, closed=False).select_related("owner").first()
    )
    if table is None:
        return None
    seats = list(table.seats.select_related("user__profile").order_by("index"))
    live = presence.live(table_id)
    online_users = {u for _, u in live if u is not None}
    seated = {s.user_id for s in seats if s.user_id}
    spectators = presence.spectator_count(live, seated)
    return {
        "id": table.pk,
        "name": table.name,
        "owner": table.owner.username,
        "status": table.status,
        "game_id": table.current_game_id,
        "spectators": spectators,
        "seats": [
            {
                "index": s.index,
                "player": _player(s.user) if s.user_id else None,
                "bot": s.is_bot,
                "ready": s.ready,
                "online": s.is_bot or s.user_id in online_users,
            }
            for s in seats
        ],
    }


def lobby_row(snap: dict[str, Any]) -> dict[str, Any]:
    """The lobby's row for a table snapshot (the same data, no online flags)."""
    return {k: snap[k] for k in ("id", "name", "owner", "status", "spectators", "seats")}


def lobby_rows(limit: int = 200) -> list[dict[str, Any]]:
    """Every open table's lobby row, newest first (a bounded number of queries)."""
    tables = list(
        Table.objects.filter(closed=False)
        .select_related("owner")
        .order_by("-created_at", "-pk")
        .prefetch_related("seats__user__profile")[:limit]
    )
    live = presence.live_many([t.pk for t in tables])
    rows = []
    for t in tables:
        seats = sorted(t.seats.all(), key=lambda s: s.index)
        seated = {s.user_id for s in seats if s.user_id}
        rows.append(
            {
                "id": t.pk,
                "name": t.name,
                "owner": t.owner.username,
                "status": t.status,
                "spectators": presence.spectator_count(live[t.pk], seated),
                "seats": [
                    {"index": s.index, "player": _player(s.user) if s.user_id else None,
                     "bot": s.is_bot, "ready": s.ready}
                    for s in seats
                ],
            }
        )
    return rows
