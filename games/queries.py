"""Read-only questions for pages and sockets (no writes here): a table's chat
history, a player's finished games, and the tables 快速开始 may choose.

``recent_games(user)`` backs the profile's "recent games" list: the last games
the user played that are over, each with its result from the user's seat and
the rating-point change from the ledger (``accounts.models.RatingEntry``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db.models import Count, Q

from accounts.models import RatingEntry
from games import engine, plugins
from games.models import ChatMessage, Game, GameSeat, Seat, Table

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

WIN, LOSS, DOUBLE_CLAMP_WIN, DOUBLE_CLAMP_LOSS, ABANDONED, ESCAPED = (
    "win", "loss", "double_clamp_win", "double_clamp_loss", "abandoned", "escaped",
)


@dataclass(frozen=True)
class RecentGame:
    """One line of a player's recent games."""

    game_id: int
    table_id: int
    table_name: str  # as it was when the game was played (Game.played_name)
    ended_at: datetime | None
    seat: int
    result: str  # one of WIN, LOSS, DOUBLE_CLAMP_WIN, DOUBLE_CLAMP_LOSS, ABANDONED, ESCAPED
    practice: bool
    rating_change: int | None  # None for a practice game
    # keys the plugins add (GamePlugin.recent_game_keys), e.g. shop's coin_change
    extra: dict[str, Any] = field(default_factory=dict)


def seat_result(state_result: Mapping[str, Any], seat: int) -> str:
    """The result of a finished game from ``seat``'s side (one of the module's codes).

    :param state_result: the state's ``result`` (``engine.Result``), or ``{}``.
    """
    reason = state_result.get("reason") or (
        "escape" if state_result.get("abandoned_by") is not None else "normal")
    if reason != "normal":  # an escape, or a moderator's close or kick, a suspension
        return ESCAPED if reason == "escape" and state_result["abandoned_by"] == seat else ABANDONED
    won = state_result.get("winner") == engine.team_of(seat)
    if state_result.get("double_clamp"):
        return DOUBLE_CLAMP_WIN if won else DOUBLE_CLAMP_LOSS
    return WIN if won else LOSS


def recent_games(user: User | AnonymousUser | None, limit: int = 10) -> list[RecentGame]:
    """The last ``limit`` finished games ``user`` played in, newest first (2
    queries, plus one per recent-game contribution; the ``GameSeat`` (user, game)
    index serves the first)."""
    if user is None or not user.is_authenticated or user.pk is None:
        return []
    seats = list(
        GameSeat.objects.filter(user=user, game__status=Game.OVER)
        .select_related("game__table")
        .only("index", "game__id", "game__table__id", "game__table__name", "game__ended_at",
              "game__table_name", "game__practice", "game__state")
        .order_by("-game__ended_at", "-game_id")[:limit]
    )
    games = [s.game for s in seats]
    seat_by_game = {s.game_id: s.index for s in seats}
    deltas: dict[int, int] = {}
    for game_id, delta in RatingEntry.objects.filter(
        user=user, game_id__in=[g.pk for g in games]
    ).values_list("game_id", "delta"):
        deltas[game_id] = deltas.get(game_id, 0) + delta
    extra = plugins.recent_game_keys(user.pk, seat_by_game)
    out = []
    for g in games:
        seat = seat_by_game[g.pk]
        out.append(
            RecentGame(
                game_id=g.pk,
                table_id=g.table.pk,
                table_name=g.played_name,
                ended_at=g.ended_at,
                seat=seat,
                result=seat_result(engine.upgrade(g.state).get("result") or {}, seat),
                practice=g.practice,
                rating_change=None if g.practice else deltas.get(g.pk, 0),
                extra=extra[g.pk],
            )
        )
    return out


