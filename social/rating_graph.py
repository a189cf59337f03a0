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
from itertools import pairwise

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
#: the labels' largest size in user units (a phone's; history.css draws them
#: smaller where the drawing is scaled up), their gap from their line, and the
#: room kept clear around them (the halo)
LABEL_SIZE, LABEL_OFFSET, LABEL_HALO = 12, 3, 2
#: the axis dates' baseline, above the drawing's bottom edge
AXIS_Y = HEIGHT - 6


@dataclass(frozen=True)
class Threshold:
    """A level's threshold line: ``y``, its ``label`` (title and points) and
    whether the label is drawn (``labelled``: not too close to another). A
    drawn label sits just above its line or, where the rating line (or another
    label, or a date) would run through it there, just below it (``below``:
    hanging from ``label_y``), at the left or the right end (``anchor``
    ``start`` or ``end`` at ``label_x``)."""

    y: float
    label_y: float
    label: str
    points: int
    labelled: bool
    label_x: float = 4
    anchor: str = "start"
    below: bool = False


Box = tuple[float, float, float, float]  # left, top, right, bottom


def text_width(text: str, size: float = LABEL_SIZE) -> float:
    """A generous estimate of ``text``'s width at ``size``: a CJK character is
    one em, anything else at most 0.62 em (the site's sans fonts)."""
    return sum(size if ord(c) >= 0x2E80 else 0.62 * size for c in text)


def _segment_meets_box(a: tuple[float, float], b: tuple[float, float], box: Box) -> bool:
    """Does the segment ``a``–``b`` touch ``box``? (Liang–Barsky clipping.)"""
    (x0, y0), (x1, y1) = a, b
    left, top, right, bottom = box
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, x0 - left), (dx, right - x0), (-dy, y0 - top), (dy, bottom - y0)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


def _boxes_meet(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _place(label: str, ty: float, coords: list[tuple[float, float]],
           taken: list[Box]) -> tuple[float, str, bool, Box]:
    """Where ``label`` of the line at ``ty`` goes: (x, anchor, below, its box).
    The first of above-left, above-right, below-left, below-right whose box
    (at the largest size, with its halo) meets neither the rating line nor
    ``taken``; above-left when none is free."""
    width = text_width(label)
    segments = list(pairwise(coords)) or [(coords[0], coords[0])]
    options = []
    for below in (False, True):
        # above: the baseline LABEL_OFFSET over the line, descenders a quarter em under
        top, bottom = ((ty + LABEL_OFFSET, ty + LABEL_OFFSET + LABEL_SIZE) if below else
                       (ty - LABEL_OFFSET - LABEL_SIZE, ty - LABEL_OFFSET + 0.25 * LABEL_SIZE))
        for x, anchor in ((4.0, "start"), (WIDTH - 4.0, "end")):
            left = x if anchor == "start" else x - width
            box = (left - LABEL_HALO, top - LABEL_HALO, left + width + LABEL_HALO,
                   bottom + LABEL_HALO)
            options.append((x, anchor, below, box))
    for x, anchor, below, box in options:
        if not any(_segment_meets_box(a, b, box) for a, b in segments) and \
                not any(_boxes_meet(box, other) for other in taken):
            return x, anchor, below, box
    return options[0]


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
    # the dates under the axis (with movements) are in the labels' way too
    date = text_width("2026-01-01")
    taken: list[Box] = [(0, AXIS_Y - LABEL_SIZE, 4 + date + LABEL_HALO, HEIGHT),
                        (WIDTH - 4 - date - LABEL_HALO, AXIS_Y - LABEL_SIZE, WIDTH, HEIGHT)
                        ] if moves else []
    thresholds = []
    last_label = None
    for rung in rungs:
        if not floor <= rung.threshold <= ceiling:
            continue
        ty = y(rung.threshold)
        labelled = last_label is None or last_label - ty >= LABEL_GAP
        label = f"{_title(rung, lang)} {rung.threshold}"
        if not labelled:
            thresholds.append(Threshold(ty, round(ty - LABEL_OFFSET, 1), label,
                                        rung.threshold, False))
            continue
        last_label = ty
        lx, anchor, below, box = _place(label, ty, coords, taken)
        taken.append(box)
        thresholds.append(Threshold(
            ty, round(ty + LABEL_OFFSET if below else ty - LABEL_OFFSET, 1), label,
            rung.threshold, True, lx, anchor, below))
    return Graph(
        line=" ".join(f"{cx},{cy}" for cx, cy in coords),
        last=coords[-1], thresholds=thresholds,
        start=t0.astimezone(BEIJING) if moves else None,
        end=t1.astimezone(BEIJING) if moves else None,
        current=current, moves=len(moves),
    )
