"""The level ladder of RULES.md §7 for the site: titles, stakes, thresholds.

The ladder itself is a rule and lives in the engine (``games.engine.levels``);
this module adds the lookups the site's pages need. Pure Python.

>>> level_for(49), level_for(50), level_for(-30)
(0, 1, 0)
>>> title_for(13), stake_for(13)
('助省', 500)
>>> points_to_next(0), points_to_next(2_000_000)
(50, None)
"""

from __future__ import annotations

from games.engine.levels import LEVELS, MAX_LEVEL, Level, level_for, points_to_next

__all__ = [
    "FRAME_BANDS", "LEVELS", "MAX_LEVEL", "Level", "frame_for", "level_for", "points_to_next",
    "stake_for", "title_en_for", "title_for",
]


def _rung(level: int) -> Level:
    if not isinstance(level, int) or not 0 <= level <= MAX_LEVEL:
        raise ValueError(f"level must be 0..{MAX_LEVEL}, got {level!r}")
    return LEVELS[level]


def title_for(level: int) -> str:
    """The Chinese title of ``level`` (e.g. ``"科员"``); ``ValueError`` if out of range."""
    return _rung(level).title


def title_en_for(level: int) -> str:
    """The English title of ``level`` (e.g. ``"Clerk"``); ``ValueError`` if out of range."""
    return _rung(level).title_en


def stake_for(level: int) -> int:
    """The stake (对局分) of a game whose lowest-level player is at ``level``."""
    return _rung(level).stake


#: the avatar frame's bands: the lowest level of each band (levels 0-3 plain,
#: 4-7 bronze, 8-11 silver, 12-15 gold, 16 the top); CSS ``.avatar.band-N``
FRAME_BANDS: tuple[int, ...] = (0, 4, 8, 12, 16)


def frame_for(level: int) -> int:
    """The avatar frame's band 0..4 of ``level`` (:data:`FRAME_BANDS`): its
    colour and shape on seats, lobby rows, lists and profiles.

    >>> frame_for(0), frame_for(7), frame_for(12), frame_for(16)
    (0, 1, 3, 4)
    """
    _rung(level)
    return sum(1 for low in FRAME_BANDS[1:] if level >= low)
