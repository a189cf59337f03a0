"""The master bot (大师): inference over the hidden hands and determinized search
(RULES.md §3–§6, §12).

``master_policy(bot_view, rng) -> action`` decides from what a player in its seat
may know (:func:`games.engine.view.bot_view`): its own hand, the card counts, the
trick and this half's ``history``. It reads nothing else of the game: no other
hand and no seed (a test hands it a bot_view whose hidden hands were shuffled
and checks it decides the same).

How it decides:

1. **Candidates.** The expert's rules (:func:`games.engine.expert.rules`) score
   every sensible action; the best few within :data:`MARGIN` of the top are the
   candidates. A single candidate, or one that goes out or runs the hand out, is
   played at once (most decisions: the median stays the expert's).
2. **Inference** (:func:`infer`). The unseen cards (shoe − own hand − this
   half's plays) are the other three hands between them. Replaying this half's
   history, each seat's chance of holding each rank is weighted: a seat that
   passed over an opponent's single, pair or triple probably holds no group of
   that size that beats it (the higher ranks weigh less in its hand); a seat
   that played a group of a rank probably played all it had of it (players
   shed whole groups).
3. **Sampling** (:func:`sample_hands`). The unseen cards are dealt to the other
   seats, each card going to a seat with chance proportional to that seat's
   weight for its rank times the room left in its hand, so each hand gets its
   exact count: a deal consistent with everything the seat may know.
4. **Search.** On each of :data:`SAMPLES` sampled deals every candidate is
   played out to the end of the half by the normal bot in all four seats (a
   fast policy) and scored by what the half's end means for the game
   (:func:`games.engine.endgame.half_value`). The candidate with the best mean,
   plus a small prior for the rules' order, is played.

Budgets are counts (samples, candidates, play-out actions), never time, so a
decision is the same on any machine and reproducible from ``rng``'s seed.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any, cast

from .bots import options
from .combos import ATOM, BOMB, HYDROGEN, PAIR, SINGLE, TRIPLE, beats, classify
from .deal import team_of
from .endgame import half_value, state_from_view
from .expert import WEIGHTS, Situation, rules, strength_of
from .match import OVER, apply
from .shapes import Action, BotView, PassAction, State, View

SAMPLES = 6
"""Sampled deals per searched decision."""
WIDTH = 3
"""At most this many candidate actions are searched."""
MARGIN = 1.5
"""Candidates: actions the expert's rules score within this of the best."""
PRIOR = 0.02
"""A candidate's bonus per place above the last in the rules' order (ties and
noise of few samples go the rules' way)."""
MAX_ROLLOUT = 600
"""A play-out longer than this many actions is cut (real halves take ~150)."""
SEARCH_CARDS = 162
"""The search runs once the four hands hold at most this many cards (162: always)."""
PASS: PassAction = {"type": "pass"}

# inference factors: how much less likely a rank becomes in a seat's hand
PASS_FACTOR = {1: 0.25, 2: 0.55, 3: 0.8}
"""A pass over an opponent's single / pair / triple: each higher rank's weight
in the passer's hand is multiplied by this."""
SHED_FACTOR = 0.35
"""A played single, pair or triple (no jokers): the rest of that rank in the
player's hand is this much less likely (players shed whole groups)."""
FLOOR = 0.05
"""No rank's weight falls below this (inference is a guess, never a proof)."""


def _key(card: str) -> str:
    return "J" if card[1] == "J" else card[0]


