"""Duplicate-deal matches between two bot policies (RULES.md §4–§6, §12). Pure Python.

The logic behind ``python manage.py botmatch``. As in bridge and DouZero's
evaluation, every deal is played twice with the same cards: once with policy A
in seats N and S (team 0) and B in E and W, once with the teams swapped. The
luck of the deal cancels, so a few hundred deals separate two policies.

Seeds. Deal ``i`` (0-based) of a match with seed ``S`` is the game seed
``f"{S}:{i}"`` (as in ``manage.py simulate``); both its games use it, so the
first half's hands are identical (the second half is the same shuffle, dealt
from the first half's first_out). The bot in seat ``k`` playing for a side
whose random-source tag is ``t`` draws from ``random.Random(f"{S}:{i}:{t}:{k}")``.
A side's tag defaults to its policy name, so swapping A and B replays exactly
the same games with the sides' labels exchanged (the result mirrors), and A
against A with one tag plays two identical games per deal (give the sides
different tags to compare a policy with itself).

Scores. Each deal scores A 0, ½ or 1 (games won out of two, halved); A's win
rate is the mean over deals and its 95 % interval is the normal one over those
per-deal scores (the two games of a deal are correlated, so games are not
independent samples). Likewise the team-point difference A − B per half is
averaged within each deal first (over the halves of both its games).

>>> r = run_match("heuristic", "random", deals=2, seed="doc")
>>> r.games, len(r.deal_scores)
(4, 2)
"""

from __future__ import annotations

import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .bots import Policy
from .deal import team_of
from .errors import ArgumentError
from .match import OVER, apply, new_game
from .policies import POLICIES
from .shapes import State
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


def play_game(
    seed: str, policies: Sequence[Policy], rngs: Sequence[random.Random],
    times: Sequence[list[float]] | None = None,
) -> State:
    """Play one whole game, each seat's bot choosing from its :func:`bot_view`.

    :param policies: the policy of each seat (N, E, S, W).
    :param rngs: each seat's random source.
    :param times: if given, seat ``k``'s decision times (seconds, ``perf_counter``)
        are appended to ``times[k]``.
    :returns: the final state (``status == "over"``).
    :raises RuntimeError: past :data:`MAX_ACTIONS` actions.
    :raises games.engine.IllegalAction: if a policy chooses an illegal action.
    """
    state = new_game(seed, levels=(0, 0, 0, 0), bots=(True, True, True, True))
    for _ in range(MAX_ACTIONS):
        seat = state["turn"]
        if state["status"] == OVER or seat is None:
            return state
        bv = bot_view(state, seat)
        t0 = time.perf_counter()
        action = policies[seat](bv, rngs[seat])
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
    gs = f"{seed}:{i}"
    pa, pb = resolve(a), resolve(b)
    out = DealResult(0, [], [0, 0], 0, [[], []])
    for a_team in (0, 1):
        side = [0 if team_of(k) == a_team else 1 for k in range(4)]  # 0 = A, 1 = B
        pols = [pa if s == 0 else pb for s in side]
        rngs = [random.Random(f"{gs}:{tags[s]}:{k}") for k, s in enumerate(side)]
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
