"""The match reducer: tricks, passes, 接风, half endings, scoring, the game, stakes,
escapes and views (RULES.md §4–§7).

Positions are built by hand: ``new_game(seed)`` and then its plain-data fields
(``hands``, ``turn``, ``trick``, ``captured`` …) overwritten. Pure Python, no Django.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import pytest

from games.engine import (
    LEVELS,
    POLICIES,
    SHOE,
    IllegalAction,
    apply,
    cards_points,
    dao_rank,
    escape_penalty,
    game_stake,
    level_for,
    new_game,
    next_seat,
    settle_half,
    view,
)

# --- helpers --------------------------------------------------------------------------


def position(hands, turn, *, dao="9", last=None, trick_points=0, captured=(0, 0, 0, 0),
             finish_order=(), levels=(0, 0, 0, 0), bots=(False,) * 4, seed="pos", plays=None):
    """A hand-built state: ``hands`` as space-separated strings (``""`` = out)."""
    s = new_game(seed, levels=levels, bots=bots)
    hs = [h.split() for h in hands]
    s.update(
        hands=hs,
        turn=turn,
        leader=turn if last is None else last[0],
        dao=dao,
        trick={
            "leader": turn if last is None else last[0],
            "plays": plays if plays is not None else ([] if last is None else [list(last)]),
            "last": None if last is None else [last[0], last[1].split()],
            "passes": 0,
            "points": trick_points,
        },
        captured=list(captured),
        finish_order=list(finish_order),
        actions=[],
    )
    return s


def play(s, seat, cards):
    return apply(s, seat, {"type": "play", "cards": cards.split()})


def pas(s, seat):
    return apply(s, seat, {"type": "pass"})


def run(s, *steps):
    """Apply steps ``(seat, "cards")`` / ``(seat, None)`` for a pass; return state, events."""
    events = []
    for seat, cards in steps:
        s, ev = pas(s, seat) if cards is None else play(s, seat, cards)
        events += ev
    return s, events


def types(events):
    return [e["type"] for e in events]


FULL = ["4S 6S 8S JS", "4H 6H 8H JH", "4C 6C 8C JC", "4D 6D 8D JD"]


# --- §4 tricks ------------------------------------------------------------------------------


def test_trick_turn_order_counterclockwise():
    """§4/§2: each next seat in turn order (下家 = (seat+3)%4) plays or passes."""
    s = position(FULL, 0)
    s, _ = play(s, 0, "4S")
    assert s["turn"] == 3
    s, _ = play(s, 3, "6D")
    assert s["turn"] == 2
    s, _ = pas(s, 2)
    assert s["turn"] == 1
    s, _ = pas(s, 1)
    assert s["turn"] == 0


def test_leader_must_play():
    """§4: the leader must play: passing on a lead is refused (must_lead)."""
    s = position(FULL, 0)
    with pytest.raises(IllegalAction) as e:
        pas(s, 0)
    assert e.value.reason == "must_lead"


def test_a_pass_does_not_stop_a_later_play_in_the_same_trick():
    """§4: a pass does not stop that player from playing later in the same trick."""
    s = position(FULL, 0)
    s, ev = run(s, (0, "4S"), (3, None), (2, "6C"), (1, None), (0, None), (3, "8D"))
    assert s["trick"]["last"] == [3, ["8D"]]
    assert "trick" not in types(ev)
    s, ev = run(s, (2, None), (1, None), (0, None))
    assert types(ev)[-1] == "trick"
    assert ev[-1]["seat"] == 3
    assert s["turn"] == 3
    assert s["trick"]["last"] is None


def test_trick_ends_when_every_other_player_has_passed():
    """§4: the trick ends when every other player still holding cards has passed
    since the last play; that player leads the next trick."""
    s = position(FULL, 0)
    s, ev = run(s, (0, "4S"), (3, None), (2, None))
    assert "trick" not in types(ev)
    assert s["turn"] == 1
    s, ev = pas(s, 1)
    assert types(ev) == ["pass", "trick"]
    assert s["turn"] == 0
    assert s["trick"]["last"] is None
    assert s["trick"]["plays"] == []


def test_trick_ends_counting_only_players_still_holding_cards():
    """§4: a player who is out is skipped and not waited for."""
    hands = ["4S 6S 8S", "4H 6H 8H", "", "4D 6D 8D"]
    s = position(hands, 0, finish_order=[2])
    s, _ = play(s, 0, "4S")
    assert s["turn"] == 3
    s, _ = pas(s, 3)
    assert s["turn"] == 1  # seat 2 is out: skipped
    s, ev = pas(s, 1)
    assert types(ev) == ["pass", "trick"]
    assert s["turn"] == 0


def test_trick_points_go_to_the_last_player():
    """§4: the trick's point cards go to the player who made the last play."""
    hands = ["5S 9S QS", "KH 4H QH", "KS 6C QC", "TS 6D QD"]
    s = position(hands, 0)
    s, ev = run(s, (0, "5S"), (3, "TS"), (2, "KS"), (1, None), (0, None), (3, None))
    assert ev[-1] == {"type": "trick", "seat": 2, "points": 25}
    assert s["captured"] == [0, 0, 25, 0]
    assert s["turn"] == 2


