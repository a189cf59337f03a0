"""Combinations and their order: classify / beats (RULES.md §3, §10).

Worked examples from the rule text; each test names its §. Pure Python.
"""

from __future__ import annotations

import itertools

import pytest

from games.engine import beats, classify


def P(text: str, dao: str = "9"):
    """classify a space-separated card list; fail loudly if it is not a play."""
    play = classify(text.split(), dao=dao)
    assert play is not None, f"{text} should be a play under dao {dao}"
    return play


def kind(text: str, dao: str = "9"):
    play = classify(text.split(), dao=dao)
    return None if play is None else (play.kind, play.rank, play.size)


def B(new: str, table: str, dao: str = "9") -> bool:
    return beats(P(new, dao), P(table, dao))


# --- §10 contract example ---------------------------------------------------


def test_contract_example_three_seven_spades_under_dao_seven():
    """§10: classify(["7S","7S","7S"], dao="7") is an atom of rank 7, size 3."""
    play = classify(["7S", "7S", "7S"], dao="7")
    assert (play.kind, play.rank, play.size) == ("atom", "7", 3)


def test_play_keeps_its_dao_and_cards():
    """§10: beats() compares plays classified under the same dao; Play keeps it."""
    play = P("7S 7H", dao="4")
    assert play.dao == "4"
    assert sorted(play.cards) == ["7H", "7S"]


# --- §3 kinds ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("7S", ("single", "7", 1)),
        ("7S 7H", ("pair", "7", 2)),
        ("7S 7S", ("pair", "7", 2)),
        ("7S 7H 7D", ("triple", "7", 3)),
        ("7S 7S 7H", ("triple", "7", 3)),
        ("7S 7H 7C 7D", ("bomb", "7", 4)),
        ("7S 7S 7S 7H", ("bomb", "7", 4)),
        ("7S 7H 7C 7D 7S", ("bomb", "7", 5)),
        ("7S 7S 7S 7H 7H 7H 7C 7C 7C 7D 7D 7D", ("bomb", "7", 12)),
        ("9S", ("single", "9", 1)),
        ("9S 9H 9C 9D", ("bomb", "9", 4)),
    ],
)
def test_table_rows_single_pair_triple_bomb(cards, expected):
    """§3 table: 1/2/3 cards of one rank are single/pair/triple, ≥4 a bomb."""
    assert kind(cards) == expected


@pytest.mark.parametrize("cards", ["7S 8S", "7S 7H 8S", "7S 7H 7C 8D", "3S 2S", "KS AS KH AH"])
def test_mixed_ranks_are_not_a_play(cards):
    """§3: anything else (mixed ranks …) is not a legal play."""
    assert classify(cards.split(), dao="9") is None


# --- §3 rank order ------------------------------------------------------------

ORDER_NO_DAO = "3456789TJQKA2"


@pytest.mark.parametrize("dao", list(ORDER_NO_DAO))
def test_rank_order_with_the_dao_lifted_out(dao):
    """§3: dao > 2 > A > K > … > 3, the dao rank lifted out of its normal place;
    single/pair/triple beat the same kind only with a strictly higher rank."""
    order = [r for r in ORDER_NO_DAO if r != dao] + [dao]
    for size, suits in ((1, "S"), (2, "SH"), (3, "SHC")):
        for i, lo in enumerate(order):
            for j, hi in enumerate(order):
                lo_p = P(" ".join(lo + s for s in suits), dao)
                hi_p = P(" ".join(hi + s for s in suits), dao)
                assert beats(hi_p, lo_p) is (j > i), (size, hi, lo, dao)


def test_dao_single_beats_a_two():
    """§3: dao > 2 (dao 4: a single 4 beats a single 2)."""
    assert B("4D", "2S", dao="4")
    assert not B("2S", "4D", dao="4")
    assert B("2S", "4D", dao="9")  # not dao: back in its normal place


def test_higher_means_strictly_higher():
    """§10 / §3: "higher" is strict: equal plays do not beat each other."""
    assert not B("8S", "8H")
    assert not B("8S 8H", "8C 8D")
    assert not B("8S 8H 8C", "8S 8H 8D")
    assert not B("8S 8H 8C 8D", "8S 8H 8C 8D")
    assert not B("9S", "9H")  # dao equal dao