def chat_line(msg: ChatMessage) -> dict[str, Any]:
    """One chat message as stored: ``{"id", "user_id", "user", "text", "at"}``
    (ISO time; the raw text, before the chat-line contributions)."""
    return {"id": msg.pk, "user_id": msg.user_id, "user": msg.user.username, "text": msg.text,
            "at": msg.created_at.isoformat()}


def chat_history(table_id: int, limit: int = 50) -> list[dict[str, Any]]:
    """The table's last ``limit`` chat lines as sent, oldest first (:func:`chat_line`
    through ``plugins.chat_lines``: badges, masking)."""
    lines = ChatMessage.objects.filter(table_id=table_id).select_related("user")
    rows = [chat_line(m) for m in reversed(lines.order_by("-created_at", "-pk")[:limit])]
    return plugins.chat_lines(table_id, rows)


def quick_start_tables(limit: int = 50) -> list[Table]:
    """Candidates for 快速开始 (``games.tables.quick_start``), best first:
    open, public, waiting tables with an empty seat and no bot, ordered by the
    people seated, most first, then the oldest. Tables where nobody sits are
    left out (quick start looks for company; ``games.tables.quick_start`` also
    skips those whose seated players are all offline), and so is any table
    with a bot: a bot makes a practice game (RULES.md §7), someone else's, not company
    (a player was once seated at a finished bot table).
    """
    return list(
        Table.objects.filter(closed=False, private=False, status=Table.WAITING)
        .exclude(seats__is_bot=True)
        .annotate(people=Count("seats", filter=Q(seats__user__isnull=False)))
        .filter(people__gt=0, people__lt=4)
        .order_by("-people", "created_at", "pk")[:limit]
    )


def first_empty_seat(table_id: int) -> int | None:
    """The lowest empty seat index of the table, or ``None``."""
    return (Seat.objects.filter(table_id=table_id, user__isnull=True, is_bot=False)
            .order_by("index").values_list("index", flat=True).first())


def own_empty_table(user: User) -> Table | None:
    """The oldest open waiting table ``user`` owns where nobody sits, or ``None``."""
    return (Table.objects.filter(owner=user, closed=False, status=Table.WAITING, private=False)
            .exclude(seats__user__isnull=False).exclude(seats__is_bot=True)
            .order_by("created_at", "pk").first())


def running_table(user: User | AnonymousUser) -> Table | None:
    """The open table whose running game ``user`` plays, or ``None`` (one seat
    per person, RULES.md §12): the lobby links back to it."""
    if not user.is_authenticated:
        return None
    return (Table.objects.filter(seats__user=user, status=Table.PLAYING, closed=False)
            .only("pk", "name").first())


def current_game_id(table_id: int) -> int | None:
    """The id of the game running (or last played) at the table, or ``None``
    (the one query every caller uses: one indexed read of the table row)."""
    return Table.objects.filter(pk=table_id).values_list("current_game", flat=True).first()


def personal_games(user: User) -> list[dict[str, Any]]:
    """Every finished game ``user`` played, oldest first, for their own data
    download (``GamePlugin.personal_data``): ``{"id", "table", "seat",
    "practice", "end_reason", "started_at", "ended_at" (ISO), "record"}``,
    ``record`` the game's RULES.md §11 record as stored (public once the game
    is over, RULES.md §12; a running game's never). One query, streamed."""
    rows = (GameSeat.objects.filter(user=user, game__status=Game.OVER)
            .select_related("game").order_by("game__ended_at", "game_id")
            .only("index", "game__id", "game__table_name", "game__practice",
                  "game__end_reason", "game__started_at", "game__ended_at", "game__record",
                  "game__table_id"))
    return [{"id": s.game.pk, "table": s.game.table_name, "seat": s.index,
             "practice": s.game.practice, "end_reason": s.game.end_reason,
             "started_at": s.game.started_at.isoformat(),
             "ended_at": s.game.ended_at.isoformat() if s.game.ended_at else None,
             "record": s.game.record}
            for s in rows.iterator(chunk_size=200)]
