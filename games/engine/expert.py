"""The expert bot (高手): hand plan, card memory, partner play, racing (RULES.md §3–§6, §12).

``expert_policy(bot_view, rng, budget_ms=...) -> action`` decides from what a
player in its seat may know (:func:`games.engine.view.bot_view`): its own hand,
the card counts, the trick and this half's ``history``. It never sees another
hand. Given a plain :func:`~games.engine.view.view` (no ``history``) it still
plays, but counts only the cards of the current trick as seen.

How it decides, in order:

1. **Card memory.** The unseen cards are the 162 of the shoe minus its hand and
   every card played this half (the other three hands between them). From them
   it knows, for any play, whether unseen cards could still beat it at all (a
   higher group of the same kind, a bomb, an atom, a hydrogen bomb, none larger
   than the biggest opponent hand), and the chance that an opponent holds and
   spends such a beater, each unseen card being in an opponent's hand with
   chance ``cards held / cards unseen``: :class:`Threats`.
2. **Hand plan.** :func:`plan` splits the hand into groups that empty it in the
   fewest plays: each rank one group (atoms and hydrogen bombs kept whole, the
   rest of their rank a group of its own); joker atoms kept; the other jokers
   put where they lower the plan's cost most (a triple made a bomb, a bomb made
   bigger). A group costs ``1 − 2·q``, ``q`` being its chance of winning a trick,
   less ``reserve · q`` for bombs, atoms and hydrogen bombs (:func:`group_cost`):
   weak groups cost about one play each, sure winners pay back plays.
3. **Running out.** On a lead, if every group but at most one is unbeatable, it
   plays the unbeatable ones and then the last; following, a play that cannot
   be beaten and leaves such a hand is taken at once.
4. **Leading** the group that is weakest and carries no points, avoiding a kind
   whose size equals the card count of an opponent who could go out on it, and
   leading low in the size of a nearly-out partner's hand.
5. **Following an opponent**: each play is scored by how much it lowers the
   plan's cost, plus its chance of holding the trick times the worth of the
   lead, of the trick's points and of stopping an opponent close to out (more
   when the hand then nearly runs out); passing scores zero. Weak bombs are
   spent to take the lead (a race is won by leads), strong ones are kept for
   rich tricks and for an opponent about to go out.
6. **Partner winning the trick**: it passes, except to go out, to feed a whole
   group of point cards when the trick looks safe, or to block an opponent who
   could go out over the partner's play. When the partner has just gone out on
   an unbeaten play, 接风 would give the lead to an opponent, so it takes the
   lead back if that is cheap.
7. **Endgame search** (``budget_ms > 0``, a bot_view, ≤ :data:`SEARCH_CARDS`
   cards in the four hands): the rules' best few actions are played out on
   random deals of the unseen cards among the other hands (their counts kept)
   by the normal bot in every seat, and the one whose half ends best for its
   team on average is played (:mod:`games.engine.endgame`).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, cast

from . import endgame
from .bots import heuristic_policy, options
from .cards import BIG_JOKER, COPIES, DISTINCT_CARDS, POINTS, RANK_INDEX, SMALL_JOKER, SUITS
from .combos import ATOM, BOMB, HYDROGEN, PAIR, SINGLE, TRIPLE, Play, atom_strength, classify
from .deal import next_seat, partner
from .errors import ArgumentError
from .shapes import Action, BotView, PassAction, PlayAction, View

DEFAULT_BUDGET_MS = 40.0
"""The endgame search's default budget per decision, in nominal milliseconds: a
count of play-out actions (:data:`games.engine.endgame.ACTIONS_PER_MS` each, so
240), never a clock, so a decision is reproducible from its seed (about 30 ms of
one core at most; the server allows ≤ 50 ms)."""
SEARCH_CARDS = 30
"""The endgame search runs once the four hands hold at most this many cards."""
SEARCH_MARGIN = 1.5
"""Candidates for the search: actions the rules score within this of the best."""
SEARCH_WIDTH = 3
"""At most this many candidates are played out."""
DAO = 13
"""Strength of a dao rank (RULES.md §3); plain ranks are 0 (3) … 12 (2)."""
PASS: PassAction = {"type": "pass"}
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
    and the live opponents' card counts (no play larger than a hand).
    :meth:`beatable` says whether anything unseen could beat a play at all;
    :meth:`q` estimates the chance that the play wins its trick. Strengths are
    those of :class:`~games.engine.combos.Play`.
    """

    def __init__(self, unseen: Counter[str], dao: str, opp_counts: Sequence[int]) -> None:
        self.dao = dao
        self.opp_counts = [c for c in opp_counts if c > 0]
        self.max_opp = max_opp = max(self.opp_counts, default=0)
        self.total = sum(n for n in unseen.values() if n > 0)
        nat = [0] * 14
        index = RANK_INDEX
        for card, n in unseen.items():
            if n <= 0 or card[1] == "J":
                continue
            r = card[0]
            nat[DAO if r == dao else index[r]] += n
        self.nat = nat
        self.jokers = max(0, unseen[BIG_JOKER]) + max(0, unseen[SMALL_JOKER])
        self.joker_strength = -1 if dao == "3" else 0
        atoms: list[int] = []
        if max_opp >= 3:
            for card, n in unseen.items():
                if n >= COPIES:
                    atoms.append(atom_strength(card, dao))
        self.atoms = sorted(atoms)
        self.hydrogens: list[int] = []
        if max_opp >= 8 and any(n >= 8 for n in nat):
            suits: list[Counter[str]] = [Counter() for _ in range(14)]
            for card, n in unseen.items():
                if n > 0 and card[1] != "J":
                    suits[strength_of(card[0], dao)][card[1]] += n
            self.hydrogens = [s for s in range(14)
                              if nat[s] >= 8 and all(suits[s][x] >= 2 for x in SUITS)]
        # the biggest bomb each rank could still make (jokers join non-dao ranks)
        most = []
        for s in range(14):
            if nat[s]:
                most.append((min(max_opp, nat[s] + (self.jokers if s != DAO else 0)), s))
        if self.jokers >= 4:
            most.append((min(max_opp, self.jokers), self.joker_strength))
        self.bomb_most = [(n, s) for n, s in most if n >= 4]
        self._q: dict[tuple[str, int, int, bool], float] = {}
        self._beaters: dict[tuple[str, int, int, bool], tuple[int, int]] = {}
        self._opps: dict[int, tuple[list[list[float]], float, float, float]] = {}

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
        key = (kind, strength, size, is_dao)
        got = self._beaters.get(key)
        if got is None:
            got = self._beaters[key] = self._count_beaters(kind, strength, size, is_dao)
        return got

    def _count_beaters(self, kind: str, strength: int, size: int, is_dao: bool) -> tuple[int, int]:
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
        """A chance (0–1) that the play wins its trick against the live opponents.

        1.0 when nothing unseen can beat it. Otherwise each opponent, holding
        ``c`` of the ``U`` unseen cards, is taken to hold each unseen card with
        chance ``c / U``; from that come its chances to hold a higher group of
        the same kind, a bomb that beats the play, or an atom, and each is
        weighed by how readily a player spends it (:data:`WILLING`).
        """
        key = (kind, strength, size, is_dao)
        got = self._q.get(key)
        if got is not None:
            return got
        v = 1.0
        if self.beatable(kind, strength, size, is_dao) and self.total:
            for c in self.opp_counts:
                same, bomb, atom = self._chances(kind, strength, size, is_dao, c)
                v *= 1.0 - WILLING[0] * same
                v *= (1.0 - WILLING[1] * bomb) * (1.0 - WILLING[2] * atom)
        self._q[key] = v
        return v

    def _tail(self, n: int, k: int, c: int) -> float:
        return _binom_tail(n, k, c, self.total)

    def _avail(self, s: int) -> int:
        m = self.nat[s]
        return m + self.jokers if m and s != DAO else m

    def _opponent(self, c: int) -> tuple[list[list[float]], float, float, float]:
        """For an opponent of ``c`` cards: ``none[size][s]`` (chance it holds no
        group of ``size`` 1–3 at strength ``s`` or above), its chances of holding
        any bomb and any atom, and ``p³`` (one given atom)."""
        got = self._opps.get(c)
        if got is not None:
            return got
        total, tail = self.total, _binom_tail
        avail = [self._avail(s) for s in range(14)]
        # a tail of more cards than there are (or than c) is 0: skipped, the
        # products unchanged (this runs at every step of a play-out)
        none = [[1.0] * 15 for _ in range(4)]
        for size in (1, 2, 3):
            row = none[size]
            for s in range(13, -1, -1):
                n = avail[s]
                if n >= size and c >= size:
                    row[s] = row[s + 1] * (1.0 - tail(n, size, c, total))
                else:
                    row[s] = row[s + 1]
        no_bomb = 1.0 - self._tail(self.jokers, 4, c)
        if c >= 4:
            for n in avail:
                if n >= 4:
                    no_bomb *= 1.0 - tail(n, 4, c, total)
        p3 = min(1.0, c / self.total) ** 3 if c >= 3 else 0.0
        atom = 1.0 - (1.0 - p3) ** len(self.atoms)
        got = self._opps[c] = (none, 1.0 - no_bomb, atom, p3)
        return got

    def _chances(
        self, kind: str, strength: int, size: int, is_dao: bool, c: int
    ) -> tuple[float, float, float]:
        """An opponent of ``c`` cards: chances to hold a same-kind beater, a bomb
        beater and an atom (or hydrogen) beater of the play."""
        none, bomb_any, atom_any, p3 = self._opponent(c)
        if kind == HYDROGEN:
            return (0.0, 0.0, 0.05 if any(s > strength for s in self.hydrogens) else 0.0)
        if kind == ATOM:
            n = sum(1 for s in self.atoms if s > strength)
            return (0.0, 0.0, 1.0 - (1.0 - p3) ** n + (0.05 if self.hydrogens else 0.0))
        if kind == BOMB:
            js = self.joker_strength
            no = 1.0 - self._tail(self.jokers, size if js > strength else size + 1, c)
            for s in range(14):
                if self.nat[s]:
                    no *= 1.0 - self._tail(self._avail(s), size if s > strength else size + 1, c)
            return (0.0, 1.0 - no, atom_any)
        same = 1.0 - none[size][max(0, strength + 1)] if size <= 3 else 0.0
        return (same, 0.0 if is_dao else bomb_any, atom_any)