def test_trick_points_follow_a_bomb_over_points():
    """§4: whoever makes the last play takes every point card of the trick."""
    hands = ["KS KH 3S", "4S 4H 4C 4D 3D", "TS 3H", "5D 3C"]
    s = position(hands, 0)
    s, ev = run(s, (0, "KS KH"), (3, None), (2, None), (1, "4S 4H 4C 4D"), (0, None),
                (3, None), (2, None))
    assert ev[-1] == {"type": "trick", "seat": 1, "points": 20}
    assert s["captured"][1] == 20
    assert s["turn"] == 1


# --- §4 接风 --------------------------------------------------------------------------------


def test_jiefeng_goes_to_next_seat_not_partner():
    """§4 接风: the player who went out on an unbeaten play: the lead goes to the
    next seat in turn order (下家, seat+3), not the partner (seeds 000/004)."""
    hands = ["AS", "4H 6H", "4C 6C", "4D 6D"]
    s = position(hands, 0)
    s, ev = play(s, 0, "AS")
    assert s["finish_order"] == [0]
    assert s["turn"] == 3
    s, ev = run(s, (3, None), (2, None), (1, None))
    assert {"type": "jiefeng", "from": 0, "to": 3} in ev
    assert s["turn"] == 3
    assert s["trick"]["leader"] == 3
    assert s["trick"]["last"] is None


def test_jiefeng_skips_seats_already_out():
    """§4 接风: the lead goes to the next seat in turn order that still holds cards."""
    hands = ["AS", "4H 6H", "4C 6C", ""]
    s = position(hands, 0, finish_order=[3])
    s, _ = play(s, 0, "AS")
    assert s["status"] == "playing"
    assert s["finish_order"] == [3, 0]
    s, ev = run(s, (2, None), (1, None))
    assert {"type": "jiefeng", "from": 0, "to": 2} in ev
    assert s["turn"] == 2


def test_no_jiefeng_when_the_last_card_is_beaten():
    """§4: a player out on a play that is then beaten does not give the lead away:
    the one who beat it leads, and the out player is never asked to act."""
    hands = ["AS", "2H 4H", "4C 6C", "2D 6D"]
    s = position(hands, 0)
    s, ev = run(s, (0, "AS"), (3, "2D"), (2, None), (1, None))
    assert "jiefeng" not in types(ev)
    assert ev[-1] == {"type": "trick", "seat": 3, "points": 0}
    assert s["turn"] == 3


# --- §4 half endings, §5 scoring ------------------------------------------------------------


