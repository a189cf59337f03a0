"""Bot-against-bot games with the engine alone (RULES.md §4–§6, §12). Pure Python.

The logic behind ``python manage.py botmatch``, in three forms:

- **Duplicate matches** (:func:`run_match`): as in bridge and DouZero's
  evaluation, every deal is played twice with the same cards, once with policy A
  in seats N and S (team 0) and B in E and W, once with the teams swapped. The
  luck of the deal cancels, so a few hundred deals separate two policies.
- **The ladder** (:func:`run_ladder`): a duplicate match of each level of
  :data:`LADDER` against the level below it.
- **Seat runs** (:func:`run`): one policy per seat, game after game, seats
  rotating (the old ``simulate``), with each game's §11 record on request.

One seed scheme for all three. Game (or deal) ``i`` (0-based) of a run with seed
``S`` is dealt from the game seed ``f"{S}:{i}"`` (:func:`game_seed`); both games
of a duplicate deal use it, so the first half's hands are identical (the second
half is the same shuffle, dealt from the first half's first_out). The bot in seat
``k`` whose random-source tag is ``t`` draws from ``random.Random(f"{S}:{i}:{t}:{k}")``
(:func:`bot_rng`). A seat's tag defaults to its policy's name, so in a duplicate
match swapping A and B replays exactly the same games with the sides' labels
exchanged (the result mirrors), and A against A with one tag plays two identical
games per deal (give the sides different tags to compare a policy with itself).

Scores of a duplicate match. Each deal scores A 0, ½ or 1 (games won out of two,
halved); A's win rate is the mean over deals and its 95 % interval is the normal
one over those per-deal scores (the two games of a deal are correlated, so games
are not independent samples). Likewise the team-point difference A − B per half
is averaged within each deal first (over the halves of both its games).

>>> r = run_match("heuristic", "random", deals=2, seed="doc")
>>> r.games, len(r.deal_scores)
(4, 2)
>>> s = run(4, "doc", ("heuristic", "random", "heuristic", "random"))
>>> s.games, sum(s.policy_team_wins) + s.draws, s.draws
(4, 4, 0)
"""

from __future__ import annotations

import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .bots import Policy
from .deal import team_of
from .errors import ArgumentError
from .match import OVER, apply, new_game
from .policies import POLICIES
from .shapes import BOT_POLICIES, BotPolicy, State
from .view import bot_view

PolicySpec = str | Policy

MAX_ACTIONS = 20_000
"""A game longer than this is a bug (real games take ~100–400 actions)."""
Z95 = 1.959964
"""The normal quantile of a two-sided 95 % interval."""


def resolve(spec: PolicySpec) -> Policy:
    """A policy from a name of :data:`games.engine.POLICIES` or a callable.

    :raises ArgumentError: ``bad_bot`` for an unknown name.
    """
    if callable(spec):
        return spec
    try:
        return POLICIES[spec]
    except KeyError:
        names = ", ".join(sorted(POLICIES))
        raise ArgumentError("bad_bot", f"unknown policy {spec!r} (one of {names})") from None


def game_seed(seed: str | int, i: int) -> str:
    """The seed of game (or deal) ``i`` (0-based) of a run with ``seed``: ``f"{seed}:{i}"``."""
    return f"{seed}:{i}"


def bot_rng(seed: str, tag: str, seat: int) -> random.Random:
    """The random source of the bot in ``seat`` tagged ``tag`` in the game seeded
    ``seed``: ``random.Random(f"{seed}:{tag}:{seat}")`` (the module's seed scheme)."""
    return random.Random(f"{seed}:{tag}:{seat}")


def _name(spec: PolicySpec) -> str:
    return spec if isinstance(spec, str) else getattr(spec, "__name__", "policy")


def _seat_bot(spec: PolicySpec) -> BotPolicy | bool:
    """What a game's state records for a seat played by ``spec`` (``True``: normal)."""
    name = {"heuristic": "normal"}.get(_name(spec), _name(spec))
    return next((b for b in BOT_POLICIES if b == name), True)