@lru_cache(maxsize=65536)
def _binom_tail(n: int, k: int, c: int, total: int) -> float:
    """P(a hand of ``c`` of the ``total`` unseen cards holds ≥ ``k`` of ``n`` given
    ones), each card taken independently with chance ``c / total``."""
    if k > c or k > n or total <= 0:
        return 0.0
    if k <= 0:
        return 1.0
    p = min(1.0, c / total)
    below = sum(math.comb(n, i) * p**i * (1.0 - p) ** (n - i) for i in range(k))
    return max(0.0, 1.0 - below)


WILLING = (0.9, 0.45, 0.3)
"""How readily an opponent beats a play when it can: with a higher group of the
same kind, with a bomb, with an atom (used by :meth:`Threats.q`)."""


_SUIT_POS = {x: i for i, x in enumerate(SUITS)}


@lru_cache(maxsize=16384)
def _rank_groups(rank: str, dao: str, shape: tuple[int, ...]) -> tuple[Group, ...]:
    """The groups of one rank held as ``shape`` (copies per suit, ♠♥♣♦): a
    hydrogen bomb or the atoms kept whole, the rest of the rank one group."""
    s = strength_of(rank, dao)
    n = sum(shape)
    rest = n
    out: list[Group] = []
    if n >= 8 and min(shape) >= 2:
        out.append((HYDROGEN, rank, s, 8, 0, False, ""))
        rest = n - 8
    else:
        for x, v in zip(SUITS, shape, strict=True):
            if v == COPIES:
                card = rank + x
                out.append((ATOM, rank, atom_strength(card, dao), 3, 0, False, card))
                rest -= 3
    if rest:
        out.append((_SMALL_KIND.get(rest, BOMB), rank, s, rest, 0, s == DAO, ""))
    return tuple(out)


