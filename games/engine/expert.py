"""The expert bot (高手): hand plan, card memory, partner play, racing (RULES.md §3–§6, §12).

``expert_policy(bot_view, rng, budget_ms=...) -> action`` decides from what a
player in its seat may know (:func:`games.engine.view.bot_view`): its own hand,
the card counts, the trick and this half's ``history``. It never sees another
hand. Given a plain :func:`~games.engine.view.view` (no ``history``) it still
plays, but counts only the cards of the current trick as seen.

How it decides, in order:

1. **Card memory.** The unseen cards are the 162 of the shoe minus its hand and
   every card played this half. From them it knows, for any play, whether some
   unseen cards could still beat it (a higher group of the same kind, a bomb, an
   atom, a hydrogen bomb, none larger than the biggest opponent hand), and how
   many higher groups could: :class:`Threats`.
2. **Hand plan.** :func:`plan` splits the hand into groups that empty it in the
   fewest plays: each rank one group (atoms and hydrogen bombs kept whole, the
   rest of their rank a group of its own); joker atoms kept; the other jokers
   put where they lower the plan's cost most (a triple made a bomb, a bomb made
   bigger). A group costs ``1 − 2·q``, ``q`` being its chance of winning a trick
   given the unseen cards, so weak groups cost about one play each and sure
   winners (controls) pay back a play.
3. **Running out.** On a lead, if every group but at most one is unbeatable, it
   plays the unbeatable ones and then the last; following, a play that cannot
   be beaten and leaves such a hand is taken at once.
4. **Leading** the group that is weakest and carries no points, avoiding a kind
   whose size equals the card count of an opponent who could go out on it, and
   leading low in the size of a nearly-out partner's hand.
5. **Following an opponent**: each play is scored by how much it lowers the
   plan's cost, its chance of holding the trick times the value of the lead
   and of the trick's points, and of stopping an opponent who is close to out;
   passing scores zero. Bombs and atoms therefore come out for rich tricks and
   against an opponent about to go out, not for nothing.
6. **Partner winning the trick**: it passes, except to go out, to feed a whole
   group of point cards when the trick looks safe, or to block an opponent who
   could go out over the partner's play. When the partner has just gone out on
   an unbeaten play, 接风 would give the lead to an opponent, so it takes the
   lead back if that is cheap.
7. **Endgame search** (``budget_ms > 0``): once few cards remain, it deals the
   unseen cards at random among the other hands (their counts kept), plays each
   candidate out with the expert's own fast rules in every seat, and picks the
   candidate that goes out first for its team in most samples, within the time
   budget.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from .cards import BIG_JOKER, COPIES, DISTINCT_CARDS, POINTS, RANK_INDEX, SMALL_JOKER, SUITS
from .combos import ATOM, BOMB, HYDROGEN, PAIR, SINGLE, TRIPLE, Play, atom_strength, classify
from .deal import next_seat, partner
from .moves import legal_plays

View = dict[str, Any]
Action = dict[str, Any]

DEFAULT_BUDGET_MS = 40.0
"""The endgame search's default time budget per decision (the server allows ≤ 50 ms)."""
DAO = 13
"""Strength of a dao rank (RULES.md §3); plain ranks are 0 (3) … 12 (2)."""
PASS: Action = {"type": "pass"}
_SMALL_KIND = {1: SINGLE, 2: PAIR, 3: TRIPLE}
_CONTROL = (BOMB, ATOM, HYDROGEN)

Group = tuple[str, str, int, int, int, bool, str]
"""One group of a plan: ``(kind, rank, strength, size, jokers, is_dao, atom_card)``.
``rank`` is ``"3"`` for jokers alone; ``atom_card`` names an atom's card (else "")."""


def strength_of(rank: str, dao: str) -> int:
    """A plain rank's strength under ``dao``: 3 → 0 … 2 → 12, the dao → 13 (§3)."""
    return DAO if rank == dao else RANK_INDEX[rank]


def card_value(card: str) -> int:
    """Points of a card (RULES.md §2)."""
    return POINTS.get(card[0], 0) if card[1] != "J" else 0


