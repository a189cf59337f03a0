"""The rating ladder, levels and stakes (RULES.md §7).

>>> level_for(49), level_for(50), level_for(-30), level_for(2_000_000)
(0, 1, 0, 16)
>>> game_stake([3, 0, 5, 2])
1
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .errors import ArgumentError


class Level(NamedTuple):
    """One rung: ``number``, Chinese ``title``, English ``title_en``, rating points
    ``threshold`` needed, and the ``stake`` (对局分) of a game at that level."""

    number: int
    title: str
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
MAX_LEVEL = LEVELS[-1].number


def level_for(points: int) -> int:
    """The highest level whose threshold ``points`` reach; below 0 is still 0 (§7)."""
    level = 0
    for rung in LEVELS:
        if points >= rung.threshold:
            level = rung.number
        else:
            break
    return level


def points_to_next(points: int) -> int | None:
    """Rating points still needed for the next level, ``None`` at the top (§7)."""
    nxt = level_for(points) + 1
    return None if nxt > MAX_LEVEL else LEVELS[nxt].threshold - points


def game_stake(levels: Sequence[int]) -> int:
    """A game's stake: the stake of the lowest-level player of the four (§7).

    :raises ArgumentError: (a ``ValueError``) ``bad_level`` for no levels, or a
        level that is not an integer 0–16.
    """
    if not levels or not all(
        isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= MAX_LEVEL for x in levels
    ):
        raise ArgumentError("bad_level", f"levels must be 0–{MAX_LEVEL}, got {levels!r}")
    return LEVELS[min(levels)].stake


def escape_penalty(stake: int, half: int) -> int:
    """Rating points an escaper loses: max(2 × stake, 20 in the first half, 10 after) (§7)."""
    return max(2 * stake, 20 if half == 1 else 10)