@pytest.mark.parametrize(
    ("new", "table"),
    [
        ("8S 8H", "7S"), ("2S 2H", "3S"), ("7S", "6S 6H"), ("AS", "3S 3H"),
        ("8S 8H 8C", "7S 7H"), ("7S 7H", "6S 6H 6C"), ("AS AH AD", "3S"), ("3S", "AS AH AD"),
        ("9S 9H", "2S"), ("9S", "3S 3H"), ("9S 9H 9C", "2S 2H"),
    ],
)
def test_singles_pairs_triples_never_beat_across_kinds(new, table):
    """§3: singles, pairs and triples never beat one another across kinds (dao ones too)."""
    assert not B(new, table)


# --- §3 jokers ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("7S RJ", ("pair", "7", 2)),
        ("7S BJ", ("pair", "7", 2)),
        ("7S 7H BJ", ("triple", "7", 3)),
        ("7S RJ BJ", ("triple", "7", 3)),
        ("7S 7H RJ BJ", ("bomb", "7", 4)),
        ("7S RJ RJ BJ", ("bomb", "7", 4)),
        ("7S 7S 7S RJ", ("bomb", "7", 4)),
        ("AS RJ RJ RJ BJ BJ BJ", ("bomb", "A", 7)),
    ],
)
def test_jokers_are_wild_in_pair_triple_bomb(cards, expected):
    """§3: jokers are wild in pair, triple and bomb: they take the other cards' rank."""
    assert kind(cards) == expected


@pytest.mark.parametrize(
    ("cards", "dao"),
    [("9S RJ", "9"), ("9S BJ", "9"), ("9S 9H RJ", "9"), ("9S 9H 9C BJ", "9"),
     ("9S RJ BJ", "9"), ("3S RJ", "3"), ("3S 3H BJ BJ", "3"), ("2S RJ", "2")],
)
def test_jokers_never_combine_with_dao_cards(cards, dao):
    """§3 Decision: jokers never combine with dao cards (2 jokers + 1 dao is not a play)."""
    assert classify(cards.split(), dao=dao) is None


def test_jokers_combine_with_the_card_that_is_not_dao():
    """§3: the same joker pair is fine with a rank that is not the dao."""
    assert kind("9S RJ", dao="8") == ("pair", "9", 2)


@pytest.mark.parametrize(
    ("cards", "expected"),
    [("RJ", ("single", "3", 1)), ("BJ", ("single", "3", 1)), ("RJ BJ", ("pair", "3", 2)),
     ("RJ RJ", ("pair", "3", 2)), ("RJ RJ BJ", ("triple", "3", 3)),
     ("RJ BJ BJ", ("triple", "3", 3)), ("RJ RJ BJ BJ", ("bomb", "3", 4)),
     ("RJ RJ RJ BJ BJ BJ", ("bomb", "3", 6))],
)
def test_jokers_alone_are_threes(cards, expected):
    """§3: a joker played as a plain card is a 3; jokers alone in a single, pair,
    triple or bomb are 3s (rank "3")."""
    assert kind(cards) == expected
    assert kind(cards, dao="3") == expected


def test_jokers_alone_equal_plain_threes_when_three_is_not_dao():
    """§3: jokers alone are equal to plain 3s when 3 is not the dao: neither beats."""
    for jok, plain in (("RJ", "3S"), ("RJ BJ", "3S 3H"), ("RJ RJ BJ", "3S 3H 3D"),
                       ("RJ RJ BJ BJ", "3S 3H 3C 3D")):
        assert not B(jok, plain)
        assert not B(plain, jok)
    assert B("4D", "RJ")
    assert B("4D 4C", "RJ BJ")
    assert not B("RJ", "BJ")
    assert not B("BJ", "RJ")


