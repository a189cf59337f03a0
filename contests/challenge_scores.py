"""The daily challenge's scores: raw scores, matchpoints and the day's
standings (RULES.md §12 "Daily challenge"). Read side: never writes.

- A board's **raw score** (:func:`raw_score`): the North–South points of the
  half (§5), +100 if North–South inflicted a double clamp, −100 if it suffered one.
- **Matchpoints** (:func:`matchpoints`): among the ranked players who finished
  the board, ``(2 × beaten + ties) / (2 × (n − 1))``, 50 % when ``n = 1``,
  given in percent. An unranked player is scored against the ranked field as
  if they were in it (where they would have stood); they never count in anyone
  else's field.
- A **result** (:func:`standings`): the average of the 8 boards' matchpoints,
  once all 8 are done; only a ranked account's result is ranked.

Until the day closes everything is provisional and computed here from the
finished boards (one query); the close (``contests.challenge_close``) stores
the final figures on the rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.conf import settings

from contests.models import ChallengeBoard, ChallengeDay
from games.engine.shapes import State


def raw_score(state: State) -> int:
    """The raw score of a board whose first half is over: North–South's points
    of the half, ±100 for a double clamp it inflicted / suffered (§6, §12).

    :raises ValueError: if the first half is not over.
    """
    if not state["halves"]:
        raise ValueError("the board's half is not over")
    points = state["halves"][0]["points"][0]
    result = state["result"]
    if result is not None and result["double_clamp"] and len(state["halves"]) == 1:
        points += 100 if result["winner"] == 0 else -100
    return points


def matchpoints(score: int, field_scores: Sequence[int]) -> float:
    """Matchpoints in percent of ``score`` against ``field_scores``, the other
    ranked players' raw scores on the board: ``(2 × beaten + ties) / (2 × (n −
    1)) × 100`` with ``n = len(field_scores) + 1``; 50 when ``n = 1``.

    >>> matchpoints(100, []), matchpoints(100, [50, 100, 150]), matchpoints(0, [10])
    (50.0, 50.0, 0.0)
    """
    n = len(field_scores) + 1
    if n == 1:
        return 50.0
    beaten = sum(1 for s in field_scores if s < score)
    ties = sum(1 for s in field_scores if s == score)
    return 100.0 * (2 * beaten + ties) / (2 * (n - 1))


@dataclass
class Standing:
    """One player's standing on a day: ``boards`` done, matchpoints per board
    number, ``result`` (average %, once all boards are done), ``place`` (among
    the ranked results; for an unranked player the place they would have had)."""

    user_id: int
    username: str
    ranked: bool
    raws: dict[int, int] = field(default_factory=dict)
    points: dict[int, float] = field(default_factory=dict)
    result: float | None = None
    place: int | None = None

    @property
    def boards(self) -> int:
        """How many boards this player has finished."""
        return len(self.raws)


def standings(day: ChallengeDay) -> list[Standing]:
    """Everyone's provisional standing on ``day`` from its finished boards (one
    query): ranked results first, best first, then the rest by boards done.
    Matchpoints, results and places are computed as in the module docstring."""
    rows = (ChallengeBoard.objects.filter(day=day, status=ChallengeBoard.DONE)
            .values_list("user_id", "user__username", "entry__ranked", "number", "raw"))
    players: dict[int, Standing] = {}
    ranked_field: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for user_id, username, ranked, number, raw in rows:
        if raw is None:
            continue
        player = players.setdefault(user_id, Standing(user_id, username, ranked))
        player.raws[number] = raw
        if ranked:
            ranked_field[number].append((user_id, raw))
    for player in players.values():
        for number, raw in player.raws.items():
            others = [r for u, r in ranked_field[number] if u != player.user_id]
            player.points[number] = matchpoints(raw, others)
        if player.boards == settings.CHALLENGE_BOARDS:
            player.result = sum(player.points.values()) / settings.CHALLENGE_BOARDS
    ranked_results = sorted((p.result for p in players.values()
                             if p.ranked and p.result is not None), reverse=True)
    for player in players.values():
        if player.result is not None:
            player.place = 1 + sum(1 for r in ranked_results if r > player.result)
    return sorted(players.values(), key=lambda p: (
        not (p.ranked and p.result is not None), -(p.result or 0.0), -p.boards, p.username))


def field_on(day: ChallengeDay, number: int) -> list[int]:
    """The ranked field's raw scores on board ``number`` of ``day``, best first
    (what a player sees after finishing it)."""
    return sorted((r for r in ChallengeBoard.objects.filter(
        day=day, number=number, status=ChallengeBoard.DONE, entry__ranked=True,
        raw__isnull=False).values_list("raw", flat=True) if r is not None), reverse=True)