def test_end_a_both_of_one_team_out():
    """§4 (A): both players of one team out while both of the other still hold cards:
    the half ends at once; the unfinished trick's points go to its last player;
    §5 (A): all the last_outs captured and hold goes to the team that went out (300)."""
    hands = ["AS", "KS 5S 3H", "", "TS 5H 4D"]
    # 260 captured + 10 on the table (KD by seat 3) + 15 + 15 in hands = 300
    s = position(hands, 0, last=(3, "KD"), trick_points=10, captured=[100, 60, 50, 50],
                 finish_order=[2])
    assert sum(s["captured"]) + 10 + cards_points(s["hands"][1] + s["hands"][3]) == 300
    s, ev = play(s, 0, "AS")
    half_end = next(e for e in ev if e["type"] == "half_end")
    assert half_end["end"] == "A"
    assert half_end["finish_order"] == [2, 0]
    assert half_end["captured"] == [110, 60, 50, 50]  # the KD trick went to seat 0
    assert half_end["points"] == [300, 0]


def test_end_b_three_players_out():
    """§4 (B): three players out ends the half; §5 (B): last_out (seat 3, not on
    first_out's team) hands their captured points to first_out's team, and the
    points in their hand go to the team they are not on."""
    hands = ["9S", "", "", "KS TS 3D 5C"]
    # captured 270, + 5 on the table (5D by seat 3), + 25 in seat 3's hand = 300
    s = position(hands, 0, last=(3, "5D"), trick_points=5, captured=[40, 60, 80, 90],
                 finish_order=[1, 2])
    assert sum(s["captured"]) + 5 + cards_points(s["hands"][3]) == 300
    s, ev = play(s, 0, "9S")
    he = next(e for e in ev if e["type"] == "half_end")
    assert he["end"] == "B"
    assert he["finish_order"] == [1, 2, 0]
    assert he["captured"] == [45, 60, 80, 90]  # the unfinished trick went to seat 0
    # first_out is seat 1; last_out 3 is its partner: no captured points move; the
    # 25 points in 3's hand go to team 0 (the team 3 is not on).
    assert he["points"] == [45 + 80 + 25, 60 + 90]
    assert sum(he["points"]) == 300


def test_settle_b_last_out_opposes_first_out():
    """§5 (B): last_out captured -> first_out's team; last_out's hand points -> the
    team last_out is not on. Teams total 300."""
    points, transfers = settle_half("B", [50, 40, 60, 70], [[], [], [], ["KS"] * 3 + ["TS"] * 3 +
                                                              ["5S"] * 3 + ["5H"]],
                                    [0, 1, 2])
    assert cards_points(["KS"] * 3 + ["TS"] * 3 + ["5S"] * 3 + ["5H"]) == 80
    assert points == [50 + 60 + 70 + 80, 40]
    assert sum(points) == 300
    moved = {(t["seat"], t["to_team"], t["points"], t["what"]) for t in transfers}
    assert moved == {(3, 0, 70, "captured"), (3, 0, 80, "hand")}


def test_settle_b_last_out_partner_of_first_out_nothing_moves():
    """§5 (B): last_out is first_out's partner: nothing of the captured moves; the
    points still in their hand go to the other team (seed 001 归对方阵营)."""
    hand = ["KS"] * 3 + ["TS"] * 3 + ["5S"] * 3 + ["5H"]
    points, transfers = settle_half("B", [50, 40, 60, 70], [[], [], hand, []], [0, 1, 3])
    assert points == [50 + 60, 40 + 70 + 80]
    assert sum(points) == 300
    assert [(t["seat"], t["to_team"], t["what"]) for t in transfers] == [(2, 1, "hand")]


def test_settle_a_team_out_scores_300():
    """§5 (A): both players still holding cards are last_out: all they captured and all
    point cards in their hands go to the team that went out, which scores 300."""
    points, transfers = settle_half(
        "A", [50, 40, 60, 95], [[], ["KS", "KH", "5S"], [], ["TS", "TH", "5D", "5C"]], [0, 2])
    assert points == [300, 0]
    moved = Counter()
    for t in transfers:
        assert t["to_team"] == 0
        moved[t["seat"]] += t["points"]
    assert moved == {1: 40 + 25, 3: 95 + 30}
    points, _ = settle_half("A", [0, 100, 90, 100], [["KS"], [], [], []], [3, 1])
    assert points == [0, 300]