def test_jokers_alone_rank_below_fours_when_three_is_dao():
    """§3: when 3 is the dao, jokers alone are never a dao play and rank below the 4s:
    a pair of jokers loses to a pair of 4s and can be bombed."""
    d = "3"
    assert B("4S", "RJ", d)
    assert not B("RJ", "4S", d)
    assert B("4S 4H", "RJ BJ", d)
    assert not B("RJ BJ", "4S 4H", d)
    assert B("4S 4H 4C", "RJ BJ BJ", d)
    assert B("5S 5H 5C 5D", "RJ BJ", d)  # can be bombed
    assert B("5S 5H 5C 5D", "RJ", d)
    assert B("3S", "RJ", d)
    assert not B("RJ", "3S", d)
    assert B("3S 3H", "RJ RJ", d)
    assert B("4S 4H 4C 4D", "RJ RJ BJ BJ", d)  # joker bomb below a bomb of 4s
    assert not B("RJ RJ BJ BJ", "4S 4H 4C 4D", d)
    assert B("3S 3H 3C 3D", "RJ RJ BJ BJ", d)


def test_a_joker_bomb_does_not_beat_bomb_of_threes_when_three_is_not_dao():
    """§3: jokers alone equal the 3s: a 4-joker bomb and a 4-card bomb of 3s tie."""
    assert not B("RJ RJ BJ BJ", "3S 3H 3C 3D")
    assert not B("3S 3H 3C 3D", "RJ RJ BJ BJ")
    assert B("4S 4H 4C 4D", "RJ RJ BJ BJ")
    assert B("RJ RJ BJ BJ BJ", "AS AH AC AD")  # more cards first


# --- §3 atoms -------------------------------------------------------------------


@pytest.mark.parametrize("card", ["7H", "7S", "2D", "AS", "3C", "9D", "TS", "KH"])
def test_three_copies_of_one_card_are_an_atom(card):
    """§3: an atom is the 3 copies of one card (same rank AND suit)."""
    assert kind(f"{card} {card} {card}") == ("atom", card[0], 3)


def test_joker_atoms():
    """§3: 3 big jokers or 3 small jokers form a joker atom; mixed jokers do not."""
    assert kind("RJ RJ RJ")[0] == "atom"
    assert kind("BJ BJ BJ")[0] == "atom"
    assert kind("RJ RJ BJ")[0] == "triple"
    assert kind("RJ RJ RJ", dao="3")[0] == "atom"


def test_jokers_never_form_part_of_a_plain_atom():
    """§3: jokers never form part of an atom: 7H 7H + RJ is a triple, 7H×3 + RJ a bomb."""
    assert kind("7H 7H RJ") == ("triple", "7", 3)
    assert kind("7H 7H 7H RJ") == ("bomb", "7", 4)


def test_three_of_a_rank_in_two_suits_is_a_triple_not_an_atom():
    """§3: an atom needs the same rank AND suit."""
    assert kind("7H 7H 7S") == ("triple", "7", 3)


ATOMS_HIGH_TO_LOW_DAO_9 = (
    ["9S", "9H", "9C", "9D", "RJ", "BJ"]
    + [r + s for r in "2AKQJT87654" + "3" for s in "SHCD"]
)


def test_atom_order_full():
    """§3: atom order, high to low: dao atoms, big-joker atom, small-joker atom, then
    2, A, K … 3 atoms; the same rank by suit ♠ > ♥ > ♣ > ♦ (dao 9 here)."""
    plays = [P(f"{c} {c} {c}") for c in ATOMS_HIGH_TO_LOW_DAO_9]
    for i, hi in enumerate(plays):
        for j, lo in enumerate(plays):
            assert beats(hi, lo) is (i < j), (hi, lo)


def test_atom_suit_order_spade_heart_club_diamond():
    """§3: the same rank by suit ♠ > ♥ > ♣ > ♦."""
    assert B("7S 7S 7S", "7H 7H 7H")
    assert B("7H 7H 7H", "7C 7C 7C")
    assert B("7C 7C 7C", "7D 7D 7D")
    assert not B("7D 7D 7D", "7S 7S 7S")
    assert B("8D 8D 8D", "7S 7S 7S")  # rank first


def test_dao_atoms_above_joker_atoms():
    """§3: dao atoms are above the big-joker atom, which is above the small-joker one."""
    assert B("9D 9D 9D", "RJ RJ RJ")
    assert not B("RJ RJ RJ", "9D 9D 9D")
    assert B("RJ RJ RJ", "BJ BJ BJ")
    assert B("BJ BJ BJ", "2S 2S 2S")
    assert B("3D 3D 3D", "RJ RJ RJ", dao="3")  # 3 dao: 3 atoms are dao atoms
    assert B("RJ RJ RJ", "4S 4S 4S", dao="3")


