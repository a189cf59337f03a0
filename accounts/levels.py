"""The level ladder of RULES.md §7: rating points -> level, title and stake.

Pure Python, no Django import. Levels are integers 0..16; rating points are an
int that may be negative (a negative balance is still level 0, 科员).

>>> level_for(49), level_for(50), level_for(-30)
(0, 1, 0)
>>> title_for(13), stake_for(13)
('助省', 500)
>>> points_to_next(0), points_to_next(2_000_000)
(50, None)
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Level:
    """One rung of the ladder.

    ``threshold`` is the rating points needed to reach it; ``stake`` the
    对局分 a game is worth when this is the lowest level at the table (§7).
    """

    level: int
    title_zh: str
    title_en: str
    threshold: int
    stake: int


LEVELS: tuple[Level, ...] = (
    Level(0, "科员", "Clerk", 0, 1),
    Level(1, "助科", "Assistant Section Chief", 50, 5),
    Level(2, "副科", "Deputy Section Chief", 100, 10),
    Level(3, "科长", "Section Chief", 200, 20),
    Level(4, "助处", "Assistant Division Chief", 500, 40),
    Level(5, "副处", "Deputy Division Chief", 1_000, 60),
    Level(6, "处长", "Division Chief", 2_000, 80),
    Level(7, "助局", "Assistant Bureau Chief", 4_000, 100),
    Level(8, "副局", "Deputy Bureau Chief", 8_000, 150),
    Level(9, "局长", "Bureau Chief", 16_000, 200),
    Level(10, "助市", "Assistant Mayor", 32_000, 260),
    Level(11, "副市", "Deputy Mayor", 64_000, 300),
    Level(12, "市长", "Mayor", 128_000, 400),
    Level(13, "助省", "Assistant Governor", 262_000, 500),
    Level(14, "副省", "Deputy Governor", 500_000, 600),
    Level(15, "省长", "Governor", 1_000_000, 700),
    Level(16, "原子弹", "Atom Bomb", 2_000_000, 800),
)

MAX_LEVEL: int = LEVELS[-1].level
_THRESHOLDS: tuple[int, ...] = tuple(rung.threshold for rung in LEVELS)


def _rung(level: int) -> Level:
    if not 0 <= level <= MAX_LEVEL:
        raise ValueError(f"level must be 0..{MAX_LEVEL}, got {level!r}")
    return LEVELS[level]


def level_for(points: int) -> int:
    """Return the level (0..16) for ``points`` rating points (§7).

    The highest level whose threshold ``points`` reaches; anything below 50,
    negative included, is level 0.
    """
    return max(0, bisect_right(_THRESHOLDS, points) - 1)


def title_for(level: int) -> str:
    """Return the Chinese title of ``level`` (e.g. ``"科员"``); ValueError if out of range."""
    return _rung(level).title_zh


def title_en_for(level: int) -> str:
    """Return the English title of ``level`` (e.g. ``"Clerk"``); ValueError if out of range."""
    return _rung(level).title_en


def stake_for(level: int) -> int:
    """Return the stake (对局分) of ``level`` (§7); ValueError if out of range."""
    return _rung(level).stake


def points_to_next(points: int) -> int | None:
    """Return how many rating points ``points`` lacks for the next level.

    ``None`` at the top level (原子弹). For negative points this counts up to
    level 1's 50, e.g. ``points_to_next(-10) == 60``.
    """
    level = level_for(points)
    if level == MAX_LEVEL:
        return None
    return LEVELS[level + 1].threshold - points
