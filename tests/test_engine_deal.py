"""Seats, the dao indicator, the first seat dealt to and the deal (RULES.md §2, §4).

Pure Python, no Django.
"""

from __future__ import annotations

from collections import Counter

import pytest

from games.engine import SHOE, dao_rank, deal_half, first_dealt_seat, new_game, next_seat
from games.engine.deal import partner, shuffled_shoe, team_of

SEEDS = ["a", "b", "deal-check", 0, 1, 7, 42, 2026, 99999]


# --- §2 seats -------------------------------------------------------------------


@pytest.mark.parametrize(("seat", "nxt"), [(0, 3), (3, 2), (2, 1), (1, 0)])
def test_next_seat_is_counterclockwise(seat, nxt):
    """§2: play goes counterclockwise N → W → S → E → N: 下家 = (seat + 3) % 4."""
    assert next_seat(seat) == nxt == (seat + 3) % 4


def test_partners_and_teams():
    """§2: partners N–S and E–W; §11 teams 0 = N–S (0, 2), 1 = E–W (1, 3)."""
    assert [partner(s) for s in range(4)] == [2, 3, 0, 1]
    assert [team_of(s) for s in range(4)] == [0, 1, 0, 1]


# --- §2 dao rank ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("indicator", "dao"),
    [("7H", "7"), ("3D", "3"), ("2C", "2"), ("AS", "A"), ("JH", "J"), ("QD", "Q"),
     ("5S", "5"), ("TS", "T"), ("KD", "K"), ("RJ", "3"), ("BJ", "3")],
)
def test_dao_rank_first_half(indicator, dao):
    """§2: the indicator's rank is the dao; first half, a joker makes 3 the dao
    (point cards keep their rank in the first half)."""
    assert dao_rank(indicator, half=1) == dao


@pytest.mark.parametrize(
    ("indicator", "dao"),
    [("7H", "7"), ("3D", "3"), ("2C", "2"), ("AS", "A"), ("JH", "J"), ("QD", "Q"),
     ("5S", "3"), ("5D", "3"), ("TS", "3"), ("TH", "3"), ("KD", "3"), ("KC", "3"),
     ("RJ", "3"), ("BJ", "3")],
)
def test_dao_rank_second_half(indicator, dao):
    """§2: second half, a joker or a point card (5, 10, K) makes 3 the dao."""
    assert dao_rank(indicator, half=2) == dao


def test_dao_rank_contract_example():
    """§10: dao_rank("RJ", half=1) -> "3"."""
    assert dao_rank("RJ", half=1) == "3"


def test_dao_rank_rejects_bad_card():
    """§10: a string that is not a card is a ValueError."""
    with pytest.raises(ValueError, match="not a card"):
        dao_rank("10S", half=1)


# --- §2 first seat dealt to ------------------------------------------------------------


@pytest.mark.parametrize(
    ("dao", "seat"),
    [("A", 1), ("2", 2), ("3", 3), ("4", 0), ("5", 1), ("6", 2), ("7", 3), ("8", 0), ("9", 1),
     ("T", 2), ("J", 3), ("Q", 0), ("K", 1)],
)
def test_first_dealt_seat(dao, seat):
    """§2 Decision: first half, point(dao) % 4 with A=1, 2–10 face value, J=11, Q=12, K=13."""
    assert first_dealt_seat(dao) == seat


def test_first_dealt_seat_contract_example():
    """§10: first_dealt_seat("K") -> 1 (13 % 4)."""
    assert first_dealt_seat("K") == 1


# --- §2 the deal ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_first_half_deal_41_41_40_40(seed):
    """§2: one card at a time in turn order from the first seat dealt to; the first
    two seats dealt get 41 cards, the other two 40; all 162 cards dealt."""
    deal = deal_half(seed, 1)
    first = first_dealt_seat(deal.dao)
    assert deal.first_dealt == first
    assert deal.dao == dao_rank(deal.indicator, 1)
    sizes = [len(h) for h in deal.hands]
    assert sizes[first] == 41
    assert sizes[next_seat(first)] == 41
    assert sizes[next_seat(next_seat(first))] == 40
    assert sizes[next_seat(next_seat(next_seat(first)))] == 40
    assert Counter(c for h in deal.hands for c in h) == Counter(SHOE)


@pytest.mark.parametrize("seed", SEEDS)
def test_deal_is_one_card_at_a_time_in_turn_order(seed):
    """§2: dealing goes one card at a time in turn order (counterclockwise) from the
    first seat dealt to; the indicator stays in the shoe and is dealt like any card."""
    shoe, at = shuffled_shoe(seed, 1)
    deal = deal_half(seed, 1)
    seat = deal.first_dealt
    order = []
    for _ in range(4):
        order.append(seat)
        seat = next_seat(seat)
    rebuilt = [[], [], [], []]
    for i, card in enumerate(shoe):
        rebuilt[order[i % 4]].append(card)
    assert [list(h) for h in deal.hands] == rebuilt
    assert deal.indicator == shoe[at]
    assert deal.indicator_seat == order[at % 4]
    assert deal.indicator in deal.hands[deal.indicator_seat]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("first_out", [0, 1, 2, 3])
def test_second_half_dealt_first_to_first_out(seed, first_out):
    """§2: second half, the first seat dealt to is the first half's first_out; the
    dao follows the second-half rule (joker or point card -> 3)."""
    deal = deal_half(seed, 2, first_out=first_out)
    assert deal.first_dealt == first_out
    assert len(deal.hands[first_out]) == 41
    assert len(deal.hands[next_seat(first_out)]) == 41
    assert len(deal.hands[partner(first_out)]) == 40
    assert len(deal.hands[partner(next_seat(first_out))]) == 40
    assert deal.dao == dao_rank(deal.indicator, 2)
    assert Counter(c for h in deal.hands for c in h) == Counter(SHOE)


def test_deal_is_reproducible_from_the_seed():
    """§11: the seed reproduces the shuffles."""
    assert deal_half("same", 1) == deal_half("same", 1)
    assert deal_half("same", 1).hands != deal_half("other", 1).hands


def test_second_half_dao_rule_seen_in_real_deals():
    """§2: across many seeds a point-card indicator makes 3 the dao only in half 2."""
    seen_point_h1 = seen_point_h2 = False
    for seed in range(400):
        d1 = deal_half(seed, 1)
        if d1.indicator[0] in "5TK":
            assert d1.dao == d1.indicator[0]
            seen_point_h1 = True
        d2 = deal_half(seed, 2, first_out=seed % 4)
        if d2.indicator[0] in "5TK" or d2.indicator[1] == "J":
            assert d2.dao == "3"
            seen_point_h2 = True
        if d1.indicator[1] == "J":
            assert d1.dao == "3"
    assert seen_point_h1
    assert seen_point_h2


# --- §2 / §4 who leads -------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_indicator_holder_leads_the_first_half(seed):
    """§2/§4: everyone sees the indicator and who was dealt it; that player leads
    the first half."""
    s = new_game(seed)
    deal = deal_half(seed, 1)
    assert s["half"] == 1
    assert s["indicator"] == deal.indicator
    assert s["indicator_seat"] == deal.indicator_seat
    assert s["leader"] == s["turn"] == deal.indicator_seat
    assert s["dao"] == dao_rank(deal.indicator, 1)
    assert s["first_dealt"] == first_dealt_seat(s["dao"])
    assert deal.indicator in s["hands"][s["leader"]]
    assert sorted(map(sorted, s["hands"])) == sorted(map(sorted, deal.hands))