def infer(view: BotView) -> list[dict[str, float]]:
    """Per seat, a weight per rank key (``"3"``…``"2"``, ``"J"`` for jokers): how
    likely, relative to 1.0, each unseen card of that rank is in that seat's hand,
    from this half's plays and passes (see the module docstring, RULES.md §12).

    Replays the history's tricks (§4: a trick ends when every other seat still
    holding cards has passed) from the hand sizes at the start of the half (the
    counts now plus each seat's cards played since).
    """
    seat = view["seat"]
    dao = view["dao"]
    weights: list[dict[str, float]] = [{} for _ in range(4)]
    counts = list(view["counts"])
    history = view["history"]
    for s, cards in history:
        counts[s] += len(cards)
    last_seat: int | None = None
    last = None
    passes = 0
    for s, cards in history:
        if cards:
            play = classify(cards, dao)
            counts[s] -= len(cards)
            if play is not None and play.kind not in (BOMB, ATOM, HYDROGEN) and not play.jokers:
                w = weights[s]
                w[play.rank] = max(FLOOR, w.get(play.rank, 1.0) * SHED_FACTOR)
            last_seat, last, passes = s, play, 0
            continue
        passes += 1
        if (last is not None and last_seat is not None and s != seat
                and team_of(s) != team_of(last_seat) and last.size <= 3
                and last.kind not in (BOMB, ATOM, HYDROGEN)):
            w = weights[s]
            f = PASS_FACTOR[last.size]
            for r in _higher_ranks(last.rank, last.is_dao, dao):
                w[r] = max(FLOOR, w.get(r, 1.0) * f)
        others = sum(1 for x in range(4) if x != last_seat and counts[x] > 0)
        if passes >= others:
            last_seat, last, passes = None, None, 0
    return weights


_ORDER = "3456789TJQKA2"


def _higher_ranks(rank: str, is_dao: bool, dao: str) -> list[str]:
    """Ranks whose natural group of the same size beats one of ``rank`` (§3)."""
    if is_dao:
        return []
    out = [r for r in _ORDER[_ORDER.index(rank) + 1:] if r != dao]
    if rank != dao:
        out.append(dao)
    return out


def sample_hands(
    view: BotView, unseen: Counter[str], weights: Sequence[dict[str, float]], rng: random.Random
) -> list[list[str]]:
    """A deal of ``unseen`` to the other seats, each getting exactly its count.

    Cards are taken in a random order; each goes to a seat still short of its
    count with chance proportional to ``weights[seat][rank]`` times the room left
    in that hand, so the deal is consistent with the counts and leans the way the
    inference says. The bot's own seat keeps its hand.
    """
    seat = view["seat"]
    hand = view["hand"]
    assert seat is not None and hand is not None
    counts = view["counts"]
    hands: list[list[str]] = [[], [], [], []]
    hands[seat] = list(hand)
    room = [0 if x == seat else counts[x] for x in range(4)]
    pool = sorted(unseen.elements())
    rng.shuffle(pool)
    seats = [x for x in range(4) if room[x] > 0]
    for card in pool:
        k = _key(card)
        ws = [weights[x].get(k, 1.0) * room[x] for x in seats]
        total = sum(ws)
        if total <= 0:
            break
        u = rng.random() * total
        pick = seats[-1]
        for x, w in zip(seats, ws, strict=True):
            if u < w:
                pick = x
                break
            u -= w
        hands[pick].append(card)
        room[pick] -= 1
        if room[pick] == 0:
            seats.remove(pick)
    return hands


def fast_policy(state: State, seat: int) -> Action:
    """The play-outs' policy: the normal bot's habits on rank groups, without
    listing every legal play (several times faster than :func:`heuristic_policy`).

    Goes out when the whole hand is one play that may be played. Leading: the
    weakest whole group of one rank that is a single, pair or triple (else the
    weakest card). Following an opponent's single, pair or triple: the weakest
    rank above it with enough cards, not breaking a bomb; a bomb only against an
    opponent close to going out or a rich trick. Passes on its partner's play.
    Always legal (RULES.md §3–§4).
    """
    hand = state["hands"][seat]
    dao = state["dao"]
    trick = state["trick"]
    last = trick["last"]
    table = None if last is None else classify(last[1], dao)
    whole = classify(hand, dao)
    if whole is not None and (table is None or beats(whole, table)):
        return {"type": "play", "cards": list(hand)}
    groups: dict[str, list[str]] = {}
    for c in hand:
        if c[1] != "J":
            groups.setdefault(c[0], []).append(c)
    order = sorted(groups, key=lambda r: strength_of(r, dao))
    if table is None:
        for r in order:
            g = groups[r]
            if len(g) <= 3 and r != dao:
                p = classify(g, dao)
                if p is not None and p.kind in (SINGLE, PAIR, TRIPLE):
                    return {"type": "play", "cards": list(g)}
        return {"type": "play", "cards": [hand[0]]}
    assert last is not None
    owner = last[0]
    if team_of(owner) == team_of(seat):
        return PASS
    counts = state["hands"]
    urgent = len(counts[owner]) <= 6 or trick["points"] >= 25
    if table.kind in (SINGLE, PAIR, TRIPLE):
        size = table.size
        for r in order:
            g = groups[r]
            if size <= len(g) < 4 and strength_of(r, dao) >= table.strength:
                pick = g[:size] if size < 3 or len(set(g[:3])) > 1 else []
                if pick:
                    p = classify(pick, dao)
                    if p is not None and beats(p, table):
                        return {"type": "play", "cards": pick}
    if not urgent:
        return PASS
    for r in order:
        g = groups[r]
        if len(g) >= 4:
            p = classify(g, dao)
            if p is not None and beats(p, table):
                return {"type": "play", "cards": list(g)}
    return PASS


