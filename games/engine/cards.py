"""Cards, the 162-card shoe and the rank order (RULES.md §2, §3).

A card is its text form, a two-character ``str`` (RULES.md §2 notation): rank
``3456789TJQKA2`` then suit ``SHCD``, or ``RJ`` (big joker) / ``BJ`` (small
joker). The three copies of a card share one text form. Strings are the engine's
card values everywhere: they are hashable, JSON-able and cheap to compare.

>>> parse_card("TS")
'TS'
>>> card_points("KD"), card_points("5H"), card_points("RJ")
(10, 5, 0)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from .errors import CardError  # defined with the other errors; importable from here too

RANKS = "3456789TJQKA2"
"""Plain ranks, low to high in their normal order (RULES.md §3)."""
SUITS = "SHCD"
"""Suits, high to low for atoms: ♠ > ♥ > ♣ > ♦ (RULES.md §3)."""
BIG_JOKER = "RJ"
SMALL_JOKER = "BJ"
JOKERS = (BIG_JOKER, SMALL_JOKER)
COPIES = 3
"""Each distinct card is in the shoe this many times (three decks)."""

PLAIN_CARDS: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
DISTINCT_CARDS: tuple[str, ...] = PLAIN_CARDS + JOKERS
SHOE: tuple[str, ...] = tuple(c for c in DISTINCT_CARDS for _ in range(COPIES))
"""The 162 cards of three full decks (RULES.md §2), in a fixed canonical order."""

_VALID = frozenset(DISTINCT_CARDS)
RANK_INDEX = {r: i for i, r in enumerate(RANKS)}
SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}  # 0 = spades (highest)
POINTS = {"5": 5, "T": 10, "K": 10}
POINT_RANKS = frozenset(POINTS)
POINTS_PER_HALF = 300


def parse_card(text: object) -> str:
    """Check one card's text form and return it.

    :raises CardError: (an ``EngineError``, so a ``ValueError``) ``bad_card`` for
        anything but the §2 notation, e.g. ``"10S"``, ``"ts"`` or ``""``, and for a
        non-string (a list or dict from a client's JSON is unhashable: it must not
        escape as ``TypeError``).
    """
    if not isinstance(text, str) or text not in _VALID:
        raise CardError(
            "bad_card",
            f"not a card: {text!r} (use rank 3456789TJQKA2 + suit SHCD, e.g. 'TS', or RJ/BJ)",
        )
    return text


def parse_cards(cards: Iterable[object]) -> list[str]:
    """Check a collection of cards: each a card, no card more than 3 times.

    :returns: the cards as a new list, in the given order.
    :raises CardError: ``bad_card`` for a bad card string (or a string instead of
        a list), ``too_many_copies`` for a fourth copy of a card.
    """
    if isinstance(cards, str):
        raise CardError("bad_card", f"expected a list of cards, got the string {cards!r}")
    out = [parse_card(c) for c in cards]
    if len(out) > COPIES:
        for card, n in Counter(out).items():
            if n > COPIES:
                raise CardError(
                    "too_many_copies", f"{n} copies of {card}: the shoe holds only {COPIES}"
                )
    return out


def is_joker(card: str) -> bool:
    """True for ``RJ`` and ``BJ``."""
    return card[1] == "J"


def card_points(card: str) -> int:
    """Points of one card (RULES.md §2): 5 → 5, T and K → 10, others 0."""
    return POINTS.get(card[0], 0) if card[1] != "J" else 0


def cards_points(cards: Iterable[str]) -> int:
    """Sum of :func:`card_points` over ``cards``."""
    return sum(POINTS.get(c[0], 0) for c in cards if c[1] != "J")


def rank_strength(rank: str, dao: str) -> int:
    """Strength of a plain rank under ``dao`` (RULES.md §3): 3 → 0 … 2 → 12, dao → 13."""
    return 13 if rank == dao else RANK_INDEX[rank]


def card_sort_key(card: str, dao: str) -> tuple[int, int]:
    """Sort key for showing a hand, weakest first (RULES.md §3 order).

    Jokers sort after everything (they are shown apart); suits ♦ < ♣ < ♥ < ♠.
    """
    if card[1] == "J":
        return (20 if card == BIG_JOKER else 19, 0)
    return (rank_strength(card[0], dao), 3 - SUIT_INDEX[card[1]])


def sort_hand(cards: Iterable[str], dao: str) -> list[str]:
    """The cards sorted by strength under ``dao``, weakest first, jokers last."""
    return sorted(cards, key=lambda c: card_sort_key(c, dao))