def play_game(
    seed: str, policies: Sequence[PolicySpec], rngs: Sequence[random.Random] | None = None,
    times: Sequence[list[float]] | None = None,
) -> State:
    """Play one whole game, each seat's bot choosing from its :func:`bot_view`.

    :param seed: the game seed (deals every half; see :func:`game_seed`).
    :param policies: the policy of each seat (N, E, S, W): names of
        :data:`~games.engine.POLICIES` or ``choose(bot_view, rng) -> action``
        callables (RULES.md §12: what the seat may know). The state records each
        seat's level (``bots``) where it is one of the site's, else ``normal``.
    :param rngs: each seat's random source; default seat ``k``'s is
        :func:`bot_rng` ``(seed, name of its policy, k)``.
    :param times: if given, seat ``k``'s decision times (seconds, ``perf_counter``)
        are appended to ``times[k]``.
    :returns: the final state (``status == "over"``): ``state["result"]`` holds
        ``winner`` (team 0 = N–S, 1 = E–W) and ``double_clamp``, and
        ``state["halves"]`` each half's ``points``; feed it to
        :func:`games.engine.to_record` for §11.
    :raises ArgumentError: ``bad_bot`` for an unknown name or not four policies.
    :raises RuntimeError: past :data:`MAX_ACTIONS` actions.
    :raises games.engine.IllegalAction: if a policy chooses an illegal action.
    """
    if len(policies) != 4:
        raise ArgumentError("bad_bot",
                            f"need one policy per seat (N, E, S, W), got {len(policies)}")
    chooser = [resolve(p) for p in policies]
    if rngs is None:
        rngs = [bot_rng(seed, _name(p), k) for k, p in enumerate(policies)]
    bots = tuple(_seat_bot(p) for p in policies)
    state = new_game(seed, levels=(0, 0, 0, 0), bots=bots)
    for _ in range(MAX_ACTIONS):
        seat = state["turn"]
        if state["status"] == OVER or seat is None:
            return state
        bv = bot_view(state, seat)
        t0 = time.perf_counter()
        action = chooser[seat](bv, rngs[seat])
        if times is not None:
            times[seat].append(time.perf_counter() - t0)
        state, _events = apply(state, seat, action)
    raise RuntimeError(f"game {seed!r} did not end within {MAX_ACTIONS} actions")


@dataclass
class DealResult:
    """One deal's two games, from side A's point of view.

    ``wins``: games A won (0–2); ``point_diffs``: A's team points minus B's, one
    entry per half played in either game; ``double_clamps``: ``[by A, by B]``;
    ``first_out_a``: games whose first half A's team went out first in (0–2);
    ``times``: decision seconds ``[A's, B's]``.
    """

    wins: int
    point_diffs: list[int]
    double_clamps: list[int]
    first_out_a: int
    times: list[list[float]]


def play_deal(
    i: int, seed: str, a: PolicySpec, b: PolicySpec, tags: tuple[str, str]
) -> DealResult:
    """Play deal ``i`` twice, A on team 0 then on team 1 (see the module docstring).

    :param tags: the random-source tags of A and B.
    """
    gs = game_seed(seed, i)
    resolve(a), resolve(b)
    out = DealResult(0, [], [0, 0], 0, [[], []])
    for a_team in (0, 1):
        side = [0 if team_of(k) == a_team else 1 for k in range(4)]  # 0 = A, 1 = B
        pols = [a if s == 0 else b for s in side]
        rngs = [bot_rng(gs, tags[s], k) for k, s in enumerate(side)]
        times: list[list[float]] = [[], [], [], []]
        final = play_game(gs, pols, rngs, times)
        for k in range(4):
            out.times[side[k]].extend(times[k])
        result = final["result"]
        assert result is not None  # play_game returns finished games
        winner = result["winner"]
        out.wins += winner == a_team
        if result["double_clamp"]:
            out.double_clamps[0 if winner == a_team else 1] += 1
        for h in final["halves"]:
            out.point_diffs.append(h["points"][a_team] - h["points"][1 - a_team])
        out.first_out_a += team_of(final["halves"][0]["finish_order"][0]) == a_team
    return out


def mean_ci(xs: Sequence[float]) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean of ``xs`` and its normal 95 % interval.

    One value gives a zero-width interval; none gives ``(nan, nan, nan)``.
    """
    if not xs:
        return (math.nan, math.nan, math.nan)
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return (m, m, m)
    half = Z95 * statistics.stdev(xs) / math.sqrt(len(xs))
    return (m, m - half, m + half)


def percentile(xs: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (0–100) of ``xs`` by nearest rank; ``nan`` if empty."""
    if not xs:
        return math.nan
    s = sorted(xs)
    k = max(0, math.ceil(p / 100 * len(s)) - 1)
    return s[k]