class Threats:
    """What the unseen cards could still play (RULES.md §3), for card counting.

    Built from the unseen cards (shoe − own hand − every card played this half)
    and the biggest hand an opponent still holds (no play larger than that).
    ``q(kind, strength, size, is_dao)`` is a rough chance that such a play wins
    its trick: 1.0 when nothing unseen can beat it, lower the more unseen groups
    could. Strengths are those of :class:`~games.engine.combos.Play`.
    """

    def __init__(self, unseen: Counter[str], dao: str, max_opp: int) -> None:
        self.dao = dao
        self.max_opp = max_opp
        nat = [0] * 14
        suits: list[Counter[str]] = [Counter() for _ in range(14)]
        for card, n in unseen.items():
            if n <= 0 or card[1] == "J":
                continue
            s = strength_of(card[0], dao)
            nat[s] += n
            suits[s][card[1]] += n
        self.nat = nat
        self.jokers = max(0, unseen[BIG_JOKER]) + max(0, unseen[SMALL_JOKER])
        self.joker_strength = -1 if dao == "3" else 0
        atoms: list[int] = []
        if max_opp >= 3:
            for card, n in unseen.items():
                if n >= COPIES:
                    atoms.append(atom_strength(card, dao))
        self.atoms = sorted(atoms)
        self.hydrogens = sorted(
            s for s in range(14)
            if max_opp >= 8 and nat[s] >= 8 and all(suits[s][x] >= 2 for x in SUITS)
        )
        # the biggest bomb each rank could still make (jokers join non-dao ranks)
        most = []
        for s in range(14):
            if nat[s]:
                most.append((min(max_opp, nat[s] + (self.jokers if s != DAO else 0)), s))
        if self.jokers >= 4:
            most.append((min(max_opp, self.jokers), self.joker_strength))
        self.bomb_most = [(n, s) for n, s in most if n >= 4]
        self._q: dict[tuple[str, int, int, bool], float] = {}

    def higher_same(self, strength: int, size: int) -> int:
        """How many ranks could still make a single/pair/triple of ``size`` above ``strength``."""
        if size > self.max_opp:
            return 0
        n = 0
        nat, j = self.nat, self.jokers
        for s in range(max(0, strength + 1), 14):
            c = nat[s]
            if c >= size or (c and s != DAO and c + j >= size):
                n += 1
        return n

    def bombs_over(self, size: int, strength: int) -> int:
        """How many ranks could still make a bomb beating a bomb of ``size``/``strength``."""
        return sum(1 for n, s in self.bomb_most if n > size or (n == size and s > strength))

    def beaters(self, kind: str, strength: int, size: int, is_dao: bool) -> tuple[int, int]:
        """``(same_kind, bombs)``: unseen groups of the same kind that could beat
        the play, and bombs, atoms or hydrogen bombs that could."""
        big = len(self.hydrogens)
        if kind == HYDROGEN:
            return (0, sum(1 for s in self.hydrogens if s > strength))
        if kind == ATOM:
            return (0, big + sum(1 for s in self.atoms if s > strength))
        big += len(self.atoms)
        if kind == BOMB:
            return (0, big + self.bombs_over(size, strength))
        same = self.higher_same(strength, size)
        if not is_dao:
            big += len(self.bomb_most)
        return (same, big)

    def beatable(self, kind: str, strength: int, size: int, is_dao: bool) -> bool:
        """Could any unseen cards beat this play?"""
        same, big = self.beaters(kind, strength, size, is_dao)
        return bool(same or big)

    def q(self, kind: str, strength: int, size: int, is_dao: bool) -> float:
        """A rough chance (0–1) that the play wins its trick (see the class docstring)."""
        key = (kind, strength, size, is_dao)
        got = self._q.get(key)
        if got is not None:
            return got
        same, big = self.beaters(kind, strength, size, is_dao)
        if kind in _CONTROL:
            if not big:
                v = 1.0
            else:
                base = 0.95 if kind != BOMB else {4: 0.55, 5: 0.7, 6: 0.8}.get(size, 0.88)
                v = max(0.3, base - 0.04 * big)
        elif not same:
            v = 1.0 if not big else (0.85 if is_dao else 0.7)
        else:
            v = max(0.0, 0.6 - 0.15 * same)
            if big:
                v *= 0.8
        self._q[key] = v
        return v