def test_settle_b_first_out_team_keeps_its_own_capture():
    """§5 (B): only last_out's capture moves; the others keep theirs."""
    points, _ = settle_half("B", [0, 100, 120, 80], [[], [], [], []], [2, 1, 0])
    assert points == [120 + 80, 100]


# --- §6 double clamp, second half, winner ---------------------------------------------------


def _half1_b(captured, finish_order, holder, hand, levels=(0, 0, 0, 0), bots=(False,) * 4):
    """A half-1 position whose next play (by the seat ``finish_order``'s missing out
    player) ends it by (B). Returns (state, seat to play, its card)."""
    hands = [""] * 4
    out_next = next(x for x in range(4) if x not in finish_order and x != holder)
    hands[out_next] = "4S"
    hands[holder] = hand
    s = position(hands, out_next, captured=captured, finish_order=finish_order,
                 levels=levels, bots=bots, seed="half1")
    assert sum(captured) + cards_points(hand.split()) == 300
    return s, out_next


def test_double_clamp_by_end_a():
    """§6: after the first half, an (A) ending is a double clamp: the game ends, the
    team that went out wins; §7 the stake is doubled."""
    s = position(["AS", "3H", "", "3D"], 0, captured=[100, 100, 100, 0], finish_order=[2])
    s, ev = play(s, 0, "AS")
    assert s["status"] == "over"
    r = s["result"]
    assert r["winner"] == 0
    assert r["double_clamp"] is True
    assert r["abandoned_by"] is None
    assert r["rating_changes"] == [2, -2, 2, -2]
    assert types(ev)[-2:] == ["half_end", "game_end"]


def test_double_clamp_by_under_60_other_team():
    """§6: either team under 60 after the first half is a double clamp; the winner
    is the team with 60 or more."""
    s, seat = _half1_b([150, 20, 100, 30], [0, 1], holder=2, hand="3H")
    s, _ev = play(s, seat, "4S")  # seat 3 goes out: (B), last_out seat 2
    he = s["halves"][0]
    assert he["end"] == "B"
    assert he["points"] == [250, 50]
    assert s["result"]["double_clamp"] is True
    assert s["result"]["winner"] == 0


def test_double_clamp_by_under_60_first_out_team():
    """§6 (seed 004 不管是哪一方): the first_out's own team under 60 is a double clamp too,
    won by the other team."""
    # seat 0 first out; seat 2 (partner) is last_out holding 40 points
    s, seat = _half1_b([0, 130, 10, 120], [0, 1], holder=2, hand="KS KH TS TH")
    s, _ = play(s, seat, "4S")
    he = s["halves"][0]
    assert he["end"] == "B"
    assert he["finish_order"] == [0, 1, 3]
    assert he["points"] == [10, 290]
    assert s["result"]["double_clamp"] is True
    assert s["result"]["winner"] == 1
    assert s["result"]["rating_changes"] == [-2, 2, -2, 2]


def test_exactly_60_is_not_a_double_clamp():
    """§6: under 60 means < 60: a team with exactly 60 plays a second half."""
    s, seat = _half1_b([60, 100, 0, 140], [1, 0], holder=2, hand="3S")
    s, _ = play(s, seat, "4S")
    assert s["halves"][0]["points"] == [60, 240]
    assert s["status"] == "playing"
    assert s["half"] == 2


def test_second_half_dealt_and_led_by_first_out():
    """§6/§2/§4: otherwise a second half is dealt: first to the first half's first_out,
    who leads it; dao by the second-half rule; a full 162-card deal 41/41/40/40."""
    s, seat = _half1_b([100, 60, 80, 60], [1, 2], holder=3, hand="3S")
    s, ev = play(s, seat, "4S")
    assert s["status"] == "playing"
    assert s["half"] == 2
    assert s["halves"][0]["points"] == [180, 120]
    deal_ev = next(e for e in ev if e["type"] == "deal")
    assert deal_ev["half"] == 2
    assert deal_ev["leader"] == 1
    assert s["leader"] == s["turn"] == s["first_dealt"] == 1
    assert s["dao"] == dao_rank(s["indicator"], 2)
    sizes = [len(h) for h in s["hands"]]
    assert sizes[1] == sizes[next_seat(1)] == 41
    assert sorted(sizes) == [40, 40, 41, 41]
    assert Counter(c for h in s["hands"] for c in h) == Counter(SHOE)
    assert s["captured"] == [0, 0, 0, 0]
    assert s["finish_order"] == []
    assert s["trick"]["last"] is None


