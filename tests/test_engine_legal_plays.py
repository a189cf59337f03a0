"""legal_plays: every distinct legal play of a hand (RULES.md §3), perft-style.

The reference here enumerates, independently of the engine's generator, every
sub-multiset of one rank's cards plus jokers (and jokers alone), reads it with
``classify`` and keeps what ``beats`` the table: every legal play is one rank plus
wild jokers, or jokers alone (§3). Pure Python, no Django.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from games.engine import SHOE, beats, classify, legal_plays, new_game

RANKS = "3456789TJQKA2"
SUITS = "SHCD"


def _submultisets(counter: Counter):
    items = sorted(counter.items())
    for combo in itertools.product(*[range(n + 1) for _, n in items]):
        yield [c for (c, _), k in zip(items, combo, strict=True) for _ in range(k)]


def reference_plays(hand, table, dao):
    """Every play (as classify reads it) of ``hand`` that may be played on ``table``."""
    counts = Counter(hand)
    jokers = Counter({c: n for c, n in counts.items() if c in ("RJ", "BJ")})
    out = []
    groups = [Counter()]  # jokers alone
    for r in RANKS:
        g = Counter({c: n for c, n in counts.items() if c[0] == r and c[1] != "J"})
        if g:
            groups.append(g)
    for g in groups:
        for plain in _submultisets(g):
            if g and not plain:
                continue
            for jk in _submultisets(jokers):
                cards = plain + jk
                play = classify(cards, dao)
                if play is None:
                    continue
                if table is None or beats(play, table):
                    out.append(play)
    return out


def split(plays):
    """Non-atom plays by (kind, rank, size, jokers); atoms and hydrogens by their cards."""
    keys = Counter()
    whole = Counter()
    for p in plays:
        if p.kind in ("atom", "hydrogen"):
            whole[(p.kind, tuple(sorted(p.cards)))] += 1
        else:
            keys[(p.kind, p.rank, p.size, p.jokers)] += 1
    return keys, whole


def check_against_reference(hand, table, dao):
    got = legal_plays(hand, table, dao)
    ref = reference_plays(hand, table, dao)
    gk, gw = split(got)
    rk, rw = split(ref)
    assert set(gk) == set(rk), (
        f"missing {sorted(set(rk) - set(gk))}, extra {sorted(set(gk) - set(rk))}")
    assert all(n == 1 for n in gk.values()), "plays must be distinct by (kind, rank, size, jokers)"
    assert set(gw) == set(rw)
    assert all(n == 1 for n in gw.values())
    have = Counter(hand)
    for p in got:
        again = classify(list(p.cards), dao)
        assert again is not None
        assert (again.kind, again.rank, again.size) == (p.kind, p.rank, p.size)
        assert not Counter(p.cards) - have, f"{p.cards} not in hand"
        if table is not None:
            assert beats(again, table)
    return got


def H(text):
    return text.split()


# --- pinned counts (perft) --------------------------------------------------------

# Lead counts for the four dealt hands of two fixed games, and counts when
# following the leader's weakest single. The numbers were taken from the
# reference enumeration above (not from legal_plays).
PINNED = {
    "pin-a": ("6", [112, 114, 111, 41], "3C", [56, 55, 51, 19]),
    "pin-b": ("5", [78, 78, 77, 142], "3D", [33, 30, 32, 85]),
}


@pytest.mark.parametrize("seed", sorted(PINNED))
def test_pinned_counts_every_seat(seed):
    """§3 perft: pinned legal_plays counts for every seat of two fixed deals, on a
    lead and on a single 3."""
    dao, lead_counts, single, follow_counts = PINNED[seed]
    s = new_game(seed)
    assert s["dao"] == dao
    assert [len(legal_plays(s["hands"][x], None, dao)) for x in range(4)] == lead_counts
    table = classify([single], dao)
    assert [len(legal_plays(s["hands"][x], table, dao)) for x in range(4)] == follow_counts


@pytest.mark.parametrize("seed", ["perft-1", "perft-2", "perft-3", 11, 12])
def test_dealt_hands_match_reference_on_lead(seed):
    """§3: on a lead every distinct play of each dealt hand is listed, no more, no less."""
    s = new_game(seed)
    for seat in range(4):
        check_against_reference(s["hands"][seat], None, s["dao"])


@pytest.mark.parametrize("seed", ["perft-1", "perft-2", 11])
def test_dealt_hands_match_reference_on_table_plays(seed):
    """§3: on a table play only the plays that beat it are returned, all of them."""
    s = new_game(seed)
    dao = s["dao"]
    other = "4" if dao != "4" else "5"
    tables = [
        [other + "S"], [other + "S", other + "H"], [other + "S", other + "H", other + "D"],
        [dao + "S"], [dao + "S", dao + "H"], [dao + "S", dao + "H", dao + "D"],
        [other + s for s in SUITS], [dao + s for s in SUITS], [other + s for s in SUITS] * 2,
        [other + "D"] * 3, ["RJ"] * 3, [dao + "D"] * 3, [other + s for s in SUITS for _ in "ab"],
        ["RJ"], ["RJ", "BJ"],
    ]
    for seat in range(4):
        for t in tables:
            table = classify(t, dao)
            assert table is not None, t
            check_against_reference(s["hands"][seat], table, dao)


# --- small hands counted by hand from the rules --------------------------------------

FIXED = [
    # hand, dao, number of distinct plays on a lead (counted from §3)
    ("4S 4S 4S 4H", "7", 5),  # 4H; pair; triple 4H4S4S; bomb; atom 4S
    ("7S", "7", 1),
    ("RJ", "7", 1),
    ("RJ BJ", "7", 2),  # single 3, pair 3
    ("7S RJ", "9", 3),  # single 7, single joker (3), pair 7 (7S+RJ)
    ("9S RJ", "9", 2),  # single dao 9, single joker: jokers never join the dao
    ("7S 7H 7C 7D", "9", 4),  # single, pair, triple, bomb
    ("7S 7S 7S", "9", 3),  # single, pair, atom (3 copies are an atom, not a triple)
    ("RJ RJ RJ", "9", 3),  # single, pair, joker atom
    ("RJ RJ BJ", "9", 3),  # single, pair, triple of 3s (not an atom)
    ("7S 7S 7H 7H 7C 7C 7D 7D", "9", 8),  # 1–7 cards (single…7-bomb) + hydrogen
    ("3S BJ", "3", 2),  # 3 is dao: single dao 3, single joker; no pair
    ("3S BJ", "9", 3),  # 3 is not dao: single 3, single joker, pair of 3s (3S+BJ)
]


@pytest.mark.parametrize(("hand", "dao", "n"), FIXED)
def test_small_fixed_hands(hand, dao, n):
    """§3: small hands whose plays are counted by hand from the rule text."""
    got = check_against_reference(H(hand), None, dao)
    assert len(got) == n, got


def test_hydrogen_hand_lists_hydrogen_not_eight_card_bomb():
    """§3: 8 cards 2 per suit are read as hydrogen, so no 8-card bomb of that rank."""
    plays = legal_plays(H("7S 7S 7H 7H 7C 7C 7D 7D"), None, "9")
    kinds = [(p.kind, p.size) for p in plays]
    assert ("hydrogen", 8) in kinds
    assert ("bomb", 8) not in kinds


def test_nine_cards_with_hydrogen_list_both_bombs():
    """§3: 9 cards of a rank hold a hydrogen bomb and an 8-card (non-hydrogen) bomb."""
    hand = H("7S 7S 7S 7H 7H 7C 7C 7D 7D")
    got = check_against_reference(hand, None, "9")
    kinds = {(p.kind, p.size) for p in got}
    assert {("hydrogen", 8), ("bomb", 8), ("bomb", 9), ("atom", 3)} <= kinds
    eight = next(p for p in got if p.kind == "bomb" and p.size == 8)
    assert classify(list(eight.cards), "9").kind == "bomb"


# --- canonical cards keep atoms and hydrogens whole -------------------------------------


def test_canonical_single_keeps_the_atom():
    """Canonical suits: hand 4S 4S 4S 4H -> the single is 4H (the 4♠ atom stays whole)."""
    plays = legal_plays(H("4S 4S 4S 4H"), None, "7")
    single = next(p for p in plays if p.kind == "single")
    assert single.cards == ("4H",)


def test_canonical_pair_keeps_the_atom():
    """Canonical suits: 8H 8H 8H 8D 8C -> the pair is 8D 8C, the single 8D or 8C."""
    plays = legal_plays(H("8H 8H 8H 8D 8C"), None, "7")
    pair = next(p for p in plays if p.kind == "pair")
    assert sorted(pair.cards) == ["8C", "8D"]
    single = next(p for p in plays if p.kind == "single")
    assert single.cards[0] in ("8C", "8D")


def test_canonical_jokers_keep_a_joker_atom():
    """Canonical jokers: RJ RJ RJ BJ -> the single joker is BJ, keeping the RJ atom."""
    plays = legal_plays(H("RJ RJ RJ BJ"), None, "7")
    single = next(p for p in plays if p.kind == "single")
    assert single.cards == ("BJ",)
    pair = legal_plays(H("7S RJ RJ RJ BJ"), None, "9")
    wild_pair = next(p for p in pair if p.kind == "pair" and p.rank == "7")
    assert sorted(wild_pair.cards) == ["7S", "BJ"]


def _atoms(cards):
    return {c for c, n in Counter(cards).items() if n == 3}


def test_canonical_choices_break_the_fewest_atoms_random_hands():
    """Canonical suits keep atoms whole when possible: for each play, no other choice
    of cards with the same (kind, rank, size, jokers) breaks fewer of the hand's atoms."""
    rng = random.Random(5)
    pool = [c for c in SHOE if c[0] in "789" or c[1] == "J"]
    for _ in range(150):
        hand = rng.sample(pool, rng.randint(4, 14))
        if any(sum(1 for c in hand if c[0] == r) >= 8 for r in "789"):
            continue  # hydrogen trade-offs are not ruled on
        atoms = _atoms(hand)
        best = {}
        for p in reference_plays(hand, None, "9"):
            if p.kind in ("atom", "hydrogen"):
                continue
            left = Counter(hand) - Counter(p.cards)
            broken = sum(1 for a in atoms if left[a] < 3)
            key = (p.kind, p.rank, p.size, p.jokers)
            best[key] = min(best.get(key, 99), broken)
        for p in legal_plays(hand, None, "9"):
            if p.kind in ("atom", "hydrogen"):
                continue
            left = Counter(hand) - Counter(p.cards)
            broken = sum(1 for a in atoms if left[a] < 3)
            assert broken == best[(p.kind, p.rank, p.size, p.jokers)], (hand, p)