def plan(hand: Counter[str], dao: str, threats: Threats) -> list[Group]:
    """Split ``hand`` into the groups to empty it in the fewest plays (RULES.md §3).

    Each rank is one group, except that atoms and hydrogen bombs are kept whole
    and the rest of their rank is a group of its own. Three big (or small)
    jokers stay an atom; the other jokers go where they lower the plan's
    :func:`group_cost` most per joker (with no rank to join they are a group
    of jokers alone).

    :param hand: card → copies held.
    :returns: the groups (see :data:`Group`).
    """
    groups: list[Group] = []
    by_rank: dict[str, Counter[str]] = {}
    big = small = 0
    for card, n in hand.items():
        if n <= 0:
            continue
        if card == BIG_JOKER:
            big = n
        elif card == SMALL_JOKER:
            small = n
        else:
            by_rank.setdefault(card[0], Counter())[card[1]] += n
    for rank, suits in by_rank.items():
        s = strength_of(rank, dao)
        is_dao = s == DAO
        n = sum(suits.values())
        rest = n
        if n >= 8 and all(suits[x] >= 2 for x in SUITS):
            groups.append((HYDROGEN, rank, s, 8, 0, False, ""))
            rest = n - 8
        else:
            for x in SUITS:
                if suits[x] == COPIES:
                    card = rank + x
                    groups.append((ATOM, rank, atom_strength(card, dao), 3, 0, False, card))
                    rest -= 3
        if rest:
            groups.append((_SMALL_KIND.get(rest, BOMB), rank, s, rest, 0, is_dao, ""))
    for card, v in ((BIG_JOKER, big), (SMALL_JOKER, small)):
        if v == COPIES:
            groups.append((ATOM, "3", atom_strength(card, dao), 3, 3, False, card))
    jokers = (big if big != COPIES else 0) + (small if small != COPIES else 0)
    while jokers:
        best: tuple[float, int, int] | None = None
        for i, g in enumerate(groups):
            kind, _rank, s, size, _j, is_dao, _a = g
            if is_dao or kind in (ATOM, HYDROGEN):
                continue
            now = group_cost(g, threats)
            for j in range(1, min(jokers, 3) + 1):
                ns = size + j
                gain = (now - group_cost((_SMALL_KIND.get(ns, BOMB), "", s, ns, 0, False, ""),
                                         threats)) / j
                if best is None or gain > best[0]:
                    best = (gain, i, j)
        if best is None:
            js = threats.joker_strength
            groups.append((_SMALL_KIND.get(jokers, BOMB), "3", js, jokers, jokers, False, ""))
            break
        _gain, i, j = best
        kind, rank, s, size, gj, is_dao, a = groups[i]
        groups[i] = (_SMALL_KIND.get(size + j, BOMB), rank, s, size + j, gj + j, False, a)
        jokers -= j
    return groups


CONTROL_RESERVE = 0.25
"""Extra worth of holding a bomb, atom or hydrogen bomb beyond its chance of winning."""


def group_cost(g: Group, threats: Threats) -> float:
    """What a group costs the plan: ``1 − 2·q`` (about one play for a weak group,
    minus about one for a sure winner), less :data:`CONTROL_RESERVE` for bombs."""
    kind, _rank, s, size, _j, is_dao, _a = g
    q = threats.q(kind, s, size, is_dao)
    cost = 1.0 - 2.0 * q
    if kind in _CONTROL:
        cost -= CONTROL_RESERVE
    return cost


def plan_cost(hand: Counter[str], dao: str, threats: Threats) -> float:
    """The cost of the best plan of ``hand`` (lower is a better hand; see :func:`plan`)."""
    return sum(group_cost(g, threats) for g in plan(hand, dao, threats))


# --- the situation -------------------------------------------------------------------