def _second_half(first_out_h1, half1_points):
    """A real second half: half 1 ended by (B) with ``half1_points`` and the given
    first_out; returns the half-2 state."""
    order = [first_out_h1, next_seat(first_out_h1)]
    holder = next_seat(next_seat(first_out_h1))
    mover = next(x for x in range(4) if x not in order and x != holder)
    cap = [0, 0, 0, 0]
    cap[first_out_h1] = half1_points[first_out_h1 % 2]
    cap[mover] = half1_points[mover % 2] if mover % 2 != first_out_h1 % 2 else 0
    cap[order[1]] = half1_points[order[1] % 2] - (cap[mover] if mover % 2 == order[1] % 2 else 0)
    # holder is first_out's partner: its hand points go to the other team; keep 0 in hand
    hands = [""] * 4
    hands[mover] = "4S"
    hands[holder] = "3S"
    s = position(hands, mover, captured=cap, finish_order=order, seed="half2")
    s, _ = play(s, mover, "4S")
    assert s["half"] == 2, s["halves"]
    assert s["halves"][0]["points"] == list(half1_points)
    assert s["halves"][0]["finish_order"][0] == first_out_h1
    return s


def _end_half2_b(s, first_out, captured, holder, hand=""):
    """Overwrite the half-2 state so that the next play ends it by (B)."""
    hands = [[] for _ in range(4)]
    others = [x for x in range(4) if x not in (first_out, holder)]
    mover = others[0]
    hands[mover] = ["4S"]
    hands[holder] = hand.split() or ["3S"]
    s = copy.deepcopy(s)
    s.update(hands=hands, turn=mover, finish_order=[first_out, others[1]], captured=captured,
             trick={"leader": mover, "plays": [], "last": None, "passes": 0, "points": 0})
    s, _ev = play(s, mover, "4S")
    return s


def test_second_half_tie_300_goes_to_first_half_first_out_team():
    """§6: over both halves the first half's first_out team wins with ≥ 300: a
    300–300 tie is theirs (the half-2 first_out's team does not matter)."""
    s = _second_half(1, (150, 150))  # first_out of half 1 is seat 1 (team 1)
    # half 2: team 0 gets 150, team 1 gets 150, first_out of half 2 is seat 0 (team 0)
    s = _end_half2_b(s, first_out=0, captured=[100, 100, 50, 50], holder=2)
    assert s["halves"][1]["points"] == [150, 150]
    assert s["status"] == "over"
    r = s["result"]
    assert r["totals"] == [300, 300]
    assert r["winner"] == 1
    assert r["double_clamp"] is False
    assert r["rating_changes"] == [-1, 1, -1, 1]


def test_second_half_other_team_needs_305():
    """§6: the other team wins with ≥ 305; no draw."""
    s = _second_half(1, (150, 150))
    s = _end_half2_b(s, first_out=0, captured=[105, 100, 50, 45], holder=2)
    assert s["halves"][1]["points"] == [155, 145]
    assert s["result"]["totals"] == [305, 295]
    assert s["result"]["winner"] == 0
    s = _second_half(0, (140, 160))  # team 0 first out, only 140 in half 1
    s = _end_half2_b(s, first_out=1, captured=[80, 80, 80, 60], holder=3)
    assert s["result"]["totals"] == [300, 300]
    assert s["result"]["winner"] == 0


