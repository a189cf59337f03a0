"""Every distinct legal play from a hand: ``legal_plays`` (RULES.md §3).

Plays are distinct by ``(kind, rank, size, jokers used)``. For each, the cards
are a canonical choice that keeps atoms and hydrogen bombs whole where it can:
cards of a rank are taken in a fixed greedy order (free cards first, then cards
whose loss breaks an atom, then those whose loss breaks a hydrogen bomb), so a
play of ``k`` cards of a rank is the first ``k`` of that order. Every atom and
hydrogen bomb the hand holds is listed as well. The hand's representation here
is a suit-count vector per rank, not card objects (the hot path of the bots).

>>> [p.cards for p in legal_plays(["4S", "4S", "4S", "4H"], None, dao="7")]
[('4H',), ('4H', '4S'), ('4H', '4S', '4S'), ('4H', '4S', '4S', '4S'), ('4S', '4S', '4S')]
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from .cards import BIG_JOKER, COPIES, DISTINCT_CARDS, RANKS, SMALL_JOKER, SUITS, parse_cards
from .combos import (
    ATOM,
    BOMB,
    HYDROGEN,
    PAIR,
    SINGLE,
    TRIPLE,
    Play,
    atom_strength,
    check_dao,
    joker_strength,
)
from .shapes import Kind

_SMALL: dict[int, Kind] = {1: SINGLE, 2: PAIR, 3: TRIPLE}
_WEAK_FIRST = "DCHS"
_VALID = frozenset(DISTINCT_CARDS)  # among equally free cards, give up the weaker suit first


def take_order(counts: dict[str, int]) -> list[str]:
    """See :func:`_take_order`; memoised on the suit counts (at most 4**4 shapes)."""
    return list(_take_order(tuple(counts.get(s, 0) for s in _WEAK_FIRST)))


@lru_cache(maxsize=1024)
def _take_order(shape: tuple[int, ...]) -> tuple[str, ...]:
    """The canonical order in which to take cards of one rank (suit → count).

    Greedy: at each step take the card whose loss costs least — 0 for a free
    card, 1 if it breaks an atom (3 of that suit), 2 if it breaks a hydrogen bomb
    (every suit at 2 or more and this one at exactly 2). Ties: smaller pile,
    then the weaker suit. :returns: suit letters, one per card, ``sum(counts)`` long.
    """
    c = dict(zip(_WEAK_FIRST, shape, strict=True))
    out: list[str] = []
    for _ in range(sum(c.values())):
        hydrogen = all(v >= 2 for v in c.values())
        best = None
        best_key: tuple[int, int] | None = None
        for s in _WEAK_FIRST:
            v = c[s]
            if not v:
                continue
            cost = 1 if v == 3 else (2 if hydrogen and v == 2 else 0)
            key = (cost, v)
            if best_key is None or key < best_key:
                best, best_key = s, key
        assert best is not None
        c[best] -= 1
        out.append(best)
    return tuple(out)


def joker_order(big: int, small: int) -> list[str]:
    """Canonical order in which to use jokers: keep a joker atom (3 alike) whole
    while the other kind lasts; otherwise small jokers first."""
    out: list[str] = []
    while big or small:
        if small and not (small == 3 and 0 < big < 3):
            out.append(SMALL_JOKER)
            small -= 1
        else:
            out.append(BIG_JOKER)
            big -= 1
    return out


@lru_cache(maxsize=4096)
def _rank_shapes(
    rank: str, shape: tuple[int, ...]
) -> tuple[list[str], tuple[str, ...], tuple[str, ...] | None]:
    """For one rank held as ``shape`` (counts of D, C, H, S): the canonical take
    order as cards, the atoms it holds (strongest suit first), and its hydrogen
    bomb's cards (``None`` if it holds none). Callers must not mutate the list."""
    order = [rank + s for s in _take_order(shape)]
    held = dict(zip(_WEAK_FIRST, shape, strict=True))
    atoms = tuple(rank + s for s in SUITS if held[s] == 3)
    hydrogen = (
        tuple(rank + s for s in SUITS for _ in (0, 1)) if all(v >= 2 for v in shape) else None
    )
    return order, atoms, hydrogen


def _sizes(table: Play | None, strength: int, is_dao: bool, most: int) -> range | list[int]:
    """Sizes of plays of one rank (``strength``) that may beat ``table``, up to ``most``."""
    if table is None:
        return range(1, most + 1)
    tk = table.kind
    if tk == BOMB:
        return range(table.size if strength > table.strength else table.size + 1, most + 1)
    if tk in (ATOM, HYDROGEN):
        return []
    bombs = range(4, most + 1) if not table.is_dao else range(0)
    if strength > table.strength and table.size <= most:
        return [table.size, *bombs]
    return bombs