def rollout(start: State, seat: int, action: Action, team: int, view: BotView,
            rng: random.Random) -> float:
    """Play ``action`` then the rest of the half with the normal bot in every seat;
    the half's worth to ``team`` (:func:`~games.engine.endgame.half_value`), or
    0.5 if it runs past :data:`MAX_ROLLOUT` actions."""
    half = start["half"]
    state, _ = apply(start, seat, action)
    n = 1
    while state["status"] != OVER and state["half"] == half:
        s = state["turn"]
        if s is None or n >= MAX_ROLLOUT:
            return 0.5
        state, _ = apply(state, s, fast_policy(state, s))
        n += 1
    return half_value(view, state["halves"][-1], team)


def _candidates(
    view: View, width: int = WIDTH, search_cards: int = SEARCH_CARDS
) -> tuple[Situation | None, list[Action]]:
    """``(situation, candidates)``: the actions worth searching, best by the rules
    first; a single one when the rules decide alone (see the module docstring)."""
    _, _table, plays, out = options(view)
    if out is not None:
        return None, [out]
    if not plays:
        return None, [PASS]
    sit = Situation(view, WEIGHTS)
    scored = rules(sit, plays)
    history: Any = cast(dict[str, Any], view).get("history")
    best = scored[0][0]
    if history is None or best >= 50.0 or sum(sit.counts) > search_cards:
        return sit, [scored[0][1]]
    cands: list[Action] = []
    for score, action in scored:
        if score >= best - MARGIN and action not in cands:
            cands.append(action)
    return sit, cands[:width]


def candidates_for(view: View) -> list[Action]:
    """The actions :func:`master_policy` compares by search for ``view`` (one
    action: the rules decide alone). For tests and benchmarks."""
    return _candidates(view)[1]


def master_policy(
    view: View, rng: random.Random, samples: int = SAMPLES, width: int = WIDTH,
    inference: bool = True, search_cards: int = SEARCH_CARDS,
) -> Action:
    """The master's action for the seat of ``view`` (see the module docstring).

    :param view: a :func:`~games.engine.view.bot_view` (a plain view, without
        ``history``, is played by the expert's rules alone).
    :param rng: the random source of the sampled deals and play-outs: the same
        view and the same seed give the same action.
    :param samples: sampled deals per searched decision (0: no search).
    :param width: candidates searched, at most.
    :param inference: weight the sampled deals by :func:`infer` (else uniform).
    :param search_cards: search only once the four hands hold at most this many.
    :returns: a legal ``{"type": "play", "cards": [...]}`` or ``{"type": "pass"}``.
    :raises ArgumentError: ``bad_seat`` for a spectator's view (no hand).
    """
    sit, cands = _candidates(view, width, search_cards if samples > 0 else -1)
    if len(cands) < 2:
        return cands[0]
    assert sit is not None
    bv = cast(BotView, view)
    seat = sit.seat
    weights = infer(bv) if inference else [{} for _ in range(4)]
    team = team_of(seat)
    totals = [PRIOR * (len(cands) - i) * samples for i in range(len(cands))]
    for _ in range(samples):
        hands = sample_hands(bv, sit.unseen, weights, rng)
        start = state_from_view(bv, hands)
        start["actions"] = []  # play-outs need no history; copying it is the cost
        for i, action in enumerate(cands):
            totals[i] += rollout(start, seat, action, team, bv, rng)
    return cands[max(range(len(cands)), key=lambda i: (totals[i], -i))]