@pytest.mark.parametrize(
    "table",
    ["9S", "9S 9H", "9S 9H 9C", "9S 9H 9C 9D", "2S", "AS AH", "RJ", "RJ BJ",
     "7S 7H 7C 7D", "7S 7S 7S 7H 7H 7H 7C 7C 7C 7D 7D 7D",
     "9S 9S 9S 9H 9H 9H 9C 9C 9C 9D 9D 9D", "AS AH AC AD RJ RJ RJ BJ BJ BJ"],
)
def test_atoms_beat_everything_but_higher_atoms_and_hydrogen(table):
    """§3 table: an atom beats everything except a higher atom and hydrogen bombs
    (dao plays included); even the lowest atom (3♦)."""
    assert B("3D 3D 3D", table)
    assert not B(table, "3D 3D 3D")  # and no bomb or small play beats it


def test_atom_does_not_beat_hydrogen():
    """§3: an atom never beats a hydrogen bomb, even the dao atom vs the lowest hydrogen."""
    hyd = "4S 4S 4H 4H 4C 4C 4D 4D"
    assert not B("9S 9S 9S", hyd)
    assert not B("RJ RJ RJ", hyd)
    assert B(hyd, "9S 9S 9S")


# --- §3 bombs -------------------------------------------------------------------


@pytest.mark.parametrize("table", ["2S", "AS AH", "KS KH KC", "3S", "RJ", "RJ BJ", "3S RJ BJ"])
def test_bomb_beats_any_non_dao_single_pair_triple(table):
    """§3 table: a bomb beats any single/pair/triple (not dao), even the lowest 4-bomb."""
    assert B("4S 4H 4C 4D", table)
    assert B("RJ RJ BJ BJ", "2S")  # a joker bomb too


@pytest.mark.parametrize("table", ["9S", "9S 9H", "9S 9H 9C", "9D 9D", "9H 9D 9D"])
def test_bomb_cannot_beat_dao_single_pair_triple(table):
    """§3 Decision (炸弹不可以压刀): a single, pair or triple of dao cards cannot be
    beaten by any bomb, only by an atom or a hydrogen bomb."""
    for bomb in ("4S 4H 4C 4D", "2S 2H 2C 2D 2S 2H 2C 2D 2S 2H 2C",
                 "AS AS AS AH AH AH AC AC AC AD AD AD RJ RJ RJ BJ BJ BJ",
                 "9S 9H 9C 9D"):
        assert not B(bomb, table), (bomb, table)
    assert B("4S 4S 4S", table)  # an atom can
    assert B("4S 4S 4H 4H 4C 4C 4D 4D", table)  # a hydrogen bomb can


def test_bomb_cannot_beat_dao_single_when_dao_is_three():
    """§3 Decision: with 3 as dao a plain 3 single is a dao play: no bomb beats it,
    while a lone joker (a 3 that is not dao) can be bombed."""
    assert not B("4S 4H 4C 4D", "3S", dao="3")
    assert B("4S 4H 4C 4D", "RJ", dao="3")


def test_bombs_size_first_then_rank():
    """§3: among bombs the card count decides first, then rank."""
    assert B("4S 4H 4C 4D 4S", "2S 2H 2C 2D")
    assert not B("2S 2H 2C 2D", "4S 4H 4C 4D 4S")
    assert B("5S 5H 5C 5D", "4S 4H 4C 4D")
    assert not B("4S 4H 4C 4D", "5S 5H 5C 5D")
    assert B("3S 3H 3C 3D RJ", "AS AH AC AD")
    assert B("QS QH QC QD QS QH", "2S 2H 2C 2D 2S")


def test_four_card_dao_bomb_beats_other_four_card_bombs():
    """§3 Decision (seed 004): a 4-card dao bomb beats any other 4-card bomb."""
    assert B("9S 9H 9C 9D", "2S 2H 2C 2D")
    assert B("9S 9H 9C 9D", "AS AH RJ BJ")
    assert B("9S 9H 9C 9D", "RJ RJ BJ BJ")
    assert not B("2S 2H 2C 2D", "9S 9H 9C 9D")


