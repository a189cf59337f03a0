"""The master bot (大师): inference over the hidden hands and determinized search
(RULES.md §3–§6, §12).

``master_policy(bot_view, rng) -> action`` decides from what a player in its seat
may know (:func:`games.engine.view.bot_view`): its own hand, the card counts, the
trick and this half's ``history``. It reads nothing else of the game: no other
hand and no seed (a test hands it a bot_view whose hidden hands were shuffled
and checks it decides the same).

How it decides:

1. **Inference** (:func:`infer`). The unseen cards (shoe − own hand − this
   half's plays) are the other three hands between them. Replaying this half's
   history, each seat's chance of holding each rank is weighted: a seat that
   passed over an opponent's single, pair or triple probably holds no group of
   that size that beats it (the higher ranks weigh less in its hand); a seat
   that played a group of a rank probably played all it had of it (players
   shed whole groups; :data:`READING`: how often the expert keeps some, by
   lead, bomb and size). A pass over a partner's play says nothing.
2. **Card reading** (:class:`InferredSituation`). The expert's rules
   (:func:`games.engine.expert.rules`: hand plan, partner play, racing) judge
   each play's chance of holding the trick with each opponent holding each
   unseen rank with a chance of its own from those weights, where the expert
   gives every unseen card the same ``cards held / cards unseen``
   (:class:`InferredThreats`).
3. **Candidates.** The rules' best few within :data:`MARGIN` of the top. A
   single candidate, or one that goes out or runs the hand out, is played at once
   (most decisions).
4. **Sampling** (:func:`sample_hands`). The unseen cards are dealt to the other
   seats, each card going to a seat with chance proportional to that seat's
   weight for its rank times the room left in its hand, so each hand gets its
   exact count: a deal consistent with everything the seat may know, leaning
   the way the inference says.
5. **Search.** Once the four hands hold at most :data:`SEARCH_CARDS` cards, on
   each of :data:`SAMPLES` sampled deals every candidate is played out to the
   end of the half by the expert's rules without their search in all four
   seats (:data:`PLAYOUT`: the opponents modelled as the expert they most
   likely are; the normal bot misjudged more than it was noisy, docs/bench.md
   "Fourth round") and scored by what the half's end means for the game
   (:func:`games.engine.endgame.half_value`). All candidates meet the same
   deals; the rules' first choice is played unless another candidate beats
   it by more than :data:`SURE` standard errors of their paired differences
   (early in a half the play-outs are noisy: a change the deals do not show
   clearly is not made), and then again, on average, on :data:`VERIFY` fresh
   deals (the winner of several candidates on the same deals is flattered by
   them).

Budgets are counts (samples, candidates, play-out actions), never time, so a
decision is the same on any machine and reproducible from ``rng``'s seed.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any, cast

from .bots import heuristic_policy, options
from .combos import ATOM, BOMB, HYDROGEN, classify
from .deal import team_of
from .endgame import half_value, state_from_view
from .expert import DAO, WEIGHTS, WILLING, Situation, Threats, Weights, rules
from .match import OVER, apply
from .shapes import Action, BotView, PassAction, State, View

SAMPLES = 8
"""Sampled deals per searched decision."""
WIDTH = 5
"""At most this many candidate actions are searched."""
MARGIN = 3.0
"""Candidates: actions the expert's rules score within this of the best."""
PLAYOUT = "expert"
"""Who plays the search's play-outs: ``"expert"`` (its rules, no search) or
``"normal"`` (faster; 4.5 win-rate points weaker against the expert with
width 3 and margin 1.5 before, docs/bench.md "Fourth round")."""
SURE = 0.5
"""How many standard errors a searched candidate must win by to replace the
rules' first choice (0: the best mean with :data:`PRIOR`; see :func:`pick`).
At 1.0 with :data:`READING` and :data:`SEARCH_CARDS` 50: +5.0 win-rate points
over 1,000 deals (docs/bench.md "Eighth round"); 0.5 with :data:`VERIFY`'s
second look (ninth round)."""
VERIFY = 8
"""Fresh sampled deals on which a challenger that passed :data:`SURE`'s gate
must beat the rules' first choice again, on average, before it replaces it (0:
no second look). The best of several candidates on the same deals is flattered
by those deals; judged again on others, the flattery is gone. With
:data:`SURE` 0.5: +2.3 win-rate points over 1,000 deals (docs/bench.md "Ninth
round")."""
PRIOR = 0.02
"""A candidate's bonus per place above the last in the rules' order (ties and
noise of few samples go the rules' way)."""
MAX_ROLLOUT = 600
"""A play-out longer than this many actions is cut (real halves take ~150)."""
SEARCH_CARDS = 50
"""The search runs once the four hands hold at most this many cards (the expert's
endgame search: 30). Searching from the start of the half with play-outs by a
fast policy lost to the expert (docs/bench.md): early play-outs judge badly;
from 50 cards they pay only with :data:`READING`'s deals and :data:`SURE`'s gate."""
PASS: PassAction = {"type": "pass"}
MASTER_WEIGHTS: Weights = WEIGHTS
"""The rules' worths the master plays with."""
MASTER_WILLING: tuple[float, float, float] = WILLING
"""How readily the master takes an opponent to beat a play (as :data:`WILLING`)."""

