"""The shuffle, the dao indicator, the first seat dealt to and the deal (RULES.md §2).

Every shuffle comes from a recorded seed, so any deal can be rebuilt exactly:
half ``h`` of the game with seed ``s`` is shuffled by ``random.Random(f"{s}:{h}")``
(Python's string seeding is stable across runs and platforms).

>>> dao_rank("RJ", half=1), dao_rank("KS", half=2), dao_rank("KS", half=1)
('3', '3', 'K')
>>> first_dealt_seat("K")
1
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .cards import POINT_RANKS, SHOE, parse_card
from .combos import check_dao
from .errors import ArgumentError

SEATS = 4
NORTH, EAST, SOUTH, WEST = 0, 1, 2, 3
RANK_POINT = {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13}


def next_seat(seat: int) -> int:
    """下家: the next seat in play order, counterclockwise N → W → S → E (RULES.md §2)."""
    return (seat + 3) % 4


def partner(seat: int) -> int:
    """对家: the seat opposite (N–S, E–W)."""
    return (seat + 2) % 4


def team_of(seat: int) -> int:
    """Team 0 = N–S (seats 0, 2), team 1 = E–W (seats 1, 3) (RULES.md §11)."""
    return seat % 2


def dao_rank(indicator: str, half: int = 1) -> str:
    """The dao rank an indicator card gives (RULES.md §2).

    First half: a joker makes ``"3"`` the dao. Second half: a joker or a point
    card (5, T, K) makes ``"3"`` the dao. Otherwise the indicator's rank.

    :raises CardError: (a ``ValueError``) for a bad card string.
    :raises ArgumentError: (a ``ValueError``) ``bad_half`` for a half other than 1 or 2.
    """
    parse_card(indicator)
    if half not in (1, 2):
        raise ArgumentError("bad_half", f"half must be 1 or 2, got {half!r}")
    if indicator[1] == "J":
        return "3"
    if half == 2 and indicator[0] in POINT_RANKS:
        return "3"
    return indicator[0]


def first_dealt_seat(dao: str) -> int:
    """First seat dealt to in the first half: ``point(dao) % 4`` (RULES.md §2).

    A=1, 2–10 face value, J=11, Q=12, K=13 (**Decision** of RULES.md §2).

    >>> first_dealt_seat("A"), first_dealt_seat("T"), first_dealt_seat("3")
    (1, 2, 3)
    """
    check_dao(dao)  # raises ArgumentError bad_dao
    return (RANK_POINT[dao] if dao in RANK_POINT else int(dao)) % 4


@dataclass(frozen=True)
class Deal:
    """One half's deal (RULES.md §2).

    ``hands``: four lists of cards indexed by seat, in the order dealt;
    ``indicator``: the dao indicator card; ``indicator_seat``: who was dealt it
    (leads the first half); ``dao``; ``first_dealt``: the first seat dealt to.
    """

    hands: tuple[tuple[str, ...], ...]
    indicator: str
    indicator_seat: int
    dao: str
    first_dealt: int


def shuffled_shoe(seed: object, half: int) -> tuple[list[str], int]:
    """Shuffle the 162-card shoe for ``half`` of the game with ``seed``.

    :returns: ``(shoe, indicator_index)``: the shuffled cards and the position of
        the dao indicator, drawn uniformly at random (RULES.md §2).
    """
    rng = random.Random(f"{seed}:{half}")
    shoe = list(SHOE)
    rng.shuffle(shoe)
    return shoe, rng.randrange(len(shoe))


def deal_half(seed: object, half: int, first_out: int | None = None) -> Deal:
    """Deal one half (RULES.md §2).

    The indicator is a card at a random position of the shuffled shoe; it is
    dealt like any other. Cards go one at a time in turn order from the first
    seat dealt to, so that seat and its 下家 get 41 cards, the others 40.

    :param first_out: the first half's first_out, required for ``half == 2``
        (they are the first seat dealt to in the second half).
    :raises ArgumentError: ``needs_first_out`` for ``half == 2`` without
        ``first_out``; ``bad_half`` for a half other than 1 or 2.
    """
    shoe, at = shuffled_shoe(seed, half)
    indicator = shoe[at]
    dao = dao_rank(indicator, half)
    if half == 1:
        first = first_dealt_seat(dao)
    elif first_out is None:
        raise ArgumentError(
            "needs_first_out", "the second half's deal needs the first half's first_out"
        )
    else:
        first = first_out
    hands: list[list[str]] = [[], [], [], []]
    order = [first, next_seat(first), next_seat(next_seat(first)), partner(next_seat(first))]
    for i, card in enumerate(shoe):
        hands[order[i % 4]].append(card)
    return Deal(
        hands=tuple(tuple(h) for h in hands),
        indicator=indicator,
        indicator_seat=order[at % 4],
        dao=dao,
        first_dealt=first,
    )
