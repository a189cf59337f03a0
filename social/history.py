"""战绩: a player's finished games, newest first, and the statistics over them
(the read side; never writes).

Everything is read from the ``GameSeat`` rows of the player and their games'
``state`` (its ``result`` and finished ``halves``, RULES.md §6–§7, §11): a page
of games is one query (≤ :data:`PAGE_SIZE` rows, the JSON keys picked out by
the database) plus the plugins' keys (the shop's ``coin_change``, for the owner
only); the statistics are two aggregate queries, whatever the number of games.
Filters (:class:`Filters`): rated or practice, a partner (对家) by name, and the
plugins' yes/no filters (``games.plugins.history_filters``: the shop's
``wager``). Dates are Beijing time (Asia/Shanghai) whatever ``TIME_ZONE`` says.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import reduce
from typing import Any, Literal
from zoneinfo import ZoneInfo

from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.functions import Cast, Coalesce
from django.utils.translation import gettext as _

from games import plugins
from games.models import Game, GameSeat
from yuanzi_site.refusals import Refused

#: rows per page (at most 50, as every list of the site)
PAGE_SIZE = 50
#: the statistics' win rate with a partner needs this many games together
PARTNER_MIN_GAMES = 5
#: at most this many partners are listed, most games first
PARTNERS_SHOWN = 50
#: the site's players' time, for every date of the history (RULES.md §12 days)
BEIJING = ZoneInfo("Asia/Shanghai")

Kind = Literal["rated", "practice"]
Outcome = Literal["win", "loss", "abandoned"]


@dataclass(frozen=True)
class Filters:
    """What a history is narrowed to: ``kind`` (``None``: both), ``partner``
    (a username, exact; ``None``: anyone) and ``flags``, the plugins' yes/no
    filters asked for (``("wager",)``)."""

    kind: Kind | None = None
    partner: str | None = None
    flags: tuple[str, ...] = ()

    def query(self) -> dict[str, str]:
        """The filters as query parameters (the page's links keep them)."""
        out = {f: "1" for f in self.flags}
        if self.kind:
            out["kind"] = self.kind
        if self.partner:
            out["partner"] = self.partner
        return out


def parse_filters(params: Mapping[str, Any]) -> Filters:
    """``?kind=rated|practice&partner=<username>&wager=1`` (a ``QueryDict`` or a
    dict) as :class:`Filters`; an empty value means no filter.

    :raises Refused: ``bad_message`` for another ``kind``, a flag other than
        ``1``/``0`` or a partner name over 150 characters.
    """
    kind = params.get("kind") or None
    if kind not in (None, "rated", "practice"):
        raise Refused("bad_message", _("The kind of game is rated or practice."))
    partner = (params.get("partner") or "").strip() or None
    if partner is not None and len(partner) > 150:
        raise Refused("bad_message", _("A partner's name has at most 150 characters."))
    flags = []
    for f in plugins.history_filters():
        value = params.get(f.key) or "0"
        if value not in ("0", "1"):
            raise Refused("bad_message", _("%(name)s is 1 or 0.") % {"name": f.key})
        if value == "1":
            flags.append(f.key)
    return Filters(kind, partner, tuple(flags))


def _partner_seat() -> QuerySet[GameSeat]:
    """The seat across the table from the outer row's (对家: (index + 2) % 4)."""
    return GameSeat.objects.filter(game=OuterRef("game"), index=(OuterRef("index") + 2) % 4)


def seats(user_id: int, filters: Filters = Filters()) -> QuerySet[GameSeat]:
    """The seat rows of ``user_id``'s finished games that pass ``filters``
    (unordered; the ``GameSeat`` (user, game) index serves it)."""
    qs = GameSeat.objects.filter(user_id=user_id, game__status=Game.OVER)
    if filters.kind is not None:
        qs = qs.filter(game__practice=filters.kind == "practice")
    if filters.partner is not None:
        qs = qs.filter(Exists(_partner_seat().filter(user__username=filters.partner)))
    for f in plugins.history_filters():
        if f.key in filters.flags:
            qs = qs.filter(f.seats)
    return qs


def _int(path: str) -> Cast:
    """A whole number in a game's state, by its path (``result__totals__0``);
    NULL where the state has none."""
    *keys, last = path.split("__")
    expr: Any = F("game__state")  # (KT() would read "game" as the JSON field)
    for key in keys:
        expr = KeyTransform(key, expr)
    return Cast(KeyTextTransform(last, expr), IntegerField())


def _one_of(path: str, values: range) -> Case:
    """The number at ``path`` if it is one of ``values``, else NULL (a JSON
    ``null`` too: SQLite would read it as the text ``null``, 0 once cast)."""
    return Case(*(When(Q(**{f"game__state__{path}": v}), then=Value(v)) for v in values),
                default=Value(None), output_field=IntegerField())


def _by_seat(expr: Any) -> Case:
    """``expr(seat)`` of the row's own seat: one ``When`` per seat index."""
    return Case(*(When(index=i, then=expr(i)) for i in range(4)), output_field=IntegerField())


def _team(path: str) -> Case:
    """``path__<team>`` for the row's team (``path__0`` in seats 0 and 2)."""
    return Case(When(index__in=(0, 2), then=_int(f"{path}__0")), default=_int(f"{path}__1"),
                output_field=IntegerField())


def _other(path: str) -> Case:
    """``path__<the other team>``."""
    return Case(When(index__in=(0, 2), then=_int(f"{path}__1")), default=_int(f"{path}__0"),
                output_field=IntegerField())


#: the row's team won (a winner exists only when the game was played out)
WON = (Q(index__in=(0, 2), game__state__result__winner=0)
       | Q(index__in=(1, 3), game__state__result__winner=1))
#: the game was played out (RULES.md §6: a double clamp or the second half's end)
PLAYED_OUT = Q(game__state__result__winner__in=(0, 1))
LOST = PLAYED_OUT & ~WON
DOUBLE_CLAMP = Q(game__state__result__double_clamp=True)
#: the row's player escaped from a rated game (an escape ending, left by this
#: seat); leaving a practice game is free and not counted, as in the finish
#: rate (RULES.md §7, §12)
ESCAPED = Q(game__practice=False, game__end_reason__in=(Game.ESCAPE, "")) & (
    reduce(operator.or_, (Q(index=i, game__state__result__abandoned_by=i) for i in range(4))))
#: a moderator ended the game (RULES.md §12 "Moderators": it changes nothing for
#: anyone): it has no winner, and its finished halves count in no figure either
VOIDED = Q(game__end_reason__in=(Game.MODERATOR_CLOSE, Game.MODERATOR_KICK, Game.SUSPENSION))
#: the finished halves the half figures (上游 rate, points per half) read
COUNTED_HALVES = ~VOIDED


def _went_out_first(half: int) -> Q:
    """The row's seat was 上游 (first out) of finished half ``half`` (0 or 1)."""
    key = f"game__state__halves__{half}__finish_order__0"
    return reduce(operator.or_, (Q(index=i, **{key: i}) for i in range(4)))


# ------------------------------------------------------------------ the games


@dataclass(frozen=True)
class HistoryRow:
    """One finished game from one player's seat.

    ``ended_at`` is Beijing time; ``partner`` the username across the table
    (``None`` for a bot or a deleted account); ``partner_bot`` the bot's level
    across the table (``""`` for a person); ``points`` ``[ours, theirs]``,
    the teams' totals over the finished halves; ``rating_change`` ``None`` for a
    practice game; ``coin_change`` ``None`` unless asked for (the owner's own
    history) and the game moved coins (a settled wager); ``escaped`` whether
    this player's escape ended it.
    """

    game_id: int
    ended_at: datetime | None
    table_id: int
    table_name: str
    seat: int
    partner: str | None
    partner_bot: str
    result: Outcome
    reason: str
    double_clamp: bool
    escaped: bool
    points: list[int]
    practice: bool
    rating_change: int | None
    coin_change: int | None

    def as_json(self, *, coins: bool) -> dict[str, Any]:
        """The row as ``GET /api/me/games`` sends it (docs/api.md);
        ``coin_change`` only with ``coins`` (never another player's)."""
        out: dict[str, Any] = {
            "game_id": self.game_id,
            "ended_at": self.ended_at.isoformat() if self.ended_at else None,
            "table": {"id": self.table_id, "name": self.table_name},
            "seat": self.seat,
            "partner": {"username": self.partner} if self.partner else None,
            "result": self.result, "reason": self.reason, "points": self.points,
            "rating_change": self.rating_change,
        }
        if coins:
            out["coin_change"] = self.coin_change
        return out


@dataclass(frozen=True)
class HistoryPage:
    """One page of a history: ``rows``, the 1-based ``number``, whether a next one exists."""

    rows: list[HistoryRow]
    number: int
    has_next: bool


def _outcome(winner: int | None, seat: int) -> Outcome:
    if winner is None:
        return "abandoned"
    return "win" if winner == seat % 2 else "loss"


def games(user_id: int, filters: Filters = Filters(), number: int = 1, *,
          coins: bool = False) -> HistoryPage:
    """Page ``number`` (≥ 1) of ``user_id``'s finished games, newest first.

    One query for the rows (≤ :data:`PAGE_SIZE` + 1, the JSON keys read by the
    database, never the whole state, and only for the page's rows: an inner
    select picks them by date first), plus, with ``coins`` (the owner's own
    history only), one per plugin with ``recent_game_keys`` (the shop's wager
    ``coin_change``).
    """
    start = (number - 1) * PAGE_SIZE
    order = ("-game__ended_at", "-game_id")
    picked = seats(user_id, filters).order_by(*order).values("pk")[start:start + PAGE_SIZE + 1]
    rows = list(
        GameSeat.objects.filter(pk__in=picked)
        .annotate(
            partner_name=Subquery(_partner_seat().values("user__username")[:1]),
            partner_bot=Subquery(_partner_seat().values("bot")[:1]),
            winner=_one_of("result__winner", range(2)),
            abandoned_by=_one_of("result__abandoned_by", range(4)),
            ours=_team("result__totals"), theirs=_other("result__totals"),
            change=_by_seat(lambda i: _int(f"result__rating_changes__{i}")),
            clamp=Case(When(DOUBLE_CLAMP, then=Value(1)), default=Value(0),
                       output_field=IntegerField()),
        )
        .order_by(*order)
        .values("game_id", "index", "game__ended_at", "game__table_id", "game__table_name",
                "game__table__name", "game__practice", "game__end_reason", "partner_name",
                "partner_bot", "winner", "abandoned_by", "ours", "theirs", "change", "clamp")
    )
    has_next = len(rows) > PAGE_SIZE
    rows = rows[:PAGE_SIZE]
    extra = (plugins.recent_game_keys(user_id, {r["game_id"]: r["index"] for r in rows})
             if coins and rows else {})
    out = []
    for r in rows:
        seat, abandoned_by = r["index"], r["abandoned_by"]
        reason = r["game__end_reason"] or ("escape" if abandoned_by is not None else "normal")
        ended: datetime | None = r["game__ended_at"]
        out.append(HistoryRow(
            game_id=r["game_id"],
            ended_at=ended.astimezone(BEIJING) if ended else None,
            table_id=r["game__table_id"],
            table_name=r["game__table_name"] or r["game__table__name"],
            seat=seat,
            partner=r["partner_name"],
            partner_bot=r["partner_bot"] or "",
            result=_outcome(r["winner"], seat),
            reason=reason,
            double_clamp=bool(r["clamp"]) and r["winner"] is not None,
            escaped=reason == "escape" and abandoned_by == seat,
            points=[r["ours"] or 0, r["theirs"] or 0],
            practice=r["game__practice"],
            rating_change=None if r["game__practice"] else (r["change"] or 0),
            coin_change=extra.get(r["game_id"], {}).get("coin_change") if coins else None,
        ))
    return HistoryPage(out, number, has_next)


# ------------------------------------------------------------------ the statistics


@dataclass(frozen=True)
class Tally:
    """Counts over a set of games: ``games``; ``played_out`` (ended by play, the
    ones with a winner); ``wins``; ``win_rate`` (wins / played out, a percentage
    rounded, ``None`` without one)."""

    games: int
    played_out: int
    wins: int

    @property
    def win_rate(self) -> int | None:
        """Wins per game played out, in whole percent (``None``: none played out)."""
        return round(100 * self.wins / self.played_out) if self.played_out else None


@dataclass(frozen=True)
class Stats:
    """A player's statistics over the games a filter leaves.

    ``total`` (:class:`Tally`); ``seats`` (four tallies by seat index);
    ``partners`` (``[(username, Tally)]``, people partnered
    :data:`PARTNER_MIN_GAMES`+ times, most games first); ``clamps_won`` and
    ``clamps_suffered`` (double clamps, RULES.md §6); ``escapes`` (rated games
    this player ended by escaping; a practice game left is not one); ``halves``
    (finished halves played, except in games a moderator ended: :data:`VOIDED`,
    as the win rate leaves those out); ``firsts`` (those halves they went out
    first in, 上游); ``half_points`` (their team's points over those halves,
    RULES.md §5). ``firsts`` and ``half_points`` are over the same halves as
    ``halves``, so the 上游 rate and the points per half agree with each other.
    """

    total: Tally
    seats: list[Tally]
    partners: list[tuple[str, Tally]]
    clamps_won: int
    clamps_suffered: int
    escapes: int
    halves: int
    firsts: int
    half_points: int

    @property
    def first_rate(self) -> int | None:
        """上游 rate: halves gone out first per finished half, whole percent."""
        return round(100 * self.firsts / self.halves) if self.halves else None

    @property
    def points_per_half(self) -> float | None:
        """Their team's average points per finished half, one decimal."""
        return round(self.half_points / self.halves, 1) if self.halves else None


def _n(q: Q) -> Count:
    return Count("pk", filter=q)


def _half_figures() -> dict[str, Any]:
    """``halves``, ``firsts`` and ``points`` (:class:`Stats`) as aggregates,
    each over the same rows, :data:`COUNTED_HALVES` (a tester's 上游 rate counted
    a game a moderator ended that the other figures left out)."""
    return {
        "halves": Count(_int("halves__0__points__0"), filter=COUNTED_HALVES)
        + Count(_int("halves__1__points__0"), filter=COUNTED_HALVES),
        "firsts": _n(COUNTED_HALVES & _went_out_first(0))
        + _n(COUNTED_HALVES & _went_out_first(1)),
        "points": Coalesce(Sum(_team("halves__0__points"), filter=COUNTED_HALVES), 0)
        + Coalesce(Sum(_team("halves__1__points"), filter=COUNTED_HALVES), 0),
    }


def stats(user_id: int, filters: Filters = Filters()) -> Stats:
    """The statistics of ``user_id``'s finished games that pass ``filters``
    (RULES.md §5–§7, §12): two aggregate queries (by seat, by partner),
    whatever the number of games. Every figure leaves out what a moderator
    ended (:data:`VOIDED`) except ``total.games`` and the seat and partner
    game counts, which count every game listed."""
    qs = seats(user_id, filters)
    per_seat = {
        row["index"]: row for row in qs.values("index").annotate(
            n=Count("pk"), out=_n(PLAYED_OUT), won=_n(WON),
            clamps_won=_n(WON & DOUBLE_CLAMP), clamps_lost=_n(LOST & DOUBLE_CLAMP),
            escapes=_n(ESCAPED), **_half_figures(),
        ).order_by("index")
    }
    by_seat = [Tally(per_seat[i]["n"], per_seat[i]["out"], per_seat[i]["won"])
               if i in per_seat else Tally(0, 0, 0) for i in range(4)]

    def total(key: str) -> int:
        return sum(row[key] or 0 for row in per_seat.values())

    partners = [
        (row["partner_name"], Tally(row["n"], row["out"], row["won"]))
        for row in qs.annotate(partner_name=Subquery(_partner_seat().values("user__username")[:1]))
        .filter(partner_name__isnull=False)
        .values("partner_name")
        .annotate(n=Count("pk"), out=_n(PLAYED_OUT), won=_n(WON))
        .filter(n__gte=PARTNER_MIN_GAMES)
        .order_by("-n", "partner_name")[:PARTNERS_SHOWN]
    ]
    return Stats(
        total=Tally(total("n"), total("out"), total("won")), seats=by_seat, partners=partners,
        clamps_won=total("clamps_won"), clamps_suffered=total("clamps_lost"),
        escapes=total("escapes"), halves=total("halves"), firsts=total("firsts"),
        half_points=total("points"),
    )