# inference factors: how much less likely a rank becomes in a seat's hand
PASS_FACTOR = {1: 0.25, 2: 0.55, 3: 0.8}
"""A pass over an opponent's single / pair / triple: each higher rank's weight
in the passer's hand is multiplied by this."""
SHED_FACTOR = 0.35
"""A played single, pair or triple (no jokers): the rest of that rank in the
player's hand is this much less likely (players shed whole groups)."""
SHED: Mapping[str | int, float | None] = {
    "lead": SHED_FACTOR, "bomb": None, 1: SHED_FACTOR, 2: SHED_FACTOR, 3: SHED_FACTOR}
"""The factor for the rest of a played group's rank in the player's hand, by what
was played: ``"bomb"`` (a bomb or a group with jokers), ``"lead"`` (another
lead, unless the partner holds 1–3 cards), else the group's size; ``None``: not weighed.
The defaults weigh singles, pairs and triples alike and leave bombs out; see
:data:`CALIBRATED_SHED`."""
FLOOR = 0.05
"""No rank's weight falls below this (inference is a guess, never a proof)."""
CALIBRATED_SHED: Mapping[str | int, float | None] = {
    "lead": 0.01, "bomb": 0.01, 1: 0.1, 2: 0.1, 3: 0.03}
""":data:`SHED` fitted to how the expert plays (``infer(view, shed_by=CALIBRATED_SHED,
floor=0.01)``): it keeps cards of a rank it led 0–6 % of the time, of a bomb's
0–3 %, of a single or pair it followed with 18–20 %, of a triple 6 %. Its deals
place 79 % of the opponents' cards in the right hand instead of 63 %. Alone it
did not move the match (+2.8 and −2.8 points on two 200-deal screens;
docs/bench.md "Seventh round"); with :data:`SURE`'s gate and the search from
50 cards it does (:data:`READING`)."""
READING: Mapping[str, Any] = {"shed_by": CALIBRATED_SHED, "floor": 0.01}
"""The master's card reading: :func:`infer`'s factors (:data:`CALIBRATED_SHED`,
floor 0.01). :func:`infer`'s own defaults (:data:`SHED`, :data:`FLOOR`) stay
what the review (:mod:`games.engine.review`) weighs its deals by."""


def _key(card: str) -> str:
    return "J" if card[1] == "J" else card[0]