class Situation:
    """Everything the expert derives from one bot_view (RULES.md §12)."""

    def __init__(self, view: View) -> None:
        self.seat: int = view["seat"]
        self.partner = partner(self.seat)
        self.dao: str = view["dao"]
        self.hand: list[str] = list(view["hand"])
        self.counter: Counter[str] = Counter(self.hand)
        self.counts: list[int] = list(view["counts"])
        trick = view["trick"]
        last = trick["last"]
        self.owner: int | None = None if last is None else last[0]
        self.table: Play | None = None if last is None else classify(last[1], self.dao)
        self.trick_points: int = trick["points"]
        self.opponents = [x for x in (next_seat(self.seat), (self.seat + 1) % 4)
                          if self.counts[x] > 0]
        unseen: Counter[str] = Counter({c: COPIES for c in DISTINCT_CARDS})
        unseen.subtract(self.counter)
        history = view.get("history")
        plays: Iterable[Sequence[Any]] = history if history is not None else trick["plays"]
        for _seat, cards in plays:
            unseen.subtract(cards)
        self.unseen = unseen
        max_opp = max((self.counts[x] for x in self.opponents), default=0)
        self.threats = Threats(unseen, self.dao, max_opp)
        self.cost_now = plan_cost(self.counter, self.dao, self.threats)

    def after(self, play: Play) -> Counter[str]:
        """The hand left after ``play``."""
        left = Counter(self.counter)
        left.subtract(play.cards)
        return left

    def q_play(self, play: Play) -> float:
        return self.threats.q(play.kind, play.strength, play.size, play.is_dao)

    def unbeatable(self, play: Play) -> bool:
        return not self.threats.beatable(play.kind, play.strength, play.size, play.is_dao)

    def can_run_out(self, hand: Counter[str]) -> bool:
        """Does every group of ``hand``'s plan but at most one beat everything unseen?"""
        groups = plan(hand, self.dao, self.threats)
        weak = sum(1 for g in groups if self.threats.beatable(g[0], g[2], g[3], g[5]))
        return weak <= 1


def _act(play: Play) -> Action:
    return {"type": "play", "cards": list(play.cards)}


def _points(play: Play) -> int:
    return sum(card_value(c) for c in play.cards)


def _find(plays: Sequence[Play], g: Group) -> Play | None:
    kind, rank, _s, size, jokers, _d, atom = g
    for p in plays:
        if p.kind == kind and p.size == size and p.jokers == jokers:
            if atom:
                if p.cards[0] == atom:
                    return p
            elif p.rank == rank:
                return p
    return None


# --- weights -------------------------------------------------------------------------

LEAD_VALUE = 0.6
"""Worth of winning the lead, in plan-cost units (about a weak group shed)."""
POINT_VALUE = 0.02
"""Worth of one point captured, in plan-cost units (10 points ≈ 0.2)."""
SPLIT_PENALTY = 0.3
"""Cost of breaking a group of the plan to follow (no group is shed)."""


def _stop_value(count: int) -> float:
    """Worth of keeping the lead from an opponent holding ``count`` cards."""
    if count <= 0:
        return 0.0
    if count <= 3:
        return 2.5
    if count <= 6:
        return 1.2
    if count <= 10:
        return 0.4
    return 0.0


def _lead(sit: Situation, plays: Sequence[Play]) -> Action:
    groups = plan(sit.counter, sit.dao, sit.threats)
    th = sit.threats
    weak = [g for g in groups if th.beatable(g[0], g[2], g[3], g[5])]
    if len(weak) <= 1:
        strong = [g for g in groups if g not in weak]
        for g in sorted(strong, key=lambda g: g[3], reverse=True):
            p = _find(plays, g)
            if p is not None:
                return _act(p)
    mate = sit.counts[sit.partner]
    best: tuple[float, int] | None = None
    options: list[Play] = []
    for g in groups:
        p = _find(plays, g)
        if p is not None:
            options.append(p)
    if 0 < mate <= 3:
        # a nearly-out partner: offer the lowest play of their hand's size
        low = next((p for p in plays if p.size == mate and p.kind in _SMALL_KIND.values()
                    and not p.jokers), None)
        if low is not None:
            options.append(low)
    if not options:
        options = list(plays)
    for i, p in enumerate(options):
        q = sit.q_play(p)
        score = 1.0 - q
        score -= POINT_VALUE * _points(p) * (1.0 - q)
        if p.kind in _CONTROL:
            score -= 0.5 + CONTROL_RESERVE
        for o in sit.opponents:
            k = sit.counts[o]
            if k <= 3 and p.size == k and q < 1.0:
                score -= 3.0
            elif k <= 6 and p.size <= k:
                score -= 0.3 * (1.0 - q)
        if 0 < mate <= 3 and p.size == mate and p.kind in _SMALL_KIND.values():
            score += 1.5 - 0.05 * p.strength
        if best is None or score > best[0]:
            best = (score, i)
    assert best is not None
    return _act(options[best[1]])


