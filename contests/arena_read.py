"""Arenas' read side (never writes): the lists of upcoming, running and
recent arenas, one arena's standings (RULES.md §12: points, then win rate,
then the earlier join), a player's arena history. Each in a constant number
of queries; standings page by :data:`PAGE` rows."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, Sum
from django.utils import timezone

from accounts.models import Profile
from contests.arena_run import ends_at, standing_key, table_path
from contests.models import Arena, ArenaEntry, ArenaSeating

PAGE = 50
RECENT = 10


def summary(arena: Arena, players: int, pool: int, paid_out: int = 0) -> dict[str, Any]:
    """One arena as the API and pages show it: ``id``, ``name``, ``status``,
    ``starts_at`` / ``ends_at`` (ISO), ``starts_in`` / ``ends_in`` (whole
    seconds from now, ≥ 0: the countdown), ``duration_minutes``,
    ``entry_fee``, ``min_level``, ``max_players``, ``players``, ``pool``
    (the prize pool's coins now), ``paid_out`` (the prizes paid, once
    finished), ``house_prize``, ``prize_split`` (per cent)."""
    now = timezone.now()
    end = ends_at(arena)
    return {
        "id": arena.pk, "name": arena.name, "status": arena.status,
        "starts_at": arena.starts_at.isoformat(), "ends_at": end.isoformat(),
        "starts_in": max(0, int((arena.starts_at - now).total_seconds())),
        "ends_in": max(0, int((end - now).total_seconds())),
        "duration_minutes": arena.duration_minutes, "entry_fee": arena.entry_fee,
        "min_level": arena.min_level, "max_players": arena.max_players, "players": players,
        "pool": pool, "paid_out": paid_out, "house_prize": arena.house_prize,
        "prize_split": list(arena.prize_split),
    }


def _summaries(arenas: list[Arena]) -> list[dict[str, Any]]:
    ids = [a.pk for a in arenas]
    counts, paid = {}, {}  # players and prizes paid, one query (a withdrawn entry won none)
    for arena_id, n, p in ArenaEntry.objects.filter(arena_id__in=ids).exclude(
            status=ArenaEntry.WITHDRAWN, fee_paid=0, games=0).values_list("arena_id").annotate(
            n=Count("pk"), p=Sum("prize")).values_list("arena_id", "n", "p"):
        counts[arena_id], paid[arena_id] = n, p or 0
    pools = dict(Profile.objects.filter(user_id__in=[a.pool_id for a in arenas]).values_list(
        "user_id", "coins"))
    return [summary(a, counts.get(a.pk, 0), pools.get(a.pool_id, 0), paid.get(a.pk, 0))
            for a in arenas]


def arena_lists() -> dict[str, list[dict[str, Any]]]:
    """``{"upcoming", "running", "recent"}``: upcoming by start, running
    (finishing included), the last :data:`RECENT` finished or cancelled."""
    live = list(Arena.objects.filter(status__in=(Arena.UPCOMING, Arena.RUNNING,
                                                 Arena.FINISHING)).order_by("starts_at", "pk")[:50])
    recent = list(Arena.objects.filter(status__in=(Arena.FINISHED, Arena.CANCELLED))
                  .order_by("-ended_at", "-pk")[:RECENT])
    rows = _summaries(live + recent)
    return {"upcoming": [r for r in rows if r["status"] == Arena.UPCOMING],
            "running": [r for r in rows if r["status"] in (Arena.RUNNING, Arena.FINISHING)],
            "recent": [r for r in rows if r["status"] in (Arena.FINISHED, Arena.CANCELLED)]}


def standings(arena: Arena, page: int = 1) -> dict[str, Any]:
    """One page of ``arena``'s standings: ``{"rows": [{"place", "username",
    "points", "games", "wins", "win_rate" (per cent, whole), "status",
    "prize"}], "page", "pages", "total"}``. Escapers (removed) are listed
    last, unranked (``place`` ``None``)."""
    entries = list(ArenaEntry.objects.filter(arena=arena).exclude(
        status=ArenaEntry.WITHDRAWN, games=0, points=0, fee_paid=0, place=None)
        .only("pk", "user_id", "points", "games", "wins", "status", "joined_at", "prize",
              "place"))
    ranked = sorted((e for e in entries if e.status != ArenaEntry.REMOVED), key=standing_key)
    removed = [e for e in entries if e.status == ArenaEntry.REMOVED]
    order = ranked + removed
    pages = max(1, -(-len(order) // PAGE))
    page = min(max(1, page), pages)
    shown = order[(page - 1) * PAGE: page * PAGE]
    names = dict(Profile.objects.filter(user_id__in=[e.user_id for e in shown]).values_list(
        "user_id", "user__username"))
    rows = []
    for e in shown:
        place = ranked.index(e) + 1 if e.status != ArenaEntry.REMOVED else None
        rows.append({"place": place, "username": names.get(e.user_id, ""), "points": e.points,
                     "games": e.games, "wins": e.wins,
                     "win_rate": round(100 * e.wins / e.games) if e.games else 0,
                     "status": e.status, "prize": e.prize})
    return {"rows": rows, "page": page, "pages": pages, "total": len(order)}


def detail(arena: Arena, user_id: int | None, page: int = 1) -> dict[str, Any]:
    """The arena page's data (``GET /api/arenas/<id>``): its summary,
    ``standings`` (:func:`standings`), ``tables`` (its games running now:
    ``{"table_id", "name", "path"}``, open to spectators), and ``me``: the
    asker's ``{"status", "points", "place", "prize", "pause_after",
    "table", "seating"}`` (``table``: the path of the arena table they are
    seated at, else ``None``; ``seating``: that seating's id, new at each
    seating even at the same table), ``None`` if not in it."""
    data = _summaries([arena])[0]
    data["standings"] = standings(arena, page)
    seatings = list(ArenaSeating.objects.filter(arena=arena, done=False)
                    .select_related("table").order_by("pk")[:PAGE])
    data["tables"] = [{"table_id": s.table_id, "name": s.table.name,
                       "path": table_path(s.table), "playing": s.game_id is not None}
                      for s in seatings]
    me = None
    if user_id is not None:
        entry = ArenaEntry.objects.filter(arena=arena, user_id=user_id).first()
        if entry is not None:
            mine = next((s for s in seatings if user_id in s.user_ids), None)
            me = {"status": entry.status, "points": entry.points,
                  "place": entry.place, "prize": entry.prize,
                  "pause_after": entry.pause_after,
                  "table": table_path(mine.table) if mine else None,
                  "seating": mine.pk if mine else None}
    data["me"] = me
    return data


def history(user_id: int, limit: int = 20) -> list[dict[str, Any]]:
    """A player's arenas, newest first: ``{"id", "name", "status" (the
    arena's), "starts_at", "points", "games", "place", "prize"}``."""
    entries = (ArenaEntry.objects.filter(user_id=user_id).select_related("arena")
               .filter(~Q(status=ArenaEntry.WITHDRAWN) | Q(games__gt=0))
               .order_by("-arena__starts_at", "-pk")[:limit])
    return [{"id": e.arena_id, "name": e.arena.name, "status": e.arena.status,
             "starts_at": e.arena.starts_at.isoformat(), "points": e.points, "games": e.games,
             "place": e.place, "prize": e.prize} for e in entries]


def arena_games(game_ids: list[int]) -> dict[int, dict[str, Any]]:
    """``{game_id: {"arena_id", "arena"}}`` for those of ``game_ids`` played in an arena."""
    return {gid: {"arena_id": aid, "arena": name} for gid, aid, name in
            ArenaSeating.objects.filter(game_id__in=game_ids).values_list(
                "game_id", "arena_id", "arena__name")}
