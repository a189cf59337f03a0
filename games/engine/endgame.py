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


def half_value(view: View, summary: HalfSummary, team: int, first_out: float = 0.3) -> float:
    """What a finished half is worth to ``team`` (0–1, RULES.md §5–§6).

    A double clamp or a decided game: 1 or 0 (a point margin breaks ties).
    After a first half without a double clamp: 0.5, ± ``first_out`` (0.3) for
    first_out, plus the point margin (points are 300 per half).
    """
    pts = summary["points"]
    first_team = team_of(summary["finish_order"][0])
    margin = (pts[team] - pts[1 - team]) / 3000.0
    if summary["half"] == 1:
        if summary["end"] == "A":
            return (1.0 if first_team == team else 0.0) + margin
        if min(pts) < 60:
            return (1.0 if pts[team] >= 60 else 0.0) + margin
        return 0.5 + (first_out if first_team == team else -first_out) + (pts[team] - 150) / 500.0
    first = view["halves"][0]
    totals = [first["points"][t] + pts[t] for t in (0, 1)]
    t1 = team_of(first["finish_order"][0])
    winner = t1 if totals[t1] >= 300 else 1 - t1
    return (1.0 if winner == team else 0.0) + margin


SECOND_HALF_LEAD: tuple[float, ...] = (
    1.0, 0.8808, 0.8739, 0.866, 0.8579, 0.8476, 0.8368, 0.8257, 0.8176, 0.809, 0.7994, 0.786,
    0.7735, 0.7611, 0.7508, 0.7398, 0.7297, 0.7192, 0.7091, 0.6969, 0.6846, 0.6717, 0.661,
    0.6511, 0.6415, 0.6299, 0.6163, 0.6016, 0.5878, 0.5749, 0.5613, 0.5462, 0.5298, 0.5146,
    0.4998, 0.4866, 0.4735, 0.4595, 0.443, 0.4235, 0.4041, 0.3867, 0.3723, 0.3583, 0.344,
    0.3283, 0.3136, 0.3, 0.2891, 0.2801, 0.2733, 0.2663, 0.2599, 0.252, 0.2442, 0.2347, 0.2266,
    0.2192, 0.2141, 0.2089, 0.2036,
)
"""``SECOND_HALF_LEAD[k]``: the chance that the team leading a second half (the
first half's first_out team, RULES.md §2/§4) scores at least ``5·k`` of its 300
points, ``k`` = 0…60, from the 604 second halves of 1,200 games of the expert's
rules in every seat (``bench/second_half.py --games 1200`` prints it): the
leading team scores 161.7 on average (sd 105), and 32 % of second halves end
by (A), all 300 points to one team."""


def second_half_win(points: int, first_out: bool) -> float:
    """The chance that a team wins the game after a first half without a double
    clamp in which it scored ``points`` and was (or was not) first_out's team:
    it needs 300 in all if it was, else 305 (RULES.md §6), and its second-half
    points follow :data:`SECOND_HALF_LEAD` (it leads the second half if it was
    first_out's team)."""
    if first_out:
        k = (300 - points + 4) // 5
        return SECOND_HALF_LEAD[min(60, max(0, k))]
    k = (points + 4) // 5  # the other team leads and must score <= points - 5
    return 1.0 - SECOND_HALF_LEAD[min(60, max(0, k))] if k <= 60 else 1.0


def game_value(view: View, summary: HalfSummary, team: int) -> float:
    """What a finished half is worth to ``team`` as the chance it wins the game
    (RULES.md §5–§6), a point margin breaking ties: as :func:`half_value`, except
    that a first half without a double clamp is worth :func:`second_half_win`
    (where :func:`half_value` gives first_out a fixed 0.3 and each point
    1/500)."""
    if summary["half"] != 1 or summary["end"] == "A" or min(summary["points"]) < 60:
        return half_value(view, summary, team)
    pts = summary["points"]
    first = team_of(summary["finish_order"][0]) == team
    return second_half_win(pts[team], first) + (pts[team] - pts[1 - team]) / 30000.0


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
