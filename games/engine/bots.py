"""Bots: engine policies that choose an action from a seat's view (RULES.md §3–§4).

A policy is ``choose(view, rng) -> action``: it sees exactly what a human in
that seat sees (:func:`games.engine.view.view`), so a bot cannot cheat.

- :func:`random_policy` plays a uniformly random legal action (for fuzzing).
- :func:`heuristic_policy` plays like a sensible human: leads its weakest whole
  group, beats with the cheapest play that works, keeps bombs, atoms, jokers and
  dao cards for need, does not overtake its partner without reason, and feeds
  point cards to a trick its partner is winning.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import TypeAlias

from .combos import ATOM, BOMB, HYDROGEN, Play, classify
from .deal import partner
from .errors import ArgumentError
from .moves import legal_plays
from .shapes import Action, View

Policy: TypeAlias = Callable[[View, random.Random], Action]
"""``choose(view, rng) -> action``: a bot (the view of its own seat, RULES.md §12)."""


def _table(view: View) -> Play | None:
    last = view["trick"]["last"]
    return None if last is None else classify(last[1], view["dao"])


def _hand(view: View) -> list[str]:
    hand = view["hand"]
    if hand is None:
        raise ArgumentError("bad_seat", "a policy plays a seat: a spectator's view has no hand")
    return hand


def _as_action(play: Play) -> Action:
    return {"type": "play", "cards": list(play.cards)}


def random_policy(view: View, rng: random.Random) -> Action:
    """A uniformly random legal action: any legal play, or a pass when following.

    :raises ArgumentError: ``bad_seat`` for a spectator's view (no hand).
    """
    table = _table(view)
    plays = legal_plays(_hand(view), table, view["dao"])
    n = len(plays) + (table is not None)
    i = rng.randrange(n)
    return _as_action(plays[i]) if i < len(plays) else {"type": "pass"}


def _cost(play: Play, groups: Counter[str], atom_ranks: set[str], dao: str) -> int:
    """How much of the hand's strength a play spends (lower is cheaper)."""
    if play.kind == HYDROGEN:
        return 400 + play.strength
    if play.kind == ATOM:
        return 300 + play.strength
    cost = play.strength + 12 * play.jokers
    natural = play.size - play.jokers
    if play.rank == dao and natural:
        cost += 20
    if natural and play.jokers < play.size:
        n = groups[play.rank]
        if n >= 4 and natural < n:
            cost += 60  # breaks a bomb
        elif natural < n:
            cost += 4  # splits a small group
        if play.rank in atom_ranks:
            cost += 50  # spends cards of a rank that holds an atom
    if play.kind == BOMB:
        cost += 100 + 10 * play.size
    return cost


def heuristic_policy(view: View, rng: random.Random) -> Action:
    """A sensible human's choice for the seat of ``view`` (see module docstring).

    ``rng`` breaks no ties (the policy is deterministic); it is accepted so all
    policies share one signature.

    :raises ArgumentError: ``bad_seat`` for a spectator's view (no hand).
    """
    hand = _hand(view)
    dao = view["dao"]
    table = _table(view)
    plays = legal_plays(hand, table, dao)
    for p in plays:
        if p.size == len(hand):
            return _as_action(p)  # goes out
    if not plays:
        return {"type": "pass"}
    groups: Counter[str] = Counter(c[0] for c in hand if c[1] != "J")
    card_counts = Counter(hand)
    atom_ranks = {c[0] for c, n in card_counts.items() if n == 3 and c[1] != "J"}
    costs = [(_cost(p, groups, atom_ranks, dao), i) for i, p in enumerate(plays)]
    if table is None:
        whole = [
            (cost, i) for cost, i in costs
            if plays[i].kind not in (ATOM, HYDROGEN) and plays[i].jokers == 0
            and plays[i].size == groups[plays[i].rank] and plays[i].rank != dao
        ]
        best = min(whole or costs)
        return _as_action(plays[best[1]])
    seat = view["seat"]
    last = view["trick"]["last"]
    assert seat is not None and last is not None  # a hand is a seat's; a table is a last play
    last_seat = last[0]
    points = view["trick"]["points"]
    counts = view["counts"]
    if last_seat == partner(seat):
        # feed points: a whole small group of point cards, no jokers, no dao
        feed = [
            (cost, i) for cost, i in costs
            if plays[i].kind not in (BOMB, ATOM, HYDROGEN) and plays[i].jokers == 0
            and plays[i].rank in "5TK" and plays[i].rank != dao
            and plays[i].size == groups[plays[i].rank]
        ]
        if feed and counts[last_seat] > 0:
            return _as_action(plays[min(feed)[1]])
        return {"type": "pass"}
    danger = min(counts[x] for x in (0, 1, 2, 3) if x % 2 != seat % 2)
    danger = danger if danger else 99
    budget = 40 + points * 3 + (200 if danger <= 6 else 0) + (100 if len(hand) <= 8 else 0)
    best_cost, best_i = min(costs)
    if best_cost <= budget:
        return _as_action(plays[best_i])
    return {"type": "pass"}


POLICIES: dict[str, Policy] = {"random": random_policy, "heuristic": heuristic_policy}