def legal_plays(hand: Iterable[str], table_play: Play | None, dao: str) -> list[Play]:
    """Every distinct legal play from ``hand`` that may be played now (RULES.md §3).

    :param hand: the player's cards (§2 notation, copies repeated).
    :param table_play: the play to beat, or ``None`` on a lead.
    :param dao: the dao rank.
    :returns: plays distinct by ``(kind, rank, size, jokers)``, plus every atom
        and hydrogen bomb of the hand; ordered singles, pairs, triples (weakest
        first), bombs by (size, rank), atoms, hydrogen bombs.
    :raises CardError: (a ``ValueError``) for a bad card or a fourth copy.
    :raises ArgumentError: (a ``ValueError``) ``bad_dao`` for a bad dao.
    """
    check_dao(dao)
    counts, big, small = _count_hand(list(hand))
    jorder = joker_order(big, small)
    nj = len(jorder)
    small_plays: list[Play] = []
    bombs: list[Play] = []
    atoms: list[Play] = []
    hydrogens: list[Play] = []
    table_kind = table_play.kind if table_play is not None else None

    _joker_plays(jorder, table_play, dao, small_plays, bombs)

    for ri, rank in enumerate(RANKS):
        suits = counts.get(rank)
        if not suits:
            continue
        is_dao = rank == dao
        strength = 13 if is_dao else ri
        shape = tuple(suits.get(s, 0) for s in _WEAK_FIRST)
        order, rank_atoms, hydrogen = _rank_shapes(rank, shape)
        n = len(order)
        jmax = 0 if is_dao else nj
        for size in _sizes(table_play, strength, is_dao, n + jmax):
            kind = _SMALL.get(size, BOMB)
            for j in range(max(0, size - n), min(jmax, size - 1) + 1):
                k = size - j
                chosen = order[:k]
                if j == 0 and k == 3 and chosen[0] == chosen[1] == chosen[2]:
                    other = next((c for c in order if c != chosen[0]), None)
                    if other is None:
                        continue  # only the atom: listed below
                    chosen = [chosen[0], chosen[1], other]  # a triple beside the atom
                if j == 0 and k == 8 and _is_hydrogen(chosen):
                    eight = _non_hydrogen_eight(order)
                    if eight is None:
                        continue
                    chosen = eight
                p = Play(kind, rank, tuple(chosen + jorder[:j]), dao, j, strength, is_dao and not j)
                (bombs if kind == BOMB else small_plays).append(p)
        for card in rank_atoms:
            atoms.append(Play(ATOM, rank, (card,) * 3, dao, 0, atom_strength(card, dao), False))
        if hydrogen:
            hydrogens.append(Play(HYDROGEN, rank, hydrogen, dao, 0, strength, False))
    for card, v in ((BIG_JOKER, big), (SMALL_JOKER, small)):
        if v == 3:
            atoms.append(Play(ATOM, "3", (card,) * 3, dao, 3, atom_strength(card, dao), False))

    if table_play is not None:
        atoms = [a for a in atoms if table_kind != HYDROGEN and
                 (table_kind != ATOM or a.strength > table_play.strength)]
        if table_kind == HYDROGEN:
            hydrogens = [h for h in hydrogens if h.strength > table_play.strength]
    small_plays.sort(key=_small_key)
    bombs.sort(key=_bomb_key)
    atoms.sort(key=_strength_key)
    hydrogens.sort(key=_strength_key)
    return small_plays + bombs + atoms + hydrogens


def _count_hand(cards: list[str]) -> tuple[dict[str, dict[str, int]], int, int]:
    """``(counts, big, small)`` of ``cards``: copies by rank then suit, and
    the big and small jokers; raises :class:`CardError` as :func:`legal_plays`."""
    if not _VALID.issuperset(cards):
        parse_cards(cards)  # raises, naming the bad card
    counts: dict[str, dict[str, int]] = {}
    big = small = 0
    for c in cards:
        if c[1] == "J":
            if c == BIG_JOKER:
                big += 1
            else:
                small += 1
        else:
            d = counts.setdefault(c[0], {})
            d[c[1]] = d.get(c[1], 0) + 1
    if max(big, small, *(v for d in counts.values() for v in d.values())) > COPIES:
        parse_cards(cards)  # raises: more copies than the shoe holds
    return counts, big, small


def _joker_plays(jorder: list[str], table_play: Play | None, dao: str,
                 small_plays: list[Play], bombs: list[Play]) -> None:
    """Append the plays of jokers alone to ``small_plays`` / ``bombs``: 3s of
    the lowest order (below the 4s when 3 is dao); the joker atom is not one."""
    js = joker_strength(dao)
    for j in _sizes(table_play, js, False, len(jorder)):
        kind = _SMALL.get(j, BOMB)
        chosen = jorder[:j]
        if j == 3 and chosen[0] == chosen[1] == chosen[2]:
            other = next((c for c in jorder if c != chosen[0]), None)
            if other is None:
                continue  # only the joker atom: listed by legal_plays
            chosen = [chosen[0], chosen[1], other]
        p = Play(kind, "3", tuple(chosen), dao, j, js, False)
        (bombs if kind == BOMB else small_plays).append(p)


_KIND_ORDER = {SINGLE: 0, PAIR: 1, TRIPLE: 2}


def _small_key(p: Play) -> tuple[int, int, int]:
    return (_KIND_ORDER[p.kind], p.strength, p.jokers)


def _bomb_key(p: Play) -> tuple[int, int, int]:
    return (p.size, p.strength, p.jokers)


def _strength_key(p: Play) -> int:
    return p.strength


def _is_hydrogen(cards: list[str]) -> bool:
    return all(sum(1 for c in cards if c[1] == s) == 2 for s in SUITS)


def _non_hydrogen_eight(order: list[str]) -> list[str] | None:
    """Eight cards of one rank that are not 2-of-each-suit, if the rank allows it."""
    first = order[:8]
    for i in range(8, len(order)):
        for k in range(7, -1, -1):
            if order[i][1] != first[k][1]:
                cand = first[:k] + first[k + 1:] + [order[i]]
                if not _is_hydrogen(cand):
                    return cand
    return None
