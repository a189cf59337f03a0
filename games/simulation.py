"""Bot-against-bot games with the engine alone (no Django, no database).

The logic behind ``python manage.py simulate``: :func:`play_game` plays one whole
game (one or two halves, RULES.md §4–§6) with a policy in each seat, and
:func:`run` plays many and sums them up in a :class:`Summary`.

Seeds. Game ``i`` (0-based) of a run with seed ``S`` is dealt from the game seed
``f"{S}:{i}"`` (:func:`game_seed`); the bot in seat ``k`` draws its random
choices from ``random.Random(f"{game seed}:bot:{k}")``. A run is therefore
reproducible from ``S`` alone, and any single game of it can be replayed from
its record (RULES.md §11).

Rotation. ``policies`` names the policy of each seat ``(N, E, S, W)``. With
``rotate`` the tuple is rotated by ``i % 4`` for game ``i``: seat ``k`` gets
``policies[(k - i) % 4]`` (:func:`seating`), so over every 4 games each policy
sits in every seat once. Seats N–S and E–W are partners, so a rotation by one
seat moves the policies named for N and S to the E–W team. Wins and points are
therefore counted twice: by *policy team* (``0`` = the pair of policies named
for N and S, ``1`` = the pair named for E and W, wherever they sat) and by
*seat team* (``0`` = seats N–S, ``1`` = seats E–W, whoever sat there).

>>> s = run(4, "doc", ("heuristic", "random", "heuristic", "random"))
>>> s.games, sum(s.policy_team_wins) + s.draws, s.draws
(4, 4, 0)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .engine import POLICIES, apply, bot_view, new_game, to_act

State = dict[str, Any]
Policy = Callable[[dict[str, Any], random.Random], dict[str, Any]]
PolicySpec = str | Policy

MAX_ACTIONS = 20_000
"""A game longer than this is a bug (real games take ~100–400 actions)."""


def game_seed(seed: str | int, i: int) -> str:
    """The seed of game ``i`` (0-based) of a run with ``seed``: ``f"{seed}:{i}"``."""
    return f"{seed}:{i}"


def seating(policies: Sequence[str], i: int, rotate: bool = True) -> tuple[str, ...]:
    """The policy of each seat ``(N, E, S, W)`` in game ``i``.

    Without ``rotate``: ``policies`` itself. With it: the 4-tuple rotated by
    ``i % 4`` seats, seat ``k`` getting ``policies[(k - i) % 4]``.

    >>> seating(("a", "b", "c", "d"), 1)
    ('d', 'a', 'b', 'c')
    """
    if len(policies) != 4:
        raise ValueError(f"need one policy per seat (N, E, S, W), got {len(policies)}")
    r = i % 4 if rotate else 0
    return tuple(policies[(k - r) % 4] for k in range(4))


def policy_team_seat(i: int, rotate: bool = True) -> int:
    """The seat team (0 = N–S, 1 = E–W) where the policies named for N and S sit
    in game ``i``: ``(i % 4) % 2`` with rotation, always 0 without."""
    return (i % 2) if rotate else 0


def _policy(spec: PolicySpec) -> Policy:
    if callable(spec):
        return spec
    try:
        return POLICIES[spec]
    except KeyError:
        raise ValueError(
            f"unknown policy {spec!r} (one of {', '.join(sorted(POLICIES))})"
        ) from None


def play_game(seed: str | int, policies: Sequence[PolicySpec]) -> State:
    """Play one whole game, bots in all four seats, and return its final state.

    :param seed: the game seed (deals every half; see :func:`game_seed`).
    :param policies: four policies for seats ``(N, E, S, W)``: names of
        :data:`games.engine.POLICIES` or ``choose(bot_view, rng) -> action``
        callables (RULES.md §12: what the seat may know).
        Seat ``k``'s rng is ``random.Random(f"{seed}:bot:{k}")``.
    :returns: the engine state with ``status == "over"``; ``state["result"]``
        holds ``winner`` (team 0 = N–S, 1 = E–W) and ``double_clamp``, and
        ``state["halves"]`` each half's ``points`` (two team scores, 300 in all)
        and ``actions``. Feed it to :func:`games.engine.to_record` for §11.
    :raises RuntimeError: if the game passes :data:`MAX_ACTIONS` actions.
    :raises games.engine.IllegalAction: if a policy chooses an illegal action.
    """
    chooser = [_policy(p) for p in policies]
    if len(chooser) != 4:
        raise ValueError(f"need one policy per seat (N, E, S, W), got {len(chooser)}")
    rngs = [random.Random(f"{seed}:bot:{k}") for k in range(4)]
    state = new_game(seed, levels=(0, 0, 0, 0), bots=(True, True, True, True))
    for _ in range(MAX_ACTIONS):
        seat = to_act(state)
        if seat is None:
            return state
        action = chooser[seat](bot_view(state, seat), rngs[seat])
        state, _events = apply(state, seat, action)
    raise RuntimeError(f"game {seed!r} did not end within {MAX_ACTIONS} actions")


def actions_of(state: State) -> int:
    """Number of actions (plays and passes) over all halves of a finished game."""
    return sum(len(h["actions"]) for h in state["halves"])


@dataclass
class Summary:
    """The totals of a :func:`run`.

    Team indices: ``[0]`` is N–S, ``[1]`` is E–W, either by *seat* or by *policy
    team* (the pair of policies named for N and S vs the pair named for E and W;
    see the module docstring). Counts are games unless said otherwise.
    """

    games: int
    seed: str
    policies: tuple[str, ...]
    """The policy names as given, for seats (N, E, S, W) before any rotation."""
    rotate: bool
    policy_team_wins: list[int] = field(default_factory=lambda: [0, 0])
    seat_team_wins: list[int] = field(default_factory=lambda: [0, 0])
    double_clamps: int = 0
    """Games ended by a double clamp after the first half (§6)."""
    draws: int = 0
    """Finished games without a winner: must be 0 (§6 admits no draw)."""
    halves: int = 0
    """Halves played in all (1 per double-clamp game, else 2)."""
    policy_team_points: list[int] = field(default_factory=lambda: [0, 0])
    """Team points summed over all halves (each half gives 300 in all)."""
    seat_team_points: list[int] = field(default_factory=lambda: [0, 0])
    actions: int = 0
    """Actions (plays and passes) over all games."""
    seconds: float = 0.0
    """Wall-clock seconds of the run, including the ``on_game`` callback."""

    def mean_points_per_half(self, by: str = "policy") -> tuple[float, float]:
        """Mean team points per half (points; the two sum to 300), ``by`` ``"policy"``
        or ``"seat"`` team."""
        pts = self.policy_team_points if by == "policy" else self.seat_team_points
        n = self.halves or 1
        return (pts[0] / n, pts[1] / n)

    @property
    def mean_actions(self) -> float:
        """Mean actions per game."""
        return self.actions / self.games if self.games else 0.0

    @property
    def games_per_second(self) -> float:
        """Games per wall-clock second."""
        return self.games / self.seconds if self.seconds > 0 else float("inf")


def run(
    games: int,
    seed: str | int,
    policies: Sequence[str],
    rotate: bool = True,
    on_game: Callable[[int, State, tuple[str, ...]], None] | None = None,
) -> Summary:
    """Play ``games`` games and total them up.

    :param games: number of games (≥ 0).
    :param seed: run seed; game ``i`` is seeded :func:`game_seed` ``(seed, i)``.
    :param policies: four policy names for seats ``(N, E, S, W)``.
    :param rotate: rotate the seating game by game (:func:`seating`).
    :param on_game: called as ``on_game(i, final_state, seating)`` after each
        game (e.g. to write its §11 record).
    :returns: a :class:`Summary`.
    """
    if games < 0:
        raise ValueError("games must be >= 0")
    names = tuple(policies)
    for p in names:
        _policy(p)
    summary = Summary(games=games, seed=str(seed), policies=names, rotate=rotate)
    start = time.perf_counter()
    for i in range(games):
        seats = seating(names, i, rotate)
        state = play_game(game_seed(seed, i), seats)
        flip = policy_team_seat(i, rotate)  # seat team of the N–S-named policies
        result = state["result"]
        winner = result["winner"]
        if winner is None:
            summary.draws += 1
        else:
            summary.seat_team_wins[winner] += 1
            summary.policy_team_wins[winner ^ flip] += 1
        summary.double_clamps += bool(result["double_clamp"])
        for h in state["halves"]:
            summary.halves += 1
            for t in (0, 1):
                summary.seat_team_points[t] += h["points"][t]
                summary.policy_team_points[t ^ flip] += h["points"][t]
        summary.actions += actions_of(state)
        if on_game is not None:
            on_game(i, state, seats)
    summary.seconds = time.perf_counter() - start
    return summary
