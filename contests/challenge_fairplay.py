"""The daily challenge's fair-play signals for moderators (RULES.md §12;
shown on ``/mod/flags/`` through ``contests.plugin``'s ``mod_flags`` panel).
Read side: never writes.

- :func:`shared_addresses`: accounts that played the same day's boards from one
  address (the keyed hash ``moderation.fairplay.address_hash``, never the
  address): one person may be playing several accounts to learn the deals.
- :func:`far_above_usual`: a closed day's result far above the player's own
  usual (``margin`` percentage points over the mean of their earlier results,
  with at least ``min_days`` of them).

Each is a constant number of queries over the last ``days`` days.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, timedelta

from contests import challenge
from contests.models import ChallengeBoard, ChallengeEntry

#: rows each list shows at most
LIMIT = 50


@dataclass(frozen=True)
class SharedAddress:
    """Accounts (``players``, names sorted) that played ``day``'s boards from one
    address; ``address``: the first 8 characters of its hash."""

    day: date
    address: str
    players: tuple[str, ...]


@dataclass(frozen=True)
class FarAbove:
    """``player``'s ``result`` (%) on ``day`` against their ``usual`` (the mean of
    their ``earlier`` earlier results)."""

    day: date
    player: str
    result: float
    usual: float
    earlier: int


def shared_addresses(days: int = 7) -> list[SharedAddress]:
    """Groups of two or more accounts that played one day's boards from one
    address, over the last ``days`` days, newest first (one query)."""
    since = challenge.local_date() - timedelta(days=days)
    rows = (ChallengeBoard.objects.filter(day__date__gte=since).exclude(address_hash="")
            .values_list("day__date", "address_hash", "user__username").distinct())
    groups: dict[tuple[date, str], set[str]] = defaultdict(set)
    for day, address, name in rows:
        groups[(day, address)].add(name)
    found = [SharedAddress(day, address[:8], tuple(sorted(names)))
             for (day, address), names in groups.items() if len(names) > 1]
    return sorted(found, key=lambda s: (s.day, s.players), reverse=True)[:LIMIT]


def far_above_usual(days: int = 7, margin: float = 25.0, min_days: int = 3) -> list[FarAbove]:
    """Closed days' results at least ``margin`` points above the player's mean
    of their results before that day (at least ``min_days`` of them), over
    the last ``days`` days, biggest gap first (two queries)."""
    since = challenge.local_date() - timedelta(days=days)
    recent = list(ChallengeEntry.objects.filter(
        day__date__gte=since, day__closed_at__isnull=False, result__isnull=False)
        .values_list("user_id", "user__username", "day__date", "result"))
    users = {u for u, _, _, _ in recent}
    earlier: dict[int, list[tuple[date, float | None]]] = defaultdict(list)
    for user_id, day, result in (ChallengeEntry.objects.filter(
            user_id__in=users, result__isnull=False, day__closed_at__isnull=False)
            .values_list("user_id", "day__date", "result")):
        earlier[user_id].append((day, result))
    found = []
    for user_id, name, day, result in recent:
        before = [r for d, r in earlier[user_id] if d < day and r is not None]
        if len(before) < min_days or result is None:
            continue
        mean = sum(before) / len(before)
        if result - mean >= margin:
            found.append(FarAbove(day, name, result, mean, len(before)))
    return sorted(found, key=lambda f: f.result - f.usual, reverse=True)[:LIMIT]

