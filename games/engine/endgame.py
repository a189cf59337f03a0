"""The expert's endgame search: sampled play-outs within a budget (RULES.md §4–§6, §12).

Once few cards remain, the rules' top few candidate actions are compared by
playing them out. Each sample deals the unseen cards (the 162 of the shoe minus
the bot's hand and every card played this half) at random among the other
hands, keeping each hand's card count, so it is consistent with everything the
bot may know and nothing more. Every candidate is played out on the same
sample to the end of the half by a fast policy in all four seats, and scored
by what the half's end means for the game (§6): a double clamp won or lost, the
game decided in the second half, or, after a first half, first_out and points.
The candidate with the best mean wins; ties keep the rules' order.

The budget is a count of play-out actions (:data:`ACTIONS_PER_MS` per
millisecond of the nominal budget), never a clock, so the same view and random
source give the same choice on any machine and under any load.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

from .deal import team_of
from .match import OVER, PLAYING, apply
from .shapes import Action, BotPolicy, BotView, HalfSummary, SeatCards, State, View, seat_cards
from .upgrade import STATE_VERSION
from .view import bot_view

Policy = Callable[[View, random.Random], Action]

ACTIONS_PER_MS = 6.0
"""Play-out actions a nominal millisecond of budget buys (measured with
``bench/bots.py``: about 0.13 ms of CPU each, so a search takes about 80 % of
its nominal budget). The budget is this count, not a time."""
MAX_SAMPLES = 24
"""No more samples than this, however large the budget."""


def state_from_view(view: BotView, hands: Sequence[Sequence[str]]) -> State:
    """An engine state for the position of ``view`` (a bot_view) with ``hands``
    standing in for the four hands. Secrets are dummies: a play-out never ends
    a half by dealing real cards (the second half is dealt from a dummy seed)."""
    trick = view["trick"]
    last = trick["last"]
    passes = 0
    for _seat, cards in reversed(trick["plays"]):
        if cards:
            break
        passes += 1
    bots: list[BotPolicy | None] = ["expert", "expert", "expert", "expert"]
    halves: list[HalfSummary] = [
        {**h, "actions": [], "left": [[], [], [], []]}  # only points and first_out are read
        for h in view["halves"]
    ]
    return {
        "version": STATE_VERSION, "seed": "endgame-sample", "levels": [0, 0, 0, 0],
        "bots": bots, "practice": True, "stake": 0, "status": PLAYING, "seq": view["seq"],
        "halves": halves, "result": None,
        "half": view["half"], "indicator": view["indicator"],
        "indicator_seat": view["indicator_seat"], "dao": view["dao"], "first_dealt": 0,
        "leader": view["leader"], "hands": [list(h) for h in hands], "turn": view["turn"],
        "trick": {"leader": trick["leader"], "plays": _entries(trick["plays"]),
                  "last": None if last is None else seat_cards(last[0], list(last[1])),
                  "passes": passes, "points": trick["points"]},
        "captured": list(view["captured"]), "finish_order": list(view["finish_order"]),
        "actions": _entries(view["history"]),
    }


def _entries(entries: Sequence[SeatCards]) -> list[SeatCards]:
    return [seat_cards(seat, list(cards)) for seat, cards in entries]


def half_value(view: View, summary: HalfSummary, team: int) -> float:
    """What a finished half is worth to ``team`` (0–1, RULES.md §5–§6).

    A double clamp or a decided game: 1 or 0 (a point margin breaks ties).
    After a first half without a double clamp: 0.5, ± 0.3 for first_out, plus
    the point margin (points are 300 per half).
    """
    pts = summary["points"]
    first_team = team_of(summary["finish_order"][0])
    margin = (pts[team] - pts[1 - team]) / 3000.0
    if summary["half"] == 1:
        if summary["end"] == "A":
            return (1.0 if first_team == team else 0.0) + margin
        if min(pts) < 60:
            return (1.0 if pts[team] >= 60 else 0.0) + margin
        return 0.5 + (0.3 if first_team == team else -0.3) + (pts[team] - 150) / 500.0
    first = view["halves"][0]
    totals = [first["points"][t] + pts[t] for t in (0, 1)]
    t1 = team_of(first["finish_order"][0])
    winner = t1 if totals[t1] >= 300 else 1 - t1
    return (1.0 if winner == team else 0.0) + margin


def search(
    view: BotView, candidates: Sequence[Action], unseen: Counter[str], rng: random.Random,
    budget_ms: float, policy: Policy,
) -> int | None:
    """Index of the best of ``candidates`` by sampled play-outs, or ``None`` when
    the budget allows not one complete sample.

    :param view: the bot_view of the seat to act.
    :param unseen: card → copies the other hands hold between them.
    :param policy: the fast policy playing every seat in the play-outs.
    """
    seat = view["seat"]
    hand = view["hand"]
    if seat is None or hand is None:
        return None
    counts = view["counts"]
    others = [x for x in range(4) if x != seat and counts[x] > 0]
    pool = sorted(unseen.elements())
    need = sum(counts[x] for x in others)
    if len(pool) < need or len(candidates) < 2:
        return None
    nodes = int(budget_ms * ACTIONS_PER_MS)
    team = team_of(seat)
    totals = [0.0] * len(candidates)
    samples = 0
    while samples < MAX_SAMPLES:
        rng.shuffle(pool)
        hands: list[list[str]] = [[], [], [], []]
        hands[seat] = list(hand)
        at = 0
        for x in others:
            hands[x] = pool[at:at + counts[x]]
            at += counts[x]
        start = state_from_view(view, hands)
        values: list[float] = []
        for action in candidates:
            got = _play_out(start, seat, action, team, view, policy, rng, nodes)
            if got is None:
                break
            value, used = got
            nodes -= used
            values.append(value)
        if len(values) < len(candidates):
            break
        for i, v in enumerate(values):
            totals[i] += v
        samples += 1
    if not samples:
        return None
    return max(range(len(candidates)), key=lambda i: (totals[i], -i))


def _play_out(
    start: State, seat: int, action: Action, team: int, view: BotView, policy: Policy,
    rng: random.Random, nodes: int,
) -> tuple[float, int] | None:
    """Play ``action`` then the rest of the half; ``(value, actions used)``, or
    ``None`` when the action budget (a count) runs out first."""
    half = start["half"]
    state, _ = apply(start, seat, action)
    used = 1
    while state["status"] != OVER and state["half"] == half:
        s = state["turn"]
        if s is None or used >= nodes:
            return None
        state, _ = apply(state, s, policy(bot_view(state, s), rng))
        used += 1
    return half_value(view, state["halves"][-1], team), used
