"""Read-only questions for pages and sockets (no writes here): a table's chat
history, and a player's finished games.

``recent_games(user)`` backs the profile's "recent games" list: the last games
the user played that are over, each with its result from the user's seat and
the rating-point change from the ledger (``accounts.models.RatingEntry``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q

from accounts.models import RatingEntry
from games import engine
from games.models import ChatMessage, Game

WIN, LOSS, DOUBLE_CLAMP_WIN, DOUBLE_CLAMP_LOSS, ABANDONED, ESCAPED = (
    "win", "loss", "double_clamp_win", "double_clamp_loss", "abandoned", "escaped",
)


@dataclass(frozen=True)
class RecentGame:
    """One line of a player's recent games."""

    game_id: int
    table_id: int
    table_name: str
    ended_at: datetime | None
    seat: int
    result: str  # one of WIN, LOSS, DOUBLE_CLAMP_WIN, DOUBLE_CLAMP_LOSS, ABANDONED, ESCAPED
    practice: bool
    rating_change: int | None  # None for a practice game


def _played_by(user_id: int) -> Q:
    # players is a four-long JSON list; a path lookup per seat works on SQLite and PostgreSQL
    q = Q()
    for i in range(4):
        q |= Q(**{f"players__{i}__user_id": user_id})
    return q


def seat_result(state_result: dict, seat: int) -> str:
    """The result of a finished game from ``seat``'s side (one of the module's codes)."""
    if state_result.get("abandoned_by") is not None:
        return ESCAPED if state_result["abandoned_by"] == seat else ABANDONED
    won = state_result.get("winner") == engine.team_of(seat)
    if state_result.get("double_clamp"):
        return DOUBLE_CLAMP_WIN if won else DOUBLE_CLAMP_LOSS
    return WIN if won else LOSS


def recent_games(user, limit: int = 10) -> list[RecentGame]:
    """The last ``limit`` finished games ``user`` played in, newest first (3 queries)."""
    if user is None or not getattr(user, "is_authenticated", True) or user.pk is None:
        return []
    games = list(
        Game.objects.filter(_played_by(user.pk), status=Game.OVER)
        .select_related("table")
        .only("id", "table__id", "table__name", "ended_at", "players", "practice", "state")
        .order_by("-ended_at", "-pk")[:limit]
    )
    deltas: dict[int, int] = {}
    for game_id, delta in RatingEntry.objects.filter(
        user=user, game_id__in=[g.pk for g in games]
    ).values_list("game_id", "delta"):
        deltas[game_id] = deltas.get(game_id, 0) + delta
    out = []
    for g in games:
        seat = next(i for i, p in enumerate(g.players) if p.get("user_id") == user.pk)
        out.append(
            RecentGame(
                game_id=g.pk,
                table_id=g.table.pk,
                table_name=g.table.name,
                ended_at=g.ended_at,
                seat=seat,
                result=seat_result(g.state.get("result") or {}, seat),
                practice=g.practice,
                rating_change=None if g.practice else deltas.get(g.pk, 0),
            )
        )
    return out


def chat_line(msg: ChatMessage) -> dict[str, Any]:
    """One chat message as sent to clients: ``{"user", "text", "at"}`` (ISO time)."""
    return {"user": msg.user.username, "text": msg.text, "at": msg.created_at.isoformat()}


def chat_history(table_id: int, limit: int = 50) -> list[dict[str, Any]]:
    """The table's last ``limit`` chat lines, oldest first (as :func:`chat_line`)."""
    lines = ChatMessage.objects.filter(table_id=table_id).select_related("user")
    return [chat_line(m) for m in reversed(lines.order_by("-created_at")[:limit])]