def test_every_atom_and_hydrogen_is_listed():
    """Every atom and hydrogen bomb the hand holds is listed, dao and joker atoms too."""
    hand = H("7S 7S 7S 7H 7H 7H 7C 7C 7D 7D 9D 9D 9D RJ RJ RJ BJ BJ BJ 2S 2S 2S 2H 2H")
    plays = legal_plays(hand, None, "9")
    atoms = sorted(p.cards[0] for p in plays if p.kind == "atom")
    assert atoms == sorted(["7S", "7H", "9D", "RJ", "BJ", "2S"])
    hyd = [p for p in plays if p.kind == "hydrogen"]
    assert [p.rank for p in hyd] == ["7"]


# --- both atoms of a rank / both joker atoms: the triple must still be listed -----------


def test_two_atoms_of_one_rank_still_list_the_triple():
    """§3: 7H 7H 7S is a triple; a hand of 7H×3 + 7S×3 must list a triple of 7s
    (as well as both atoms)."""
    hand = H("7H 7H 7H 7S 7S 7S")
    got = check_against_reference(hand, None, "9")
    assert ("triple", "7") in {(p.kind, p.rank) for p in got}


def test_both_joker_atoms_still_list_a_joker_triple():
    """§3: RJ RJ BJ is a triple of 3s; a hand of RJ×3 + BJ×3 must list it."""
    hand = H("RJ RJ RJ BJ BJ BJ")
    got = check_against_reference(hand, None, "9")
    assert ("triple", "3") in {(p.kind, p.rank) for p in got}