def _follow_value(sit: Situation, p: Play, lead_value: float, stop: float) -> float:
    left = sit.after(p)
    if not sum(v for v in left.values() if v > 0):
        return 100.0
    d = plan_cost(left, sit.dao, sit.threats) - sit.cost_now
    hold = sit.q_play(p)
    pts = _points(p)
    if sit.unbeatable(p) and sit.can_run_out(left):
        return 50.0
    v = -d + hold * (lead_value + POINT_VALUE * (sit.trick_points + pts) + stop)
    v -= (1.0 - hold) * POINT_VALUE * pts
    if not _is_whole(sit, p) and p.kind not in _CONTROL:
        v -= SPLIT_PENALTY
    return v


def _is_whole(sit: Situation, p: Play) -> bool:
    """Does ``p`` play all the natural cards of its rank (no group broken)?"""
    if p.kind in (ATOM, HYDROGEN):
        return True
    natural = [c for c in p.cards if c[1] != "J"]
    if not natural:
        return True
    rank = natural[0][0]
    held = sum(n for c, n in sit.counter.items() if c[0] == rank and c[1] != "J")
    return len(natural) == held


def _follow_opponent(sit: Situation, plays: Sequence[Play]) -> Action:
    assert sit.owner is not None
    k = sit.counts[sit.owner]
    stop = _stop_value(k) if k else 0.0
    lead_value = LEAD_VALUE
    best, best_v = None, 0.0
    for p in plays:
        v = _follow_value(sit, p, lead_value, stop)
        if v > best_v:
            best, best_v = p, v
    return _act(best) if best is not None else PASS


def _follow_partner(sit: Situation, plays: Sequence[Play]) -> Action:
    assert sit.owner is not None and sit.table is not None
    if sit.counts[sit.partner] == 0:
        # partner went out on this play: 接风 would hand the lead to an opponent
        best, best_v = None, 0.0
        for p in plays:
            v = _follow_value(sit, p, LEAD_VALUE + 0.4, 0.0)
            v -= (1.0 - sit.q_play(p)) * POINT_VALUE * sit.trick_points
            if v > best_v:
                best, best_v = p, v
        return _act(best) if best is not None else PASS
    nxt = next_seat(sit.seat)
    table = sit.table
    table_q = sit.q_play(table)
    # block: the next opponent could go out over the partner's play
    k = sit.counts[nxt]
    if k and table_q < 1.0 and (k == table.size or (k >= 4 and table.kind != BOMB and k <= 8)):
        blocks = [p for p in plays if sit.q_play(p) >= 0.99]
        if blocks:
            cheapest = min(blocks, key=lambda p: plan_cost(sit.after(p), sit.dao, sit.threats))
            return _act(cheapest)
    # feed a whole group of point cards when the trick looks like ours
    feed = [p for p in plays if p.kind in _SMALL_KIND.values() and not p.jokers
            and p.rank in "5TK" and p.rank != sit.dao and _is_whole(sit, p)]
    if feed and table_q >= 0.5:
        return _act(min(feed, key=lambda p: p.strength))
    return PASS


def expert_policy(view: View, rng: random.Random, budget_ms: float = DEFAULT_BUDGET_MS) -> Action:
    """The expert's action for the seat of ``view`` (see the module docstring).

    :param view: a :func:`~games.engine.view.bot_view` (a plain view also works).
    :param rng: the random source of the endgame search's samples.
    :param budget_ms: time the endgame search may take (milliseconds; 0 turns
        it off). The rules part takes a few milliseconds on its own.
    :returns: ``{"type": "play", "cards": [...]}`` or ``{"type": "pass"}``, always
        legal for the view's position.
    """
    hand: list[str] = view["hand"]
    dao: str = view["dao"]
    last = view["trick"]["last"]
    table = None if last is None else classify(last[1], dao)
    plays = legal_plays(hand, table, dao)
    for p in plays:
        if p.size == len(hand):
            return _act(p)
    if not plays:
        return PASS
    sit = Situation(view)
    if table is None:
        return _lead(sit, plays)
    if sit.owner == sit.partner:
        return _follow_partner(sit, plays)
    return _follow_opponent(sit, plays)