def infer(view: BotView, shed: float | None = None,
          pass_factor: Mapping[int, float] | None = None,
          shed_by: Mapping[str | int, float | None] | None = None,
          floor: float | None = None) -> list[dict[str, float]]:
    """Per seat, a weight per rank key (``"3"``…``"2"``, ``"J"`` for jokers): how
    likely, relative to 1.0, each unseen card of that rank is in that seat's hand,
    from this half's plays and passes (see the module docstring, RULES.md §12).

    Replays the history's tricks (§4: a trick ends when every other seat still
    holding cards has passed) from the hand sizes at the start of the half (the
    counts now plus each seat's cards played since).

    :param shed: overrides :data:`SHED`'s factor for leads, singles, pairs and triples.
    :param pass_factor: overrides :data:`PASS_FACTOR`.
    :param shed_by: overrides :data:`SHED` (keys ``"lead"``, ``"bomb"``, 1–3).
    :param floor: overrides :data:`FLOOR`.
    """
    seat = view["seat"]
    dao = view["dao"]
    by = dict(SHED if shed_by is None else shed_by)
    if shed is not None:
        by.update({"lead": shed, 1: shed, 2: shed, 3: shed})
    pass_factor = PASS_FACTOR if pass_factor is None else pass_factor
    floor = FLOOR if floor is None else floor
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
            mate = counts[(s + 2) % 4]
            counts[s] -= len(cards)
            natural = [c for c in cards if c[1] != "J"]
            if play is not None and natural and play.kind not in (ATOM, HYDROGEN):
                if play.kind == BOMB or play.jokers:
                    f = by.get("bomb")
                elif last is None and not 0 < mate <= 3:
                    f = by.get("lead")
                else:
                    f = by.get(play.size)
                if f is not None:
                    r = natural[0][0]
                    w = weights[s]
                    w[r] = max(floor, w.get(r, 1.0) * f)
            last_seat, last, passes = s, play, 0
            continue
        passes += 1
        if (last is not None and last_seat is not None and s != seat
                and team_of(s) != team_of(last_seat) and last.size <= 3
                and last.kind not in (BOMB, ATOM, HYDROGEN)):
            w = weights[s]
            f = pass_factor[last.size]
            for r in _higher_ranks(last.rank, last.is_dao, dao):
                w[r] = max(floor, w.get(r, 1.0) * f)
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


def _p_tail(n: int, k: int, p: float) -> float:
    """P(at least ``k`` of ``n`` cards, each held with chance ``p``)."""
    return _binom_tail_p(n, k, round(p, 3))


@lru_cache(maxsize=65536)
def _binom_tail_p(n: int, k: int, p: float) -> float:
    if k > n:
        return 0.0
    if k <= 0:
        return 1.0
    below = sum(math.comb(n, i) * p**i * (1.0 - p) ** (n - i) for i in range(k))
    return max(0.0, 1.0 - below)


class InferredThreats(Threats):
    """:class:`~games.engine.expert.Threats` whose opponents hold each unseen card
    with a chance of their own, by rank, from :func:`infer` (RULES.md §12: from
    the plays and passes only), instead of the same ``cards held / cards unseen``
    for every card: a seat that passed over a single is less likely to hold the
    higher singles, so the expert's rules judge a play's chance to hold the trick
    with that knowledge.

    :param holders: per live opponent, ``(cards held, chance per strength 0–13,
        chance of a joker)``.
    """

    def __init__(self, unseen: Counter[str], dao: str,
                 holders: Sequence[tuple[int, list[float], float]],
                 willing: Sequence[float] = WILLING) -> None:
        super().__init__(unseen, dao, [c for c, _p, _j in holders])
        self.holders = [h for h in holders if h[0] > 0]
        self.willing = tuple(willing)
        self._inferred: dict[int, tuple[list[list[float]], float, float, float]] = {}

    def q(self, kind: str, strength: int, size: int, is_dao: bool) -> float:
        """As :meth:`Threats.q`, each opponent with its own chances per rank."""
        key = (kind, strength, size, is_dao)
        got = self._q.get(key)
        if got is not None:
            return got
        v = 1.0
        if self.beatable(kind, strength, size, is_dao) and self.total:
            wl = self.willing
            for j in range(len(self.holders)):
                same, bomb, atom = self._chances_of(kind, strength, size, is_dao, j)
                v *= 1.0 - wl[0] * same
                v *= (1.0 - wl[1] * bomb) * (1.0 - wl[2] * atom)
        self._q[key] = v
        return v

    def _p_avail(self, j: int, s: int) -> tuple[int, float]:
        """Cards that could make a group at strength ``s`` (jokers joining a plain
        rank) and the chance opponent ``j`` holds each (their mean)."""
        _c, ps, pj = self.holders[j]
        m = self.nat[s]
        if m and s != DAO and self.jokers:
            n = m + self.jokers
            return n, (m * ps[s] + self.jokers * pj) / n
        return m, ps[s]

    def _opponent_j(self, j: int) -> tuple[list[list[float]], float, float, float]:
        got = self._inferred.get(j)
        if got is not None:
            return got
        c, _ps, pj = self.holders[j]
        none = [[1.0] * 15 for _ in range(4)]
        for size in (1, 2, 3):
            row = none[size]
            for s in range(13, -1, -1):
                t = 0.0
                if self.nat[s] and size <= c:
                    n, p = self._p_avail(j, s)
                    t = _p_tail(n, size, p)
                row[s] = row[s + 1] * (1.0 - t)
        no_bomb = 1.0 - (_p_tail(self.jokers, 4, pj) if c >= 4 else 0.0)
        for s in range(14):
            if self.nat[s] and c >= 4:
                n, p = self._p_avail(j, s)
                no_bomb *= 1.0 - _p_tail(n, 4, p)
        p3 = min(1.0, c / self.total) ** 3 if c >= 3 else 0.0
        atom = 1.0 - (1.0 - p3) ** len(self.atoms)
        got = self._inferred[j] = (none, 1.0 - no_bomb, atom, p3)
        return got

    def _chances_of(
        self, kind: str, strength: int, size: int, is_dao: bool, j: int
    ) -> tuple[float, float, float]:
        none, bomb_any, atom_any, _p3 = self._opponent_j(j)
        if kind in (HYDROGEN, ATOM):
            return self._chances(kind, strength, size, is_dao, self.holders[j][0])
        if kind == BOMB:
            c, _ps, pj = self.holders[j]
            js = self.joker_strength
            need_j = size if js > strength else size + 1
            no = 1.0 - (_p_tail(self.jokers, need_j, pj) if need_j <= c else 0.0)
            for s in range(14):
                if self.nat[s]:
                    n, p = self._p_avail(j, s)
                    need = size if s > strength else size + 1
                    no *= 1.0 - (_p_tail(n, need, p) if need <= c else 0.0)
            return (0.0, 1.0 - no, atom_any)
        same = 1.0 - none[size][max(0, strength + 1)] if size <= 3 else 0.0
        return (same, 0.0 if is_dao else bomb_any, atom_any)