def plan(
    hand: Mapping[str, int], dao: str, threats: Threats, w: Weights | None = None
) -> list[Group]:
    """Split ``hand`` into the groups to empty it in the fewest plays (RULES.md §3).

    Each rank is one group, except that atoms and hydrogen bombs are kept whole
    and the rest of their rank is a group of its own. Three big (or small)
    jokers stay an atom; the other jokers go where they lower the plan's
    :func:`group_cost` most per joker (with no rank to join they are a group
    of jokers alone).

    :param hand: card → copies held.
    :param w: the weights of :func:`group_cost` (default :data:`WEIGHTS`).
    :returns: the groups (see :data:`Group`).
    """
    w = w or WEIGHTS
    shapes: dict[str, list[int]] = {}
    big = small = 0
    for card, n in hand.items():
        if n <= 0:
            continue
        if card[1] == "J":
            if card == BIG_JOKER:
                big = n
            else:
                small = n
            continue
        shape = shapes.get(card[0])
        if shape is None:
            shape = shapes[card[0]] = [0, 0, 0, 0]
        shape[_SUIT_POS[card[1]]] += n
    groups: list[Group] = []
    for rank, shape in shapes.items():
        groups.extend(_rank_groups(rank, dao, tuple(shape)))
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
            now = group_cost(g, threats, w)
            for j in range(1, min(jokers, 3) + 1):
                ns = size + j
                joined = (_SMALL_KIND.get(ns, BOMB), "", s, ns, 0, False, "")
                gain = (now - group_cost(joined, threats, w)) / j
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


