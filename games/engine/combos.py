"""Combinations and their order: ``classify`` and ``beats`` (RULES.md §3, §10).

>>> p = classify(["7S", "7S", "7S"], dao="7")
>>> p.kind, p.rank, p.size
('atom', '7', 3)
>>> beats(classify(["4S", "4H", "4C", "4D"], dao="7"), classify(["7H"], dao="7"))
False
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Final

from .cards import BIG_JOKER, RANK_INDEX, RANKS, SUIT_INDEX, SUITS, parse_cards, rank_strength
from .errors import ArgumentError
from .shapes import Kind

SINGLE: Final = "single"
PAIR: Final = "pair"
TRIPLE: Final = "triple"
BOMB: Final = "bomb"
ATOM: Final = "atom"
HYDROGEN: Final = "hydrogen"
KINDS: tuple[Kind, ...] = (SINGLE, PAIR, TRIPLE, BOMB, ATOM, HYDROGEN)
_SMALL_KIND: dict[int, Kind] = {1: SINGLE, 2: PAIR, 3: TRIPLE}


class Play:
    """One legal play, as read under one dao (RULES.md §3).

    Attributes: ``kind`` (one of :data:`KINDS`), ``rank`` (the rank it plays as,
    ``"3"`` for jokers alone and for the joker atoms), ``size`` (card count),
    ``cards`` (tuple of card strings), ``dao``, ``jokers`` (jokers used as wild
    cards or alone), ``strength`` (int, compares plays of one kind: higher wins)
    and ``is_dao`` (a single/pair/triple/bomb of real dao cards: no bomb beats the
    first three). Build plays with :func:`classify`, not directly.
    """

    __slots__ = ("cards", "dao", "is_dao", "jokers", "kind", "rank", "size", "strength")

    def __init__(
        self,
        kind: Kind,
        rank: str,
        cards: tuple[str, ...],
        dao: str,
        jokers: int,
        strength: int,
        is_dao: bool,
    ) -> None:
        self.kind = kind
        self.rank = rank
        self.size = len(cards)
        self.cards = cards
        self.dao = dao
        self.jokers = jokers
        self.strength = strength
        self.is_dao = is_dao

    @property
    def key(self) -> tuple[str, str, int, int]:
        """(kind, rank, size, jokers): what makes two plays different for ``legal_plays``."""
        return (self.kind, self.rank, self.size, self.jokers)

    def __repr__(self) -> str:
        return f"Play({self.kind} {self.rank}×{self.size} {' '.join(self.cards)} dao={self.dao})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return (self.kind, self.strength, self.size, self.dao, sorted(self.cards)) == (
            other.kind,
            other.strength,
            other.size,
            other.dao,
            sorted(other.cards),
        )

    def __hash__(self) -> int:
        return hash((self.kind, self.strength, self.size, self.dao))


def check_dao(dao: object) -> str:
    """Return ``dao`` if it is a plain rank of ``RANKS``.

    :raises ArgumentError: ``bad_dao`` otherwise (a ``ValueError``).
    """
    if not isinstance(dao, str) or len(dao) != 1 or dao not in RANK_INDEX:
        raise ArgumentError("bad_dao", f"not a dao rank: {dao!r} (one of {RANKS})")
    return dao


def joker_strength(dao: str) -> int:
    """Strength of jokers played alone: with the 3s, or below the 4s when 3 is dao (§3)."""
    return -1 if dao == "3" else 0


def atom_strength(card: str, dao: str) -> int:
    """Order of atoms (RULES.md §3): dao atoms > RJ atom > BJ atom > 2 … 3; ♠>♥>♣>♦."""
    if card[1] == "J":
        return 61 if card == BIG_JOKER else 60
    suit = 3 - SUIT_INDEX[card[1]]
    if card[0] == dao:
        return 70 + suit
    return RANK_INDEX[card[0]] * 4 + suit


def classify(cards: Iterable[str], dao: str) -> Play | None:
    """Read ``cards`` as their strongest legal play under ``dao`` (RULES.md §3, §10).

    :param cards: card strings in §2 notation, any order, copies repeated.
    :param dao: the dao rank, one of ``"3456789TJQKA2"``.
    :returns: a :class:`Play`, or ``None`` when the cards form no legal play
        (mixed ranks, jokers with dao cards, an empty list …).
    :raises CardError: (a ``ValueError``) for a string that is not a card or more
        copies of a card than the shoe holds.
    :raises ArgumentError: (a ``ValueError``) ``bad_dao`` for a bad dao.
    """
    cs = parse_cards(cards)
    check_dao(dao)
    n = len(cs)
    if n == 0:
        return None
    jokers = [c for c in cs if c[1] == "J"]
    plain = [c for c in cs if c[1] != "J"]
    nj = len(jokers)
    t = tuple(cs)
    if n == 3 and cs[0] == cs[1] == cs[2]:
        c = cs[0]
        return Play(ATOM, "3" if nj else c[0], t, dao, nj, atom_strength(c, dao), False)
    if not plain:
        kind = _SMALL_KIND.get(n, BOMB)
        return Play(kind, "3", t, dao, nj, joker_strength(dao), False)
    rank = plain[0][0]
    for c in plain:
        if c[0] != rank:
            return None
    if rank == dao and nj:
        return None  # jokers never join dao cards (§3)
    if n == 8 and not nj:
        suits = Counter(c[1] for c in plain)
        if all(suits[s] == 2 for s in SUITS):
            return Play(HYDROGEN, rank, t, dao, 0, rank_strength(rank, dao), False)
    kind = _SMALL_KIND.get(n, BOMB)
    return Play(kind, rank, t, dao, nj, rank_strength(rank, dao), rank == dao)


def beats(new: Play, table: Play) -> bool:
    """May ``new`` be played on ``table``? (RULES.md §3; "higher" is strict.)

    - single/pair/triple: only the same kind, strictly higher;
    - bomb: any single/pair/triple except dao ones; a bomb with more cards, or as
      many and a higher rank;
    - atom: anything but a higher atom or a hydrogen bomb;
    - hydrogen: anything but a higher hydrogen bomb.

    :raises ArgumentError: ``dao_mismatch`` if the two plays were classified under
        different daos.
    """
    if new.dao != table.dao:
        raise ArgumentError(
            "dao_mismatch", f"plays read under different daos: {new.dao!r} and {table.dao!r}"
        )
    nk, tk = new.kind, table.kind
    if nk == HYDROGEN:
        return tk != HYDROGEN or new.strength > table.strength
    if tk == HYDROGEN:
        return False
    if nk == ATOM:
        return tk != ATOM or new.strength > table.strength
    if tk == ATOM:
        return False
    if nk == BOMB:
        if tk == BOMB:
            return (new.size, new.strength) > (table.size, table.strength)
        return not table.is_dao
    return nk == tk and new.strength > table.strength
