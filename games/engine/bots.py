"""Bots: engine policies that choose an action from a seat's view (RULES.md §3–§4, §12).

A policy is ``choose(bot_view, rng) -> action``: it sees exactly what a player
in that seat may know (:func:`games.engine.view.bot_view`: the seat's view plus
this half's ``history``), so a bot cannot cheat. The policies of this module
read only the plain :func:`games.engine.view.view` part, so they accept either.

Levels (by name in :data:`games.engine.policies.POLICIES`, as the site and
``botmatch`` use them; the site's levels are :data:`~games.engine.shapes.BOT_POLICIES`):

- ``random``: :func:`random_policy`, a uniformly random legal action (fuzzing).
- ``beginner`` (新手): :func:`beginner_policy`, legal but loose: beats whatever
  it can with the cheapest play, often passes at random, ignores its partner.
- ``normal`` (普通), alias ``heuristic``: :func:`heuristic_policy` plays like a
  sensible casual player: leads its weakest whole group, beats with the cheapest
  play that works, keeps bombs, atoms, jokers and dao cards for need, does not
  overtake its partner without reason, and feeds point cards to a trick its
  partner is winning.
- ``expert`` (高手): :func:`games.engine.expert.expert_policy` (hand plan, card
  memory, partner play, racing, endgame search; see that module).
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


def options(view: View) -> tuple[list[str], Play | None, list[Play], Action | None]:
    """``(hand, table, plays, out)`` for the seat of ``view``: its hand, the play to
    beat (``None`` on a lead), every legal play (:func:`legal_plays`), and the play
    that empties the hand if there is one (going out is always right).

    :raises ArgumentError: ``bad_seat`` for a spectator's view (no hand).
    """
    hand = _hand(view)
    table = _table(view)
    plays = legal_plays(hand, table, view["dao"])
    out = next((_as_action(p) for p in plays if p.size == len(hand)), None)
    return hand, table, plays, out


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
    hand, table, plays, out = options(view)
    if out is not None:
        return out
    dao = view["dao"]
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
    assert seat is not None
    assert last is not None
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


def beginner_policy(view: View, rng: random.Random) -> Action:
    """新手: legal but loose (RULES.md §3–§4).

    Goes out when one play empties its hand. Leading, it plays the lowest
    single, pair or triple of a random rank it holds (splitting groups freely).
    Following, it passes one time in four at random; otherwise it beats the
    table with the cheapest play (weakest first, bombs last), partner or not,
    and passes when nothing beats. ``rng`` drives its random choices.

    :raises ArgumentError: ``bad_seat`` for a spectator's view (no hand).
    """
    _, table, plays, out = options(view)
    if out is not None:
        return out
    if table is None:
        small = [p for p in plays if p.kind not in (BOMB, ATOM, HYDROGEN) and not p.jokers]
        pool = small or plays
        rank = rng.choice(sorted({p.rank for p in pool}))
        return _as_action(next(p for p in pool if p.rank == rank))
    if not plays or rng.random() < 0.25:
        return {"type": "pass"}
    return _as_action(plays[0])