@dataclass(frozen=True)
class Weights:
    """The expert's tunable worths, in plan-cost units (about one play each).

    ``lead``: winning the lead; ``point``: one point captured (or lost);
    ``split``: breaking a group of the plan to follow; ``reserve``: holding a
    bomb, atom or hydrogen bomb, times its chance of winning (so bombs come out
    for rich tricks and races, not for nothing); ``race``: winning the lead
    when the rest of the hand then nearly runs out; ``stop``: keeping the lead
    from an opponent holding ≤ 3, ≤ 6 or ≤ 10 cards; ``feed_q``: how sure the
    partner's play must be to hold before point cards are fed to it;
    ``mate_lead``: leading low in the size of a nearly-out partner's hand.
    """

    lead: float = 0.6
    point: float = 0.02
    split: float = 0.3
    reserve: float = 1.6
    race: float = 1.5
    stop: tuple[float, float, float] = (2.5, 1.2, 0.4)
    feed_q: float = 0.5
    mate_lead: float = 1.5


WEIGHTS = Weights()
"""The weights the site's expert plays with (tuned with ``manage.py botmatch``)."""


def group_cost(g: Group, threats: Threats, w: Weights | None = None) -> float:
    """What a group costs the plan: ``1 − 2·q`` (about one play for a weak group,
    minus about one for a sure winner), less ``w.reserve · q`` for a bomb, atom
    or hydrogen bomb (RULES.md §3 kinds)."""
    kind, _rank, s, size, _j, is_dao, _a = g
    q = threats.q(kind, s, size, is_dao)
    cost = 1.0 - 2.0 * q
    if kind in _CONTROL:
        cost -= (w or WEIGHTS).reserve * q
    return cost


def plan_cost(
    hand: Counter[str], dao: str, threats: Threats, w: Weights | None = None
) -> float:
    """The cost of the best plan of ``hand`` (lower is a better hand; see :func:`plan`)."""
    return sum(group_cost(g, threats, w) for g in plan(hand, dao, threats, w))


# --- the situation -------------------------------------------------------------------


