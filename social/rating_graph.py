"""The rating graph of a player's history page: their rating points over time
with the level thresholds (RULES.md §7, ``accounts.levels``) drawn and labelled,
laid out here as numbers for a server-rendered SVG
(``social/_rating_graph.html``; no script, no library). Read-only: two
queries (the player's current points and their last :data:`MOVES_SHOWN`
rating movements, ``accounts.models.RatingEntry``).

The drawing is :data:`WIDTH` × :data:`HEIGHT` user units, sized for a 360 px
phone (1 unit ≈ 1 px there; the page caps its width so labels stay readable on
a wide screen). Time runs left to right (Beijing dates under the axis); the
points move up.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from accounts import levels
from accounts.models import Profile, RatingEntry
from social.history import BEIJING

#: the movements drawn, newest back (a long history shows its latest part)
MOVES_SHOWN = 300
#: the drawing's size in SVG user units
WIDTH, HEIGHT = 320, 200
#: the plot area inside it: left, right, top, bottom
LEFT, RIGHT, TOP, BOTTOM = 6, WIDTH - 6, 18, HEIGHT - 24
#: thresholds closer than this (units) to a labelled one get a line, no label
LABEL_GAP = 14


@dataclass(frozen=True)
class Threshold:
    """A level's threshold line: ``y``, its ``label`` (title and points) and
    whether the label is drawn (``labelled``: not too close to another), just
    above the line (``label_y``)."""

    y: float
    label_y: float
    label: str
    points: int
    labelled: bool


@dataclass(frozen=True)
class Graph:
    """What the template draws: ``line`` (the polyline's ``points``
    attribute), ``last`` (x, y of the latest point), ``thresholds``,
    ``start`` / ``end`` (Beijing dates of the first and last point, or ``None``
    without movements), ``current`` (points now), ``moves`` (movements drawn)
    and the drawing's ``width`` / ``height``."""

    line: str
    last: tuple[float, float]
    thresholds: list[Threshold]
    start: datetime | None
    end: datetime | None
    current: int
    moves: int
    width: int = WIDTH
    height: int = HEIGHT


def _title(level: levels.Level, lang: str) -> str:
    return level.title if lang == "zh" else level.title_en


def graph(user_id: int, lang: str = "zh") -> Graph:
    """``user_id``'s rating graph (titles in ``lang``, ``"zh"`` or ``"en"``)."""
    current = Profile.objects.filter(user_id=user_id).values_list(
        "rating_points", flat=True).first() or 0
    moves = list(RatingEntry.objects.filter(user_id=user_id)
                 .order_by("-created_at", "-pk").values_list("created_at", "delta")[:MOVES_SHOWN])
    moves.reverse()
    # points after each movement, counted back from today's points
    before = current - sum(d for _, d in moves)
    series: list[tuple[datetime, int]] = []
    if moves:
        series.append((moves[0][0], before))
        running = before
        for at, delta in moves:
            running += delta
            series.append((at, running))
    else:
        now = timezone.now()
        series = [(now, current), (now, current)]
    low, high = min(p for _, p in series), max(p for _, p in series)
    # the range reaches the threshold under the lowest point and the one over the highest
    rungs = levels.LEVELS
    floor = max((r.threshold for r in rungs if r.threshold <= low), default=min(low, 0))
    floor = min(floor, low)
    ceiling = min((r.threshold for r in rungs if r.threshold > high), default=high + 1)
    span = ceiling - floor or 1

    def y(points: int) -> float:
        return round(BOTTOM - (points - floor) * (BOTTOM - TOP) / span, 1)

    t0, t1 = series[0][0], series[-1][0]
    seconds = (t1 - t0).total_seconds()

    def x(i: int, at: datetime) -> float:
        if seconds <= 0:  # everything at one moment: spread evenly
            return round(LEFT + i * (RIGHT - LEFT) / max(len(series) - 1, 1), 1)
        return round(LEFT + (at - t0).total_seconds() * (RIGHT - LEFT) / seconds, 1)

    coords = [(x(i, at), y(p)) for i, (at, p) in enumerate(series)]
    thresholds = []
    last_label = None
    for rung in rungs:
        if not floor <= rung.threshold <= ceiling:
            continue
        ty = y(rung.threshold)
        labelled = last_label is None or last_label - ty >= LABEL_GAP
        if labelled:
            last_label = ty
        thresholds.append(Threshold(ty, round(ty - 3, 1), f"{_title(rung, lang)} {rung.threshold}",
                                    rung.threshold, labelled))
    return Graph(
        line=" ".join(f"{cx},{cy}" for cx, cy in coords),
        last=coords[-1], thresholds=thresholds,
        start=t0.astimezone(BEIJING) if moves else None,
        end=t1.astimezone(BEIJING) if moves else None,
        current=current, moves=len(moves),
    )