@dataclass
class MatchResult:
    """A whole match: the deals' results in deal order (see :func:`run_match`)."""

    a: str
    b: str
    seed: str
    tags: tuple[str, str]
    deals: list[DealResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def games(self) -> int:
        """Games played: two per deal."""
        return 2 * len(self.deals)

    @property
    def deal_scores(self) -> list[float]:
        """A's score per deal: 0, 0.5 or 1."""
        return [d.wins / 2 for d in self.deals]

    def summary(self) -> dict[str, Any]:
        """The figures ``botmatch`` prints, as a JSON-able dict.

        Keys: ``a``, ``b``, ``seed``, ``tags``, ``deals``, ``games``, ``a_wins``
        (games), ``a_win_rate`` and ``a_win_rate_ci`` (over deals, fractions),
        ``point_diff_per_half`` and its ``_ci`` (points, A − B), ``halves``,
        ``double_clamps`` (``{"a": n, "b": n}`` games each side won by 双夹),
        ``a_first_out_share`` (fraction of games whose first half A's team led
        out), ``decision_ms`` (``{"a": {"median", "p99", "n"}, "b": …}``) and
        ``seconds`` (wall clock).
        """
        per_deal_diff = [statistics.fmean(d.point_diffs) for d in self.deals]
        win, wlo, whi = mean_ci(self.deal_scores)
        pd, plo, phi = mean_ci(per_deal_diff)
        times = {"a": [t for d in self.deals for t in d.times[0]],
                 "b": [t for d in self.deals for t in d.times[1]]}
        return {
            "a": self.a,
            "b": self.b,
            "seed": self.seed,
            "tags": list(self.tags),
            "deals": len(self.deals),
            "games": self.games,
            "a_wins": sum(d.wins for d in self.deals),
            "a_win_rate": win,
            "a_win_rate_ci": [max(0.0, wlo), min(1.0, whi)],
            "point_diff_per_half": pd,
            "point_diff_per_half_ci": [max(-300.0, plo), min(300.0, phi)],
            "halves": sum(len(d.point_diffs) for d in self.deals),
            "double_clamps": {"a": sum(d.double_clamps[0] for d in self.deals),
                              "b": sum(d.double_clamps[1] for d in self.deals)},
            "a_first_out_share": (
                sum(d.first_out_a for d in self.deals) / self.games if self.games else math.nan
            ),
            "decision_ms": {
                k: {"median": 1e3 * statistics.median(v) if v else math.nan,
                    "p99": 1e3 * percentile(v, 99), "n": len(v)}
                for k, v in times.items()
            },
            "seconds": self.seconds,
        }


def _play_range(
    lo: int, hi: int, seed: str, a: str, b: str, tags: tuple[str, str]
) -> list[DealResult]:
    return [play_deal(i, seed, a, b, tags) for i in range(lo, hi)]


def run_match(
    a: PolicySpec, b: PolicySpec, deals: int, seed: str | int = 0, jobs: int = 1,
    tags: tuple[str, str] | None = None,
) -> MatchResult:
    """Play ``deals`` duplicate deals of A against B (see the module docstring).

    :param a: side A's policy: a :data:`POLICIES` name, or (with ``jobs == 1``)
        a callable ``(bot_view, rng) -> action``.
    :param deals: number of deals (each two games), ≥ 0.
    :param jobs: worker processes; deals are split into contiguous blocks and
        the results put back in deal order, so any ``jobs`` gives the same result.
    :param tags: the sides' random-source tags; default their policy names.
    :raises ArgumentError: ``bad_count`` for deals < 0 or jobs < 1, ``bad_bot``
        for an unknown name or a callable with ``jobs > 1`` (processes need names).
    """
    if deals < 0 or jobs < 1:
        raise ArgumentError("bad_count", f"need deals >= 0 and jobs >= 1, not {deals}, {jobs}")
    pa, pb = resolve(a), resolve(b)
    na = a if isinstance(a, str) else getattr(pa, "__name__", "A")
    nb = b if isinstance(b, str) else getattr(pb, "__name__", "B")
    tags = tags or (na, nb)
    result = MatchResult(na, nb, str(seed), tags)
    t0 = time.perf_counter()
    if jobs == 1 or deals < 2:
        result.deals = [play_deal(i, str(seed), a, b, tags) for i in range(deals)]
    else:
        if not (isinstance(a, str) and isinstance(b, str)):
            raise ArgumentError("bad_bot", "several jobs need policy names, not callables")
        jobs = min(jobs, deals)
        cuts = [deals * j // jobs for j in range(jobs + 1)]
        # spawn, not fork: a forked child of a process with threads (a Django
        # process has its broadcast loop) can hang on a lock held at the fork
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=spawn) as pool:
            futures = [pool.submit(_play_range, cuts[j], cuts[j + 1], str(seed), a, b, tags)
                       for j in range(jobs)]
            for f in futures:
                result.deals.extend(f.result())
    result.seconds = time.perf_counter() - t0
    return result


# --- the ladder ------------------------------------------------------------------------

LADDER: tuple[str, ...] = ("beginner", "normal", "expert", "master")
"""The site's levels, weakest first (:data:`~games.engine.shapes.BOT_POLICIES`):
新手, 普通, 高手, 大师."""


def run_ladder(
    deals: int, seed: str | int = 0, jobs: int = 1, levels: Sequence[str] = LADDER,
) -> list[MatchResult]:
    """A duplicate match (:func:`run_match`) of each of ``levels`` against the one
    below it, weakest pair first: ``[normal vs beginner, expert vs normal, …]``.

    :param deals: deals per match (each two games).
    :raises ArgumentError: ``bad_bot`` for an unknown level or fewer than two,
        ``bad_count`` as :func:`run_match`.
    """
    if len(levels) < 2:
        raise ArgumentError("bad_bot", f"a ladder needs two levels or more, got {list(levels)}")
    return [run_match(levels[k + 1], levels[k], deals, seed, jobs)
            for k in range(len(levels) - 1)]


# --- seat runs (one policy per seat, seats rotating) -------------------------------------


def seating(policies: Sequence[str], i: int, rotate: bool = True) -> tuple[str, ...]:
    """The policy of each seat ``(N, E, S, W)`` in game ``i`` of a seat run.

    Without ``rotate``: ``policies`` itself. With it: the 4-tuple rotated by
    ``i % 4`` seats, seat ``k`` getting ``policies[(k - i) % 4]``, so over every
    4 games each policy sits in every seat once.

    >>> seating(("a", "b", "c", "d"), 1)
    ('d', 'a', 'b', 'c')

    :raises ArgumentError: ``bad_bot`` unless there are four policies.
    """
    if len(policies) != 4:
        raise ArgumentError("bad_bot",
                            f"need one policy per seat (N, E, S, W), got {len(policies)}")
    r = i % 4 if rotate else 0
    return tuple(policies[(k - r) % 4] for k in range(4))


def policy_team_seat(i: int, rotate: bool = True) -> int:
    """The seat team (0 = N–S, 1 = E–W) where the policies named for N and S sit
    in game ``i``: ``i % 2`` with rotation, always 0 without."""
    return (i % 2) if rotate else 0


def actions_of(state: State) -> int:
    """Number of actions (plays and passes) over all halves of a finished game."""
    return sum(len(h["actions"]) for h in state["halves"])


@dataclass
class Summary:
    """The totals of a seat run (:func:`run`).

    Team indices: ``[0]`` is N–S, ``[1]`` is E–W, either by *seat* or by *policy
    team* (the pair of policies named for N and S vs the pair named for E and W,
    wherever they sat). Counts are games unless said otherwise.
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
    """Play ``games`` games with a policy per seat and total them up (a seat run).

    :param games: number of games (≥ 0).
    :param seed: run seed; game ``i`` is seeded :func:`game_seed` ``(seed, i)``,
        its seats' random sources are :func:`bot_rng` (tag: the policy's name).
    :param policies: four policy names for seats ``(N, E, S, W)``.
    :param rotate: rotate the seating game by game (:func:`seating`).
    :param on_game: called as ``on_game(i, final_state, seating)`` after each
        game (e.g. to write its §11 record).
    :returns: a :class:`Summary`.
    :raises ArgumentError: ``bad_count`` for games < 0, ``bad_bot`` for an
        unknown name or not four policies.
    """
    if games < 0:
        raise ArgumentError("bad_count", f"games must be >= 0, not {games}")
    names = tuple(policies)
    seating(names, 0)
    for p in names:
        resolve(p)
    summary = Summary(games=games, seed=str(seed), policies=names, rotate=rotate)
    start = time.perf_counter()
    for i in range(games):
        seats = seating(names, i, rotate)
        state = play_game(game_seed(seed, i), seats)
        flip = policy_team_seat(i, rotate)  # seat team of the N–S-named policies
        result = state["result"]
        assert result is not None  # play_game returns finished games
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