def _strength_ranks(dao: str) -> list[str]:
    """The rank key of each strength 0–13 under ``dao`` (``""``: no card has it)."""
    out = ["" if r == dao else r for r in _ORDER]
    out.append(dao)
    return out


class InferredSituation(Situation):
    """The expert's :class:`~games.engine.expert.Situation` with
    :class:`InferredThreats` from ``weights`` (:func:`infer`)."""

    def __init__(self, view: View, weights: Sequence[dict[str, float]],
                 w: Weights = WEIGHTS, willing: Sequence[float] = WILLING) -> None:
        super().__init__(view, w)
        others = [x for x in range(4) if x != self.seat and self.counts[x] > 0]
        ranks = _strength_ranks(self.dao)
        holders: list[tuple[int, list[float], float]] = []
        for o in self.opponents:
            c = self.counts[o]
            ps: list[float] = []
            for key in [*ranks, "J"]:
                den = sum(self.counts[x] * weights[x].get(key, 1.0) for x in others)
                ps.append(c * weights[o].get(key, 1.0) / den if key and den > 0 else 0.0)
            holders.append((c, ps[:14], ps[14]))
        self.threats = InferredThreats(self.unseen, self.dao, holders, willing)
        self._shapes = {}


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
    assert seat is not None
    assert hand is not None
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


def _fast_view(state: State, seat: int) -> View:
    """The part of a view the normal bot reads, sharing the state's lists
    (play-outs only: the normal bot never changes its view)."""
    return cast(View, {
        "seat": seat, "hand": state["hands"][seat], "dao": state["dao"],
        "trick": state["trick"], "counts": [len(h) for h in state["hands"]],
    })


def expert_rules_action(state: State, seat: int) -> Action:
    """The expert's action without its search (:func:`expert_policy` with
    ``budget_ms=0``) for ``seat`` of a play-out's ``state``, where every hand is
    a sampled one: the cards ``seat`` has not seen are the other three hands, so
    they are counted from those hands instead of replaying the half's history
    (the same action, faster; RULES.md §12 is kept by the sampling, which alone
    decides those hands)."""
    view = _fast_view(state, seat)
    _, _table, plays, out = options(view)
    if out is not None:
        return out
    if not plays:
        return PASS
    unseen: Counter[str] = Counter()
    for x, h in enumerate(state["hands"]):
        if x != seat:
            unseen.update(h)
    return rules(Situation(view, WEIGHTS, unseen), plays)[0][1]