def test_second_half_end_a_or_under_60_is_no_double_clamp():
    """§6: the double clamp exists only after the first half: a second half ended by
    (A) is decided on the 600-point totals, stake not doubled."""
    s = _second_half(1, (150, 150))
    s = copy.deepcopy(s)
    s.update(hands=[["AS"], ["3H"], [], ["3D"]], turn=0, finish_order=[2],
             captured=[0, 100, 0, 200],
             trick={"leader": 0, "plays": [], "last": None, "passes": 0, "points": 0})
    s, _ = play(s, 0, "AS")
    assert s["halves"][1]["end"] == "A"
    assert s["halves"][1]["points"] == [300, 0]
    r = s["result"]
    assert r["totals"] == [450, 150]
    assert r["winner"] == 0
    assert r["double_clamp"] is False
    assert r["rating_changes"] == [1, -1, 1, -1]


def test_each_half_teams_total_300_in_real_games():
    """§5: the two teams always total 300 (checked over whole games)."""
    for seed in range(6):
        s = new_game(f"total-{seed}")
        rng = random.Random(seed)
        while s["status"] == "playing":
            seat = s["turn"]
            s, _ = apply(s, seat, POLICIES["heuristic"](view(s, seat), rng))
        for h in s["halves"]:
            assert sum(h["points"]) == 300


# --- §7 ladder, stake, practice, escape ----------------------------------------------------

LADDER = [
    (0, "科员", 0, 1), (1, "助科", 50, 5), (2, "副科", 100, 10), (3, "科长", 200, 20),
    (4, "助处", 500, 40), (5, "副处", 1_000, 60), (6, "处长", 2_000, 80),
    (7, "助局", 4_000, 100), (8, "副局", 8_000, 150), (9, "局长", 16_000, 200),
    (10, "助市", 32_000, 260), (11, "副市", 64_000, 300), (12, "市长", 128_000, 400),
    (13, "助省", 262_000, 500), (14, "副省", 500_000, 600), (15, "省长", 1_000_000, 700),
    (16, "原子弹", 2_000_000, 800),
]


def test_ladder_table():
    """§7: the 17 levels, their titles, thresholds and stakes."""
    assert [(lv.number, lv.title, lv.threshold, lv.stake) for lv in LEVELS] == LADDER


@pytest.mark.parametrize(("number", "title", "threshold", "stake"), LADDER)
def test_level_is_highest_threshold_reached(number, title, threshold, stake):
    """§7: a player's level is the highest whose threshold their points reach."""
    assert level_for(threshold) == number
    if number:
        assert level_for(threshold - 1) == number - 1
    assert level_for(threshold + 1) == number


def test_below_zero_is_still_level_0():
    """§7: points can fall; below 0 is still 科员."""
    assert level_for(-1) == 0
    assert level_for(-10_000) == 0
    assert level_for(10**9) == 16


def test_stake_is_lowest_level_players_stake():
    """§7: a game's stake is the stake of the lowest-level player of the four."""
    assert game_stake([3, 0, 5, 2]) == 1
    assert game_stake([5, 7, 9, 12]) == 60
    assert game_stake([16, 16, 16, 16]) == 800
    assert game_stake([4, 4, 9, 4]) == 40
    assert new_game("st", levels=[9, 9, 9, 8])["stake"] == 150


def test_winners_gain_and_losers_lose_the_stake():
    """§7: winners gain the stake, losers lose it (here via a second-half win)."""
    s = _second_half(1, (150, 150))
    s["levels"], s["stake"] = [5, 6, 7, 8], game_stake([5, 6, 7, 8])
    s = _end_half2_b(s, first_out=0, captured=[100, 100, 50, 50], holder=2)
    assert s["result"]["winner"] == 1
    assert s["result"]["rating_changes"] == [-60, 60, -60, 60]


def test_double_clamp_doubles_the_stake_at_a_high_level():
    """§7: a double clamp doubles the stake."""
    s = position(["AS", "3H", "", "3D"], 0, captured=[100, 100, 100, 0], finish_order=[2],
                 levels=(9, 10, 11, 12))
    s, _ = play(s, 0, "AS")
    assert s["result"]["rating_changes"] == [400, -400, 400, -400]


