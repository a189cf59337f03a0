"""Cards, notation, the shoe and point values (RULES.md §2, §10).

Engine tests: pure Python, no Django (they run with ``-p no:django``).
"""

from __future__ import annotations

from collections import Counter

import pytest

from games.engine import (
    SHOE,
    CardError,
    card_points,
    cards_points,
    classify,
    parse_card,
    parse_cards,
)

RANKS = "3456789TJQKA2"
SUITS = "SHCD"


# --- §2 notation -----------------------------------------------------------


@pytest.mark.parametrize("card", [r + s for r in RANKS for s in SUITS] + ["RJ", "BJ"])
def test_every_card_of_the_notation_is_accepted(card):
    """§2 notation: rank 3456789TJQKA2 then suit SHCD; RJ big joker, BJ small joker."""
    assert parse_card(card) == card
    assert classify([card], dao="9") is not None


def test_ts_is_ten_of_spades_and_2d_is_two_of_diamonds():
    """§2: `TS` = 10♠, `2D` = 2♦."""
    assert classify(["TS"], dao="9").rank == "T"
    assert classify(["2D"], dao="9").rank == "2"


@pytest.mark.parametrize(
    "bad", ["10S", "ts", "", "1S", "TX", "rj", "bj", "JR", "RJS", "S7", "7s", " 7S", "7S ", "XJ"]
)
def test_classify_rejects_a_string_that_is_not_a_card(bad):
    """§10: `classify` raises ValueError with a clear message for "10S", "ts", "" ..."""
    with pytest.raises(ValueError, match="not a card") as exc:
        classify([bad], dao="9")
    assert repr(bad) in str(exc.value) or bad in str(exc.value)
    with pytest.raises(ValueError, match="not a card"):
        classify(["7S", bad], dao="9")


@pytest.mark.parametrize("bad", ["10S", "ts", ""])
def test_parse_card_errors_are_value_errors(bad):
    """§10: the error is a ValueError (CardError is one)."""
    with pytest.raises(ValueError, match="not a card"):
        parse_card(bad)
    assert issubclass(CardError, ValueError)


def test_a_fourth_seven_of_spades_is_refused():
    """§10: more copies of a card than the shoe holds (a fourth 7♠) -> ValueError."""
    assert classify(["7S"] * 3, dao="9") is not None
    with pytest.raises(ValueError, match="copies of 7S"):
        classify(["7S"] * 4, dao="9")
    with pytest.raises(ValueError, match="copies of 7S"):
        classify(["7S", "7H", "7S", "7S", "7S"], dao="9")


def test_a_fourth_big_joker_is_refused():
    """§10: a fourth big joker -> ValueError (and a fourth small joker)."""
    assert classify(["RJ"] * 3, dao="9") is not None
    with pytest.raises(ValueError, match="copies of RJ"):
        classify(["RJ"] * 4, dao="9")
    with pytest.raises(ValueError, match="copies of BJ"):
        classify(["BJ", "BJ", "RJ", "BJ", "BJ"], dao="9")


def test_empty_list_is_not_a_play():
    """§10: an empty list is not a play: None (no error)."""
    assert classify([], dao="9") is None


def test_any_order_and_repeated_copies():
    """§10: cards in any order, copies repeated."""
    a = classify(["7S", "RJ", "7H"], dao="9")
    b = classify(["RJ", "7H", "7S"], dao="9")
    assert (a.kind, a.rank, a.size) == (b.kind, b.rank, b.size) == ("triple", "7", 3)


def test_parse_cards_checks_copies():
    """§2: each of the 52 cards and each joker exists 3 times, no more."""
    assert parse_cards(["QH", "QH", "QH"]) == ["QH", "QH", "QH"]
    with pytest.raises(ValueError, match="copies of QH"):
        parse_cards(["QH"] * 4)


# --- §2 the shoe -----------------------------------------------------------


def test_shoe_is_three_decks_of_162_cards():
    """§2: three full 54-card decks: 162 cards; each card 3 times; 3 RJ, 3 BJ."""
    assert len(SHOE) == 162
    counts = Counter(SHOE)
    assert len(counts) == 54
    assert set(counts.values()) == {3}
    assert counts["RJ"] == counts["BJ"] == 3
    assert set(counts) == {r + s for r in RANKS for s in SUITS} | {"RJ", "BJ"}


# --- §2 point cards ----------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "points"),
    [("5S", 5), ("5H", 5), ("5C", 5), ("5D", 5), ("TS", 10), ("TD", 10), ("KH", 10), ("KC", 10),
     ("3S", 0), ("4H", 0), ("9D", 0), ("JS", 0), ("QH", 0), ("AC", 0), ("2D", 0), ("RJ", 0),
     ("BJ", 0)],
)
def test_point_values(card, points):
    """§2: every 5 = 5 points, every 10 and K = 10 points, all else (jokers too) 0."""
    assert card_points(card) == points


def test_one_deck_holds_100_points_and_a_half_300():
    """§2: 100 points per deck, 300 per half."""
    deck = [r + s for r in RANKS for s in SUITS] + ["RJ", "BJ"]
    assert cards_points(deck) == 100
    assert cards_points(SHOE) == 300
    assert sum(card_points(c) for c in SHOE) == 300


def test_cards_points_sums():
    """§2 point values added up over a handful."""
    assert cards_points(["5S", "TS", "KD", "KD", "RJ", "9H"]) == 35
    assert cards_points([]) == 0