class Situation:
    """Everything the expert derives from one bot_view (RULES.md §12).

    ``unseen``: card → copies not in this hand and not played this half (the
    other three hands between them; a play-out, whose hands are all sampled, may
    pass those hands in as ``unseen``: the same cards, counted faster);
    ``threats``: :class:`Threats` of those, bounded by the biggest opponent
    hand; ``table``: the play to beat or ``None``; ``owner``: who made it;
    ``cost_now``: the hand's plan cost.
    """

    def __init__(self, view: View, w: Weights, unseen: Counter[str] | None = None) -> None:
        seat, hand = view["seat"], view["hand"]
        if seat is None or hand is None:
            raise ArgumentError("bad_seat", "a bot plays a seat: a spectator's view has no hand")
        self.w = w
        self.seat: int = seat
        self.partner = partner(seat)
        self.dao: str = view["dao"]
        self.hand: list[str] = list(hand)
        self.counter: Counter[str] = Counter(self.hand)
        self.counts: list[int] = list(view["counts"])
        trick = view["trick"]
        last = trick["last"]
        self.owner: int | None = None if last is None else last[0]
        self.table: Play | None = None if last is None else classify(last[1], self.dao)
        self.trick_points: int = trick["points"]
        self.opponents = [x for x in (next_seat(self.seat), (self.seat + 1) % 4)
                          if self.counts[x] > 0]
        if unseen is None:
            unseen = Counter({c: COPIES for c in DISTINCT_CARDS})
            unseen.subtract(self.counter)
            history = _history(view)
            plays: Iterable[Sequence[Any]] = history if history is not None else trick["plays"]
            for _seat, cards in plays:
                unseen.subtract(cards)
        self.unseen = +unseen
        self.threats = Threats(self.unseen, self.dao, [self.counts[x] for x in self.opponents])
        self._shapes: dict[tuple[tuple[str, int], ...], tuple[float, int, int, int]] = {}

    @cached_property
    def cost_now(self) -> float:
        """The hand's plan cost (computed when a follow is first scored: leads
        and most partner follows never need it)."""
        return self.cost(self.counter)

    def cost(self, hand: Counter[str]) -> float:
        """The plan cost of ``hand`` (see :func:`plan_cost`)."""
        return self.shape(hand)[0]

    def after(self, play: Play) -> Counter[str]:
        """The hand left after ``play``."""
        left = self.counter.copy()
        for c in play.cards:
            n = left[c] - 1
            if n:
                left[c] = n
            else:
                del left[c]
        return left

    def q_play(self, play: Play) -> float:
        return self.threats.q(play.kind, play.strength, play.size, play.is_dao)

    def unbeatable(self, play: Play) -> bool:
        return not self.threats.beatable(play.kind, play.strength, play.size, play.is_dao)

    def shape(self, hand: Counter[str]) -> tuple[float, int, int, int]:
        """``(cost, groups, beatable, weak)`` of ``hand``'s plan: its cost, all its
        groups, those some unseen cards could beat, and those with under an even
        chance to win a trick. Memoised per hand for this decision."""
        key = tuple(sorted(hand.items()))
        got = self._shapes.get(key)
        if got is not None:
            return got
        th, w = self.threats, self.w
        groups = plan(hand, self.dao, th, w)
        cost = sum(group_cost(g, th, w) for g in groups)
        beatable = sum(1 for g in groups if th.beatable(g[0], g[2], g[3], g[5]))
        weak = sum(1 for g in groups if th.q(g[0], g[2], g[3], g[5]) < 0.5)
        got = (cost, len(groups), beatable, weak)
        self._shapes[key] = got
        return got

    def stop(self, seat: int) -> float:
        """Worth of keeping the lead from ``seat`` if it is a live opponent."""
        if seat not in self.opponents:
            return 0.0
        k = self.counts[seat]
        s = self.w.stop
        return s[0] if k <= 3 else s[1] if k <= 6 else s[2] if k <= 10 else 0.0


def _history(view: View) -> list[Any] | None:
    """The view's ``history`` if it is a :class:`BotView`, else ``None``."""
    history: list[Any] | None = cast(dict[str, Any], view).get("history")
    return history