def test_practice_game_with_any_bot_changes_nothing():
    """§7 Decision: a game with a bot in any seat is a practice game: no rating points
    change, and leaving it is not an escape."""
    for b in range(4):
        bots = [x == b for x in range(4)]
        s = position(["AS", "3H", "", "3D"], 0, captured=[100, 100, 100, 0], finish_order=[2],
                     levels=(9, 9, 9, 9), bots=bots)
        assert s["practice"] is True
        s2, _ = play(s, 0, "AS")
        assert s2["result"]["winner"] == 0
        assert s2["result"]["rating_changes"] == [0, 0, 0, 0]
        s3, _ev = apply(s, 1, {"type": "escape"})
        assert s3["result"]["rating_changes"] == [0, 0, 0, 0]
    assert new_game("p")["practice"] is False


@pytest.mark.parametrize(
    ("levels", "half", "penalty"),
    [
        ((0, 0, 0, 0), 1, 20),  # max(2×1, 20)
        ((0, 0, 0, 0), 2, 10),  # max(2×1, 10)
        ((1, 1, 1, 1), 1, 20),  # max(10, 20)
        ((1, 1, 1, 1), 2, 10),
        ((2, 2, 2, 2), 2, 20),  # max(20, 10)
        ((3, 3, 3, 3), 1, 40),
        ((9, 9, 12, 16), 1, 400),  # stake 200
        ((9, 9, 12, 16), 2, 400),
        ((16, 16, 16, 16), 2, 1600),
    ],
)
def test_escape_penalty(levels, half, penalty):
    """§7 Decision: the escaper loses max(2 × stake, 20 in the first half / 10 in the
    second); the game is abandoned; the other three keep their points."""
    stake = game_stake(levels)
    assert escape_penalty(stake, half) == penalty
    s = new_game("esc", levels=levels)
    if half == 2:
        s = _second_half(1, (150, 150))
        s["levels"], s["stake"] = list(levels), stake
    escaper = (s["turn"] + 1) % 4  # not even their turn
    s2, ev = apply(s, escaper, {"type": "escape"})
    assert s2["status"] == "over"
    r = s2["result"]
    assert r["winner"] is None
    assert r["abandoned_by"] == escaper
    expected = [0, 0, 0, 0]
    expected[escaper] = -penalty
    assert r["rating_changes"] == expected
    assert {"type": "escape", "seat": escaper, "penalty": penalty} in ev


def test_escape_penalty_is_dearer_than_losing():
    """§7: the larger of the two keeps escaping dearer than losing at every level."""
    for lv in LEVELS:
        for half in (1, 2):
            assert escape_penalty(lv.stake, half) > lv.stake


# --- IllegalAction reasons and immutability ------------------------------------------------


def _refused(s, seat, action, reason):
    before = copy.deepcopy(s)
    with pytest.raises(IllegalAction) as e:
        apply(s, seat, action)
    assert e.value.reason == reason, (e.value.reason, str(e.value))
    assert isinstance(e.value, ValueError)
    assert s == before, "a refused action must leave the state unchanged"


def test_refused_actions_have_reason_codes():
    """§4: only the seat to act may act; only its own cards; a legal combination (§3);
    that beats the last play; the leader must play; the state is unchanged."""
    s = position(["4S 4H 6S 7S 7S 9S", "4D 6H 8H", "4C 6C 8C", "5D 6D 8D"], 0)
    _refused(s, 1, {"type": "play", "cards": ["4D"]}, "not_your_turn")
    _refused(s, 1, {"type": "pass"}, "not_your_turn")
    _refused(s, 0, {"type": "play", "cards": ["8S"]}, "not_in_hand")
    _refused(s, 0, {"type": "play", "cards": ["7S", "7S", "7S"]}, "not_in_hand")
    # more copies than the shoe holds are real cards the hand cannot hold
    _refused(s, 0, {"type": "play", "cards": ["7S"] * 5}, "not_in_hand")
    _refused(s, 0, {"type": "play", "cards": ["4S", "6S"]}, "not_a_combination")
    _refused(s, 0, {"type": "play", "cards": []}, "not_a_combination")
    _refused(s, 0, {"type": "play", "cards": ["10S"]}, "bad_card")
    _refused(s, 0, {"type": "play", "cards": ["ts"]}, "bad_card")
    _refused(s, 0, {"type": "pass"}, "must_lead")
    _refused(s, 0, {"type": "dance"}, "bad_action")
    _refused(s, 7, {"type": "pass"}, "bad_seat")
    s1, _ = play(s, 0, "7S 7S")
    _refused(s1, 3, {"type": "play", "cards": ["5D"]}, "does_not_beat")
    _refused(s1, 3, {"type": "play", "cards": ["6D"]}, "does_not_beat")  # pair vs single
    s2, _ = play(s, 0, "6S")
    _refused(s2, 3, {"type": "play", "cards": ["6D"]}, "does_not_beat")  # equal is not higher
    _refused(s2, 3, {"type": "play", "cards": ["5D"]}, "does_not_beat")