def play_out_half(start: State, seat: int, action: Action, playout: str,
                  rng: random.Random, limit: int) -> State | None:
    """Play ``action`` for ``seat`` in ``start``, then the rest of the half with the
    normal bot (``playout="normal"``) or the expert without its search
    (``"expert"``: :func:`expert_rules_action`) in every seat.
    Deterministic (``rng`` is not drawn from). Returns the state once the half is
    over, or ``None`` if it runs past ``limit`` actions (RULES.md §4–§5)."""
    half = start["half"]
    state, _ = apply(start, seat, action)
    n = 1
    expert = playout == "expert"
    while state["status"] != OVER and state["half"] == half:
        s = state["turn"]
        if s is None or n >= limit:
            return None
        if expert:
            act = expert_rules_action(state, s)
        else:
            act = heuristic_policy(_fast_view(state, s), rng)
        state, _ = apply(state, s, act)
        n += 1
    return state


def rollout(start: State, seat: int, action: Action, team: int, view: BotView,
            rng: random.Random, playout: str = "normal") -> float:
    """Play ``action`` then the rest of the half (:func:`play_out_half`); the
    half's worth to ``team`` (:func:`~games.engine.endgame.half_value`), or 0.5
    if it runs past :data:`MAX_ROLLOUT` actions."""
    end = play_out_half(start, seat, action, playout, rng, MAX_ROLLOUT)
    return 0.5 if end is None else half_value(view, end["halves"][-1], team)


def _candidates(
    view: View, width: int = WIDTH, search_cards: int = SEARCH_CARDS, inference: bool = True,
    w: Weights = WEIGHTS, willing: Sequence[float] = WILLING, lead_cards: int | None = None,
    factors: Mapping[str, Any] | None = None, margin: float = MARGIN,
) -> tuple[Situation | None, list[Action], list[dict[str, float]]]:
    """``(situation, candidates, weights)``: the actions worth searching, best by
    the rules (with the inference's threats) first, a single one when the rules
    decide alone; and the inference's weights (see the module docstring)."""
    uniform: list[dict[str, float]] = [{}, {}, {}, {}]
    _, _table, plays, out = options(view)
    if out is not None:
        return None, [out], uniform
    if not plays:
        return None, [PASS], uniform
    history: Any = cast(dict[str, Any], view).get("history")
    if history is not None and inference:
        weights = infer(cast(BotView, view), **(READING if factors is None else factors))
        sit: Situation = InferredSituation(view, weights, w, willing)
    else:
        weights = uniform
        sit = Situation(view, w)
    scored = rules(sit, plays)
    best = scored[0][0]
    limit = search_cards
    if lead_cards is not None and sit.table is None and search_cards >= 0:
        limit = lead_cards
    if history is None or best >= 50.0 or sum(sit.counts) > limit:
        return sit, [scored[0][1]], weights
    cands: list[Action] = []
    for score, action in scored:
        if score >= best - margin and action not in cands:
            cands.append(action)
    return sit, cands[:width], weights


def _tuned(
    tune: Mapping[str, Any] | None,
) -> tuple[Weights, Sequence[float], dict[str, Any] | None]:
    if not tune:
        return MASTER_WEIGHTS, MASTER_WILLING, None
    tune = dict(tune)
    willing: Sequence[float] = tuple(tune.pop("willing", MASTER_WILLING))
    factors: dict[str, Any] = {k: tune.pop(k) for k in ("shed", "pass_factor", "shed_by", "floor")
                               if k in tune}
    return replace(MASTER_WEIGHTS, **tune), willing, factors or None


def candidates_for(view: View) -> list[Action]:
    """The actions :func:`master_policy` compares by search for ``view`` (one
    action: the rules decide alone). For tests and benchmarks."""
    return _candidates(view)[1]