def _act(play: Play) -> PlayAction:
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


Scored = list[tuple[float, Action]]
"""Candidate actions with the rules' scores, best first."""


def _ranked(scored: Scored) -> Scored:
    return sorted(scored, key=lambda x: -x[0])


def _lead(sit: Situation, plays: Sequence[Play]) -> Scored:
    """Score the leads: run out when the plan allows, else the weakest group."""
    w, th = sit.w, sit.threats
    groups = plan(sit.counter, sit.dao, th, w)
    beatable = [g for g in groups if th.beatable(g[0], g[2], g[3], g[5])]
    if len(beatable) <= 1:
        sure = [g for g in groups if g not in beatable]
        for g in sorted(sure, key=lambda g: g[3], reverse=True):
            p = _find(plays, g)
            if p is not None:
                return [(100.0, _act(p))]
    mate = sit.counts[sit.partner]
    options: list[Play] = []
    for g in groups:
        p = _find(plays, g)
        if p is not None:
            options.append(p)
    if 0 < mate <= 3:
        low = next((p for p in plays if p.size == mate and p.kind in _SMALL_KIND.values()
                    and not p.jokers), None)
        if low is not None and low not in options:
            options.append(low)
    if not options:
        options = list(plays)
    scored: Scored = []
    for p in options:
        q = sit.q_play(p)
        score = 1.0 - q
        score -= w.point * _points(p) * (1.0 - q)
        if p.kind in _CONTROL:
            score -= 0.5 + w.reserve * q
        for o in sit.opponents:
            k = sit.counts[o]
            if k <= 3 and p.size == k and q < 1.0:
                score -= 3.0
            elif k <= 6 and p.size <= k:
                score -= 0.3 * (1.0 - q)
        if 0 < mate <= 3 and p.size == mate and p.kind in _SMALL_KIND.values():
            score += w.mate_lead - 0.05 * p.strength
        scored.append((score, _act(p)))
    return _ranked(scored)


def _follow_value(sit: Situation, p: Play, lead: float, stop: float) -> float:
    """Score of following with ``p`` against passing (0): plan progress, chance
    of holding the trick times what the lead and the points are worth."""
    w = sit.w
    left = sit.after(p)
    if not left:
        return 100.0
    cost, n, beatable, weak = sit.shape(left)
    if beatable <= 1 and sit.unbeatable(p):
        return 50.0  # wins the lead and runs out
    d = cost - sit.cost_now
    pts = _points(p)
    hold = sit.q_play(p)
    gain = lead + w.point * (sit.trick_points + pts) + stop
    if weak <= n - weak + 1:
        gain += w.race
    v = -d + hold * gain - (1.0 - hold) * w.point * pts
    if not _is_whole(sit, p) and p.kind not in _CONTROL:
        v -= w.split
    return v


def candidates(hand: Mapping[str, int], plays: Sequence[Play]) -> list[Play]:
    """The plays worth scoring: of the plays that differ only in how many jokers
    stand in for cards of the rank, the one with fewest jokers and the one using
    every card of the rank; of a rank's bombs, the smallest, those of all its
    cards (with at most one joker more) and the biggest. Atoms and hydrogen
    bombs all stay."""
    held: dict[str, int] = {}
    for c, n in hand.items():
        if c[1] != "J":
            held[c[0]] = held.get(c[0], 0) + n
    sizes: dict[str, list[int]] = {}
    for p in plays:
        if p.kind == BOMB:
            sizes.setdefault(p.rank, []).append(p.size)
    seen: set[tuple[str, str, int]] = set()
    out: list[Play] = []
    for p in plays:  # legal_plays lists fewer jokers first within a (kind, rank, size)
        if p.kind in (ATOM, HYDROGEN):
            out.append(p)
            continue
        n = held.get(p.rank, 0) if p.jokers < p.size else 0
        if p.kind == BOMB:
            ss = sizes[p.rank]
            if p.size not in (min(ss), max(ss), n, n + 1):
                continue
        key = (p.kind, p.rank, p.size)
        if key not in seen or p.size - p.jokers == n:
            seen.add(key)
            out.append(p)
    return out