def test_two_atoms_triple_beats_a_table_triple():
    """§3: following a triple of 6s with 7H×3 + 7S×3 in hand, a triple of 7s beats it."""
    hand = H("7H 7H 7H 7S 7S 7S")
    table = classify(H("6S 6H 6D"), "9")
    check_against_reference(hand, table, "9")


# --- the table decides what is returned ------------------------------------------------


def test_on_atom_only_higher_atoms_and_hydrogen():
    """§3: on an atom only a higher atom or a hydrogen bomb may be played."""
    hand = H("7S 7S 7S 7D 7D 7D 9S 9H 9C 9D 8S 8S 8H 8H 8C 8C 8D 8D RJ")
    table = classify(H("7H 7H 7H"), "9")
    got = check_against_reference(hand, table, "9")
    assert sorted((p.kind, p.cards[0]) for p in got) == [("atom", "7S"), ("hydrogen", "8S")]


def test_on_hydrogen_only_higher_hydrogen():
    """§3: on a hydrogen bomb only a higher hydrogen bomb."""
    hand = H("QS QS QH QH QC QC QD QD 4S 4S 4H 4H 4C 4C 4D 4D 2S 2S 2S")
    table = classify(H("8S 8S 8H 8H 8C 8C 8D 8D"), "9")
    got = check_against_reference(hand, table, "9")
    assert [(p.kind, p.rank) for p in got] == [("hydrogen", "Q")]