def test_refused_on_dao_single_by_bomb():
    """§3 Decision in play: a bomb may not be played on a dao single."""
    s = position(["9S 3S", "4D 4H 4C 4S 5S", "3C", "3D"], 0, dao="9")
    s, _ = play(s, 0, "9S")
    s, _ = pas(s, 3)
    s, _ = pas(s, 2)
    _refused(s, 1, {"type": "play", "cards": ["4D", "4H", "4C", "4S"]}, "does_not_beat")


def test_game_over_refuses_everything():
    """§6: once the game is over no action is accepted (game_over)."""
    s = position(["AS", "3H", "", "3D"], 0, captured=[100, 100, 100, 0], finish_order=[2])
    s, _ = play(s, 0, "AS")
    _refused(s, 1, {"type": "play", "cards": ["3H"]}, "game_over")
    _refused(s, 1, {"type": "pass"}, "game_over")
    _refused(s, 1, {"type": "escape"}, "game_over")


def test_out_player_cannot_act():
    """§4: a player with no cards is never to act."""
    s = position(["", "4H 6H", "4C 6C", "4D 6D"], 3, finish_order=[0])
    _refused(s, 0, {"type": "pass"}, "not_your_turn")


def test_accepted_actions_do_not_mutate_the_input():
    """The reducer is pure: apply returns a new state and leaves the old one as it was."""
    s = new_game("pure")
    before = copy.deepcopy(s)
    seat = s["turn"]
    s2, _ = apply(s, seat, {"type": "play", "cards": [s["hands"][seat][0]]})
    assert s == before
    before2 = copy.deepcopy(s2)
    apply(s2, s2["turn"], {"type": "pass"})
    apply(s2, 2, {"type": "escape"})
    assert s2 == before2


# --- views ----------------------------------------------------------------------------------


def test_view_shows_own_hand_and_only_counts_of_others():
    """§2/§10 views: a seat sees its own hand, the others' counts, the indicator face
    up and who holds it; never the seed or another seat's cards while playing."""
    s = new_game("view-secret-seed-xyz")
    for seat in range(4):
        v = view(s, seat)
        assert v["hand"] == s["hands"][seat]
        assert v["counts"] == [len(h) for h in s["hands"]]
        assert v["indicator"] == s["indicator"]
        assert v["indicator_seat"] == s["indicator_seat"]
        dump = json.dumps(v, ensure_ascii=False)
        assert "view-secret-seed-xyz" not in dump
        assert "hands" not in v
        assert "seed" not in v
        for other in range(4):
            if other != seat:
                assert s["hands"][other] not in [v.get(k) for k in v]
    spectator = view(s, None)
    assert spectator["hand"] is None
    assert "view-secret-seed-xyz" not in json.dumps(spectator, ensure_ascii=False)


def test_view_after_game_over_shows_everything():
    """§11: once the game is over the seed and all hands may be shown."""
    s = position(["AS", "3H", "", "3D"], 0, captured=[100, 100, 100, 0], finish_order=[2],
                 seed="over-seed")
    s, _ = play(s, 0, "AS")
    v = view(s, 1)
    assert v["seed"] == "over-seed"
    assert v["hands"] == [[], ["3H"], [], ["3D"]]


def test_view_rejects_bad_seat():
    with pytest.raises(ValueError, match="no such seat"):
        view(new_game("x"), 4)