def master_policy(
    view: View, rng: random.Random, samples: int = SAMPLES, width: int = WIDTH,
    inference: bool = True, search_cards: int = SEARCH_CARDS, playout: str = PLAYOUT,
    tune: Mapping[str, Any] | None = None, lead_cards: int | None = None, sure: float = SURE,
    margin: float = MARGIN, verify: int = -1,
) -> Action:
    """The master's action for the seat of ``view`` (see the module docstring).

    :param view: a :func:`~games.engine.view.bot_view` (a plain view, without
        ``history``, is played by the expert's rules alone).
    :param rng: the random source of the sampled deals: the same view and the
        same seed give the same action.
    :param samples: sampled deals per searched decision (0: no search).
    :param width: candidates searched, at most.
    :param margin: candidates are the actions the rules score within this of the
        best (:data:`MARGIN`).
    :param inference: weigh the threats and the sampled deals by :func:`infer`
        with :data:`READING` (else the expert's uniform card counting and
        uniform deals).
    :param search_cards: search only once the four hands hold at most this many.
    :param playout: the play-outs' policy: ``"expert"`` (:data:`PLAYOUT`) or
        ``"normal"`` (fast).
    :param sure: keep the rules' first choice unless the search shows another
        better by this many standard errors (0: the best mean; see :func:`pick`).
    :param verify: fresh deals for a second look at a challenger the search
        prefers (:data:`VERIFY`, when negative; 0: none).
    :param lead_cards: if given, leads are searched from this many cards in the
        four hands (follows from ``search_cards``).
    :param tune: overrides of the rules' worths, for tuning: fields of
        :class:`~games.engine.expert.Weights`, ``willing`` (see
        :data:`~games.engine.expert.WILLING`), and the inference's ``shed``,
        ``pass_factor``, ``shed_by`` and ``floor`` (:func:`infer`; any of
        these replaces :data:`READING` as a whole).
    :returns: a legal ``{"type": "play", "cards": [...]}`` or ``{"type": "pass"}``.
    :raises ArgumentError: ``bad_seat`` for a spectator's view (no hand).
    """
    w, willing, factors = _tuned(tune)
    sit, cands, weights = _candidates(view, width, search_cards if samples > 0 else -1,
                                      inference, w, willing, lead_cards, factors, margin)
    if len(cands) < 2:
        return cands[0]
    assert sit is not None
    bv = cast(BotView, view)
    seat = sit.seat
    team = team_of(seat)

    def play_outs(actions: Sequence[Action], deals: int) -> list[list[float]]:
        # every action meets the same sampled deals
        values: list[list[float]] = [[] for _ in actions]
        for _ in range(deals):
            hands = sample_hands(bv, sit.unseen, weights, rng)
            start = state_from_view(bv, hands)
            start["actions"] = []  # the play-outs read no history; copying it costs
            for i, action in enumerate(actions):
                values[i].append(rollout(start, seat, action, team, bv, rng, playout))
        return values

    chosen = pick(play_outs(cands, samples), sure)
    verify = VERIFY if verify < 0 else verify
    if chosen and verify > 0:
        # the best of several candidates on the same deals is flattered by them:
        # the challenger meets the rules' choice again on fresh deals
        first, challenger = play_outs((cands[0], cands[chosen]), verify)
        if statistics.fmean(challenger) <= statistics.fmean(first):
            return cands[0]
    return cands[chosen]


def pick(values: Sequence[Sequence[float]], sure: float = 0.0) -> int:
    """The candidate to play from each candidate's play-out values on the same
    sampled deals, the rules' first choice first.

    With ``sure == 0``: the best mean, plus :data:`PRIOR` per place above the
    last in the rules' order. With ``sure > 0``: the best mean, but the rules'
    first choice is kept unless that candidate beats it by more than ``sure``
    standard errors of their paired differences (few samples are noisy early in
    a half; a change the deals do not show clearly is not made).
    """
    n = len(values)
    if sure <= 0:
        totals = [sum(v) + PRIOR * (n - i) * len(v) for i, v in enumerate(values)]
        return max(range(n), key=lambda i: (totals[i], -i))
    means = [statistics.fmean(v) for v in values]
    best = max(range(n), key=lambda i: (means[i], -i))
    if best == 0:
        return 0
    d = [a - b for a, b in zip(values[best], values[0], strict=True)]
    se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) >= 2 else math.inf
    return best if statistics.fmean(d) > sure * se else 0