def test_on_dao_single_no_bombs_offered():
    """§3 Decision: on a dao single no bomb is offered, atoms are."""
    hand = H("4S 4H 4C 4D 2S 2S 2S 9D")
    table = classify(H("9H"), "9")
    got = check_against_reference(hand, table, "9")
    assert {p.kind for p in got} == {"atom"}


def test_on_non_dao_single_bombs_offered_and_higher_singles():
    """§3: on a non-dao single: higher singles, any bomb, atoms."""
    hand = H("4S 4H 4C 4D 6S 9D RJ")
    table = classify(H("5H"), "9")
    got = check_against_reference(hand, table, "9")
    kinds = sorted({(p.kind, p.rank) for p in got})
    assert ("single", "6") in kinds
    assert ("single", "9") in kinds
    assert ("single", "4") not in kinds
    assert ("single", "3") not in kinds
    assert ("bomb", "4") in kinds


def test_on_bomb_only_bigger_bombs():
    """§3: on a bomb, a bomb with more cards or as many and higher rank."""
    hand = H("4S 4H 4C 4D 6S 6H 6C 6D 6S 2S 2H RJ")
    table = classify(H("5S 5H 5C 5D"), "9")
    got = check_against_reference(hand, table, "9")
    assert all(p.kind == "bomb" for p in got)
    assert all((p.size, p.rank) != (4, "4") for p in got)


def test_random_small_hands_match_reference():
    """§3: random small hands (few ranks, so many groups, jokers, atoms) on random
    tables: legal_plays equals the reference enumeration."""
    rng = random.Random(2026)
    for i in range(300):
        dao = rng.choice(RANKS)
        ranks = rng.sample(RANKS, 3) + ([dao] if rng.random() < 0.5 else [])
        pool = [c for c in SHOE if c[0] in ranks or c[1] == "J"]
        hand = rng.sample(pool, rng.randint(1, 12))
        table = None
        if i % 2:
            t = rng.sample(pool, rng.randint(1, 5))
            table = classify(t, dao)
        check_against_reference(hand, table, dao)


def test_legal_plays_rejects_bad_cards():
    """§10: bad card strings and a fourth copy are ValueErrors."""
    with pytest.raises(ValueError, match="not a card"):
        legal_plays(["10S"], None, "9")
    with pytest.raises(ValueError, match="copies of 7S"):
        legal_plays(["7S"] * 4, None, "9")