def test_five_card_bomb_beats_four_card_dao_bomb():
    """§3 Decision: a 5-card bomb beats a 4-card dao bomb."""
    assert B("3S 3H 3C 3D 3S", "9S 9H 9C 9D")
    assert B("4S 4H RJ BJ BJ", "9S 9H 9C 9D")
    assert not B("9S 9H 9C 9D", "3S 3H 3C 3D 3S")


def test_a_bomb_never_beats_an_atom_or_hydrogen():
    """§3: atoms and hydrogen bombs are beaten only by higher atoms / hydrogen."""
    big = "2S 2S 2S 2H 2H 2H 2C 2C 2C 2D 2D 2D RJ RJ RJ BJ BJ BJ"
    assert not B(big, "3D 3D 3D")
    assert not B(big, "4S 4S 4H 4H 4C 4C 4D 4D")


def test_small_plays_never_beat_bombs():
    """§3: a single/pair/triple (dao ones too) never beats a bomb."""
    for small in ("9S", "9S 9H", "9S 9H 9C", "2S 2H 2C"):
        assert not B(small, "4S 4H 4C 4D")


# --- §3 hydrogen bombs ------------------------------------------------------------

HYD = {r: " ".join(f"{r}{s} {r}{s}" for s in "SHCD") for r in ORDER_NO_DAO}


def test_hydrogen_is_eight_cards_two_of_each_suit():
    """§3: hydrogen = exactly 8 cards of one rank, exactly 2 of each suit, no jokers."""
    assert kind(HYD["7"]) == ("hydrogen", "7", 8)
    assert kind("7S 7S 7S 7H 7C 7C 7D 7D") == ("bomb", "7", 8)  # not 2 per suit
    assert kind(HYD["7"] + " 7S") == ("bomb", "7", 9)  # 9 cards
    assert kind("7S 7S 7H 7H 7C 7C 7D RJ") == ("bomb", "7", 8)  # a joker
    assert kind(HYD["9"]) == ("hydrogen", "9", 8)  # a dao hydrogen


def test_set_is_read_as_its_strongest_kind():
    """§3: 3 copies of 7♥ are an atom, not a triple; 8 cards 2 per suit are a
    hydrogen bomb, not a bomb."""
    assert kind("7H 7H 7H")[0] == "atom"
    assert kind(HYD["7"])[0] == "hydrogen"


@pytest.mark.parametrize(
    "table",
    ["9S", "9S 9H 9C", "9S 9H 9C 9D", "9D 9D 9D", "RJ RJ RJ", "BJ BJ BJ", "2S 2S 2S",
     "AS AS AS AH AH AH AC AC AC AD AD AD RJ RJ RJ BJ BJ BJ", "RJ", "3S 3H"],
)
def test_hydrogen_beats_everything(table):
    """§3 table: hydrogen beats everything except a higher hydrogen bomb (even the
    lowest hydrogen beats the dao atom and an 18-card bomb)."""
    assert B(HYD["3"], table)
    assert not B(table, HYD["3"])


def test_hydrogen_compared_by_rank_dao_highest():
    """§3: hydrogen bombs compare by rank (dao highest); strictly."""
    order = [r for r in ORDER_NO_DAO if r != "9"] + ["9"]
    for i, lo in enumerate(order):
        for j, hi in enumerate(order):
            assert B(HYD[hi], HYD[lo]) is (j > i)


def test_beats_refuses_plays_of_different_daos():
    """§10: both plays are classified under the same dao."""
    with pytest.raises(ValueError, match="different daos"):
        beats(P("7S", dao="9"), P("6S", dao="8"))


def test_exhaustive_small_beats_matrix_is_antisymmetric():
    """§3: "beats" is a strict order on comparable plays: never both ways."""
    plays = [P(t) for t in (
        "3S", "RJ", "9S", "2S", "3S 3H", "RJ BJ", "9S 9H", "AS AH", "KS KH KC", "9S 9H 9C",
        "4S 4H 4C 4D", "9S 9H 9C 9D", "RJ RJ BJ BJ", "5S 5H 5C 5D 5S", "4D 4D 4D",
        "RJ RJ RJ", "9S 9S 9S", HYD["4"], HYD["9"])]
    for a, b in itertools.permutations(plays, 2):
        assert not (beats(a, b) and beats(b, a)), (a, b)