def _follow_opponent(sit: Situation, plays: Sequence[Play]) -> Scored:
    assert sit.owner is not None
    stop = sit.stop(sit.owner)
    scored: Scored = [(0.0, PASS)]
    for p in candidates(sit.counter, plays):
        scored.append((_follow_value(sit, p, sit.w.lead, stop), _act(p)))
    return _ranked(scored)


def _follow_partner(sit: Situation, plays: Sequence[Play]) -> Scored:
    assert sit.owner is not None
    assert sit.table is not None
    w = sit.w
    scored: Scored = [(0.0, PASS)]
    if sit.counts[sit.partner] == 0:
        # partner went out on this play: 接风 would hand the lead to an opponent
        for p in candidates(sit.counter, plays):
            v = _follow_value(sit, p, w.lead + 0.4, 0.0)
            v -= (1.0 - sit.q_play(p)) * w.point * sit.trick_points
            scored.append((v, _act(p)))
        return _ranked(scored)
    nxt = next_seat(sit.seat)
    table = sit.table
    table_q = sit.q_play(table)
    # block: the next opponent could go out over the partner's play
    k = sit.counts[nxt]
    if k and table_q < 1.0 and (k == table.size or (k >= 4 and table.kind != BOMB and k <= 8)):
        blocks = [p for p in plays if sit.q_play(p) >= 0.99]
        if blocks:
            cheapest = min(blocks, key=lambda p: sit.cost(sit.after(p)))
            return [(10.0, _act(cheapest)), *scored]
    # feed a whole group of point cards when the trick looks like ours
    feed = [p for p in plays if p.kind in _SMALL_KIND.values() and not p.jokers
            and p.rank in "5TK" and p.rank != sit.dao and _is_whole(sit, p)]
    if feed and table_q >= w.feed_q:
        return [(1.0, _act(min(feed, key=lambda p: p.strength))), *scored]
    return scored


def expert_policy(
    view: View, rng: random.Random, budget_ms: float = DEFAULT_BUDGET_MS,
    weights: Weights | None = None,
) -> Action:
    """The expert's action for the seat of ``view`` (see the module docstring).

    :param view: a :func:`~games.engine.view.bot_view` (a plain view also works).
    :param rng: the random source of the endgame search's samples.
    :param budget_ms: the endgame search's budget in nominal milliseconds, a
        count of play-out actions (:data:`DEFAULT_BUDGET_MS`; 0 turns it off),
        never a clock. The rules part takes a few milliseconds on its own.
    :param weights: the rules' worths (default :data:`WEIGHTS`).
    :returns: ``{"type": "play", "cards": [...]}`` or ``{"type": "pass"}``, always
        legal for the view's position.
    :raises ArgumentError: ``bad_seat`` for a spectator's view (no hand).
    """
    _, _table, plays, out = options(view)
    if out is not None:
        return out
    if not plays:
        return PASS
    sit = Situation(view, weights or WEIGHTS)
    scored = rules(sit, plays)
    searchable = budget_ms > 0 and _history(view) is not None  # needs card memory
    if searchable and sum(sit.counts) <= SEARCH_CARDS and scored[0][0] < 50.0:
        best = scored[0][0]
        cands: list[Action] = []
        for score, action in scored:
            if score >= best - SEARCH_MARGIN and action not in cands:
                cands.append(action)
        if len(cands) > 1:
            i = endgame.search(cast(BotView, view), cands[:SEARCH_WIDTH], sit.unseen, rng,
                               budget_ms, heuristic_policy)
            if i is not None:
                return cands[i]
    return scored[0][1]


def rules(sit: Situation, plays: Sequence[Play]) -> Scored:
    """The rules' candidate actions for ``sit``, scored, best first."""
    if sit.table is None:
        return _lead(sit, plays)
    if sit.owner == sit.partner:
        return _follow_partner(sit, plays)
    return _follow_opponent(sit, plays)
