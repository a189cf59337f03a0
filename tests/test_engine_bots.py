"""Bots: policies that see only what their seat may know (RULES.md §3–§4, §12).

Pure Python, no Django (run with ``-p no:django``): ``bot_view``, every level's
legality in generated games, and the expert's worked situations.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    BOT_POLICIES,
    POLICIES,
    SHOE,
    IllegalAction,
    apply,
    beginner_policy,
    bot_view,
    cards_points,
    classify,
    expert_policy,
    heuristic_policy,
    legal_plays,
    master_policy,
    new_game,
    random_policy,
    sort_hand,
    table_play,
    to_record,
    view,
)
from games.engine.endgame import half_value, search, state_from_view


def play_game(seed, policies, rng_seed, check=False):
    """Play a whole game; each seat's policy gets only a JSON copy of its view."""
    s = new_game(seed)
    rng = random.Random(rng_seed)
    n = 0
    while s["status"] == "playing":
        seat = s["turn"]
        v = json.loads(json.dumps(view(s, seat)))
        action = policies[seat](v, rng)
        if check:
            _check_legal(s, seat, action)
        s, _ = apply(s, seat, action)  # raises IllegalAction on an illegal choice
        n += 1
        assert n < 2000
    return s


def _check_legal(s, seat, action):
    table = table_play(s)
    if action["type"] == "pass":
        assert table is not None, "a bot may not pass on a lead"
        return
    assert action["type"] == "play"
    play = classify(action["cards"], s["dao"])
    assert play is not None
    keys = {(p.kind, p.rank, p.size) for p in legal_plays(s["hands"][seat], table, s["dao"])}
    assert (play.kind, play.rank, play.size) in keys


def test_heuristic_team_beats_random_90_percent():
    """Over 200 seeded games, seats rotated, the heuristic team wins ≥ 90% against
    random play."""
    wins = 0
    for i in range(200):
        team = i % 2
        policies = [heuristic_policy if seat % 2 == team else random_policy for seat in range(4)]
        s = play_game(f"bots-{i}", policies, i)
        wins += s["result"]["winner"] == team
    assert wins >= 180, f"heuristic won {wins}/200"


@pytest.mark.parametrize("i", range(12))
def test_heuristic_never_illegal(i):
    """The heuristic policy always returns an action the rules accept (§3/§4)."""
    policies = [heuristic_policy] * 4 if i % 3 else [heuristic_policy, random_policy] * 2
    s = play_game(f"legal-{i}", policies, i, check=True)
    assert s["status"] == "over"


def test_random_policy_never_illegal():
    for i in range(8):
        play_game(f"rnd-{i}", [random_policy] * 4, i, check=True)


def test_bot_works_from_view_only():
    """A bot given only a view (no state, no other hands, no seed) picks a legal action."""
    s = new_game("view-only")
    for _ in range(40):
        seat = s["turn"]
        v = view(s, seat)
        assert "hands" not in v
        assert "seed" not in v
        for policy in POLICIES.values():
            action = policy(copy.deepcopy(v), random.Random(1))
            apply(s, seat, action)  # legal
        s, _ = apply(s, seat, heuristic_policy(v, random.Random(0)))


def test_heuristic_goes_out_when_it_can():
    """A hand that is one legal play is played out at once."""
    s = new_game("go-out")
    s.update(hands=[["7S", "7H"], ["4D", "5D"], ["4C", "6C"], ["4H", "6H"]], turn=0, leader=0,
             dao="9",
             trick={"leader": 0, "plays": [], "last": None, "passes": 0, "points": 0})
    action = heuristic_policy(view(s, 0), random.Random(0))
    assert sorted(action["cards"]) == ["7H", "7S"]


def test_heuristic_leads_and_follows_legally_on_hand_built_positions():
    """On a lead it plays; following a play it cannot beat, it passes."""
    s = new_game("follow")
    s.update(hands=[["4S", "8S"], ["3D", "4D"], ["4C", "6C"], ["4H", "6H"]], turn=1, leader=0,
             dao="9",
             trick={"leader": 0, "plays": [[0, ["2S"]]], "last": [0, ["2S"]], "passes": 0,
                    "points": 0})
    assert heuristic_policy(view(s, 1), random.Random(0)) == {"type": "pass"}
    with pytest.raises(IllegalAction):
        apply(s, 1, {"type": "play", "cards": ["4D"]})


# --- bot_view (RULES.md §12) -------------------------------------------------------------

CARD_TOKEN = re.compile(r'"([3-9TJQKA2][SHCD]|RJ|BJ)"')


def _game_states(seed, policy=heuristic_policy, rng_seed=0):
    """Every state of one whole game played by ``policy`` from bot views."""
    s = new_game(seed)
    rng = random.Random(rng_seed)
    states = [s]
    while s["status"] == "playing":
        seat = s["turn"]
        s, _ = apply(s, seat, policy(bot_view(s, seat), rng))
        states.append(s)
    return states


def test_bot_view_is_the_view_plus_this_halfs_history_as_in_the_record():
    """``history`` is this half's plays and passes as ``[seat, cards]``, exactly the
    §11 record's ``actions`` of that half up to now; the rest equals ``view``."""
    states = _game_states("bv-history")
    record = to_record(states[-1])
    assert len(record["halves"]) >= 1
    checked = 0
    for s in states[:-1]:
        seat = s["turn"]
        bv = bot_view(s, seat)
        plain = view(s, seat)
        assert {k: v for k, v in bv.items() if k != "history"} == plain
        assert "history" not in plain
        actions = record["halves"][s["half"] - 1]["actions"]
        assert bv["history"] == actions[: len(bv["history"])]
        assert len(bv["history"]) == len(s["actions"])
        assert all(cards == [] or cards for _seat, cards in bv["history"])
        checked += 1
    assert checked > 50
    with pytest.raises(ValueError, match="a bot plays a seat"):
        bot_view(states[0], None)


def test_bot_view_holds_no_other_seats_cards():
    """Every card a bot_view names is in the seat's own hand, was played this half
    (history, trick), or is a face-up indicator (RULES.md §2, §12)."""
    for s in _game_states("bv-secret")[:-1:5]:
        for seat in range(4):
            bv = bot_view(s, seat)
            assert "hands" not in bv
            assert "seed" not in bv
            dump = json.dumps(bv)
            assert s["seed"] not in dump
            played = Counter(c for _seat, cards in s["actions"] for c in cards)
            allowed = Counter(s["hands"][seat]) + played
            shown = Counter(CARD_TOKEN.findall(json.dumps(
                {k: v for k, v in bv.items() if k not in ("history", "trick")})))
            for card, n in shown.items():
                if card == s["indicator"] or card in {h["indicator"] for h in s["halves"]}:
                    continue
                assert n <= allowed[card], (seat, card)
            hist = Counter(c for _seat, cards in bv["history"] for c in cards)
            assert hist == played


def _swap_hidden(s, seat, rng):
    """The same state with some cards exchanged between the two other live seats
    that ``seat`` cannot see (their counts kept)."""
    others = [x for x in range(4) if x != seat and s["hands"][x]]
    t = copy.deepcopy(s)
    if len(others) < 2:
        return t
    x, y = rng.sample(others, 2)
    n = min(len(t["hands"][x]), len(t["hands"][y]), 5)
    hx, hy = t["hands"][x], t["hands"][y]
    for _ in range(n):
        i, j = rng.randrange(len(hx)), rng.randrange(len(hy))
        hx[i], hy[j] = hy[j], hx[i]
    t["hands"][x] = sort_hand(hx, t["dao"])
    t["hands"][y] = sort_hand(hy, t["dao"])
    return t


SPLITS = settings(max_examples=12, deadline=None,
                  suppress_health_check=[HealthCheck.too_slow])


@SPLITS
@given(seed_n=st.integers(0, 10**6), at=st.integers(0, 150), swap_seed=st.integers(0, 10**6))
def test_hidden_split_changes_no_bot_view_and_no_bot_action(seed_n, at, swap_seed):
    """§12: states differing only in how the hidden cards are split between the
    other seats give equal bot_views, and every policy (the expert with a small
    search budget) chooses the same action for them from the same rng seed."""
    states = _game_states(f"split-{seed_n}")
    s = states[min(at, len(states) - 2)]
    seat = s["turn"]
    t = _swap_hidden(s, seat, random.Random(swap_seed))
    bv_s, bv_t = bot_view(s, seat), bot_view(t, seat)
    assert bv_s == bv_t
    for name, policy in POLICIES.items():
        kw = {"budget_ms": 5.0} if name == "expert" else {}
        a = policy(copy.deepcopy(bv_s), random.Random(7), **kw)
        b = policy(copy.deepcopy(bv_t), random.Random(7), **kw)
        assert a == b, name


# --- every policy, legal in generated games -----------------------------------------------

LEGAL = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = sorted(POLICIES)


@LEGAL
@given(seed_n=st.integers(0, 10**9), seats=st.lists(st.sampled_from(NAMES), min_size=4,
                                                    max_size=4), rng_seed=st.integers(0, 999))
def test_every_policy_returns_only_legal_actions(seed_n, seats, rng_seed):
    """In whole generated games, each seat's policy (the expert with its search off)
    returns an action the rules accept, from its bot_view alone, and never raises."""
    s = new_game(f"legal-{seed_n}")
    rng = random.Random(rng_seed)
    n = 0
    while s["status"] == "playing":
        seat = s["turn"]
        bv = json.loads(json.dumps(bot_view(s, seat)))
        kw = {"budget_ms": 0.0} if seats[seat] == "expert" else {}
        action = POLICIES[seats[seat]](bv, rng, **kw)
        _check_legal(s, seat, action)
        s, _ = apply(s, seat, action)
        n += 1
        assert n < 2000


def test_expert_search_returns_legal_actions_in_endgames():
    """With its endgame search on (a small budget), the expert still only plays
    legal actions, over whole games against the normal bot."""
    for i in range(3):
        s = new_game(f"search-{i}")
        rng = random.Random(i)
        while s["status"] == "playing":
            seat = s["turn"]
            bv = bot_view(s, seat)
            if seat % 2 == i % 2:
                action = expert_policy(bv, rng, budget_ms=3.0)
            else:
                action = heuristic_policy(bv, rng)
            _check_legal(s, seat, action)
            s, _ = apply(s, seat, action)


def test_policy_names_and_levels():
    """The site's levels are names of POLICIES; ``heuristic`` is ``normal``."""
    assert BOT_POLICIES == ("beginner", "normal", "expert", "master")  # weakest first
    assert set(BOT_POLICIES) <= set(POLICIES)
    assert POLICIES["heuristic"] is POLICIES["normal"] is heuristic_policy
    assert POLICIES["expert"] is expert_policy
    assert POLICIES["master"] is master_policy
    assert POLICIES["beginner"] is beginner_policy


# --- the expert's worked situations ---------------------------------------------------------


def situation(hands, turn, *, dao="4", plays=(), finish_order=(), captured=(0, 0, 0, 0)):
    """A hand-built state for ``turn`` to act. ``hands``: per seat a space-separated
    string (``""`` = out) or a number of cards to deal from what the shoe has left
    (a fixed shuffle; no card more than 3 times in all). ``plays``: this trick so
    far as ``(seat, "cards")``, ``""`` a pass (also this half's history);
    ``captured``: points each seat took in earlier tricks."""
    s = new_game("situation")
    trick_plays = [[seat, cards.split()] for seat, cards in plays]
    rest = Counter(SHOE)
    rest.subtract(c for h in hands if isinstance(h, str) for c in h.split())
    rest.subtract(c for p in trick_plays for c in p[1])
    assert min(rest.values()) >= 0, "a card more than 3 times"
    pool = list(rest.elements())
    random.Random(0).shuffle(pool)
    dealt = []
    for h in hands:
        if isinstance(h, int):
            dealt.append(" ".join(pool[:h]))
            del pool[:h]
        else:
            dealt.append(h)
    hands = dealt
    last = next(([p[0], p[1]] for p in reversed(trick_plays) if p[1]), None)
    passes = 0
    for p in reversed(trick_plays):
        if p[1]:
            break
        passes += 1
    pts = sum(cards_points(p[1]) for p in trick_plays)
    s.update(
        hands=[sort_hand(h.split(), dao) for h in hands], turn=turn, dao=dao,
        leader=trick_plays[0][0] if trick_plays else turn,
        trick={"leader": trick_plays[0][0] if trick_plays else turn, "plays": trick_plays,
               "last": last, "passes": passes,
               "points": pts},
        finish_order=list(finish_order), actions=[list(p) for p in trick_plays],
        captured=list(captured),
    )
    return s


def expert(s):
    action = expert_policy(bot_view(s, s["turn"]), random.Random(0), budget_ms=0.0)
    apply(s, s["turn"], action)  # legal
    return action


FILLER = 30


@settings(max_examples=60, deadline=None)
@given(picks=st.lists(st.integers(0, 161), min_size=1, max_size=120, unique=True),
       c=st.integers(0, 40), dao=st.sampled_from("3579TA2"))
def test_threats_chances_per_opponent_equal_the_plain_product(picks, c, dao):
    """The per-opponent chances of :class:`Threats` (skipping ranks that cannot
    make a group) equal the plain product over every rank of the binomial
    tails, bit for bit: the play-outs' speed-up changes no decision."""
    from games.engine.cards import SHOE
    from games.engine.expert import DAO, Threats, _binom_tail

    unseen = Counter(SHOE[i] for i in picks)
    th = Threats(unseen, dao, [c])
    none, bomb, _atom, _p3 = th._opponent(c)

    def avail(s):
        m = th.nat[s]
        return m + th.jokers if m and s != DAO else m

    for size in (1, 2, 3):
        row = [1.0] * 15
        for s in range(13, -1, -1):
            t = _binom_tail(avail(s), size, c, th.total) if th.nat[s] else 0.0
            row[s] = row[s + 1] * (1.0 - t)
        assert none[size] == row
    no_bomb = 1.0 - _binom_tail(th.jokers, 4, c, th.total)
    for s in range(14):
        if th.nat[s]:
            no_bomb *= 1.0 - _binom_tail(avail(s), 4, c, th.total)
    assert bomb == 1.0 - no_bomb


def test_expert_goes_out_when_it_can():
    """Following a pair of 5s with the last two 7s in hand: plays them and is out;
    leading with one bomb left: plays it."""
    s = situation(["7S 7H", FILLER, FILLER, FILLER], 0, plays=[(1, "5S 5H")])
    assert sorted(expert(s)["cards"]) == ["7H", "7S"]
    s = situation(["8S 8H 8C 8D", FILLER, FILLER, FILLER], 0)
    assert sorted(expert(s)["cards"]) == ["8C", "8D", "8H", "8S"]


def test_expert_does_not_beat_a_winning_partner_needlessly():
    """Partner (seat 2) leads a single 9, the opponent between passed: the expert
    passes, though a single ace (a whole group) would beat it."""
    hand = "AS 6D 6C 7S 7H 8D 8C 8H JD JC QS QH 3C 3D"
    s = situation([hand, FILLER, FILLER, FILLER], 0, plays=[(2, "9S"), (1, "")])
    assert expert(s) == {"type": "pass"}


def test_expert_bombs_an_opponent_who_would_otherwise_go_out():
    """The opponent in seat 1 leads a pair of kings and keeps two cards; nothing but
    a bomb beats the kings: the expert bombs (its six 8s) rather than let the pair
    win and the opponent lead its last two. The same lead from an opponent with a
    full hand is let go: the bomb is kept for a better use."""
    hand = "8S 8S 8H 8H 8C 8D 3S 7H 9C JS QH 6D 6C"
    s = situation([hand, "QS QH", FILLER, FILLER], 0, plays=[(1, "KS KH")])
    action = expert(s)
    assert action["type"] == "play"
    assert classify(action["cards"], "4").kind == "bomb"
    assert {c[0] for c in action["cards"]} == {"8"}
    s = situation([hand, FILLER, FILLER, FILLER], 0, plays=[(1, "KS KH")])
    assert expert(s) == {"type": "pass"}


def test_expert_feeds_points_to_its_partners_trick():
    """Partner (seat 2) plays a pair of queens; no opponent can beat a pair (one card
    each): the expert adds its pair of kings (20 points) to the trick."""
    hand = "KS KH 6D 6C 7S 8H 9D JC"
    s = situation([hand, "3C", "QD QC 9S 9H 8C", "3H"], 0, plays=[(2, "QD QC"), (1, "")])
    assert sorted(expert(s)["cards"]) == ["KH", "KS"]


def test_expert_takes_the_lead_back_after_its_partner_goes_out():
    """Partner (seat 2) went out on a single 8 and the opponent after it passed; if
    the expert passes too, 接风 gives the lead to seat 1, an opponent: it beats
    the 8 cheaply, with its lone 9, instead."""
    hand = "9S 6D 6C 7S 7H JD JC QS QH AS AH"
    s = situation([hand, FILLER, "", FILLER], 0, plays=[(2, "8S"), (1, "")],
                  finish_order=[2])
    assert expert(s)["cards"] == ["9S"]


def test_expert_leads_low_for_a_nearly_out_partner():
    """Partner holds one card: the expert leads its lowest single."""
    hand = "5D 6D 6C 7S 7H JD JC QS QH AS AH"
    s = situation([hand, FILLER, "KS", FILLER], 0)
    action = expert(s)
    assert len(action["cards"]) == 1
    assert action["cards"][0][0] in "56"


# --- the endgame search --------------------------------------------------------------------


def test_search_state_rebuilds_the_position_from_the_bot_view():
    """``state_from_view`` with the true hands is the same position: the seat's
    bot_view is unchanged and every action leads to the same next state."""
    states = _game_states("rebuild")
    for s in states[40:-1:37]:
        seat = s["turn"]
        bv = bot_view(s, seat)
        t = state_from_view(bv, s["hands"])
        again = bot_view(t, seat)
        for key in ("hand", "counts", "trick", "captured", "finish_order", "history", "turn",
                    "half", "dao", "leader", "seq"):
            assert again[key] == bv[key], key
        action = heuristic_policy(bv, random.Random(0))
        a, _ = apply(s, seat, action)
        b, _ = apply(t, seat, action)
        for key in ("hands", "trick", "captured", "finish_order", "turn", "actions"):
            assert a[key] == b[key], key


def test_half_value_follows_the_rules_of_the_game():
    """§6: a double clamp or a decided game is 1 or 0 (a point margin breaks ties);
    after a first half, first_out and points say how good it was."""
    def half(n, end, order, points):
        return {"half": n, "end": end, "finish_order": order, "points": points}

    v = {"halves": []}
    assert half_value(v, half(1, "A", [0, 2], [300, 0]), 0) > 1.0
    assert half_value(v, half(1, "A", [0, 2], [300, 0]), 1) < 0.0
    assert 0.99 < half_value(v, half(1, "B", [1, 0, 2], [250, 50]), 0) < 1.1  # 50 < 60
    good = half_value(v, half(1, "B", [0, 1, 3], [160, 140]), 0)
    bad = half_value(v, half(1, "B", [1, 0, 3], [160, 140]), 0)
    assert 0.0 < bad < good < 1.0
    first = {"halves": [{"finish_order": [1, 0, 2], "points": [150, 150]}]}
    # team 1 went out first in half 1: it wins ties at 300 (§6)
    assert half_value(first, half(2, "B", [0, 1, 2], [150, 150]), 1) > 0.99
    assert half_value(first, half(2, "B", [0, 1, 2], [155, 145]), 0) > 0.99


def test_search_finds_the_lead_that_goes_out_first():
    """Two opponents hold one card each: leading the lone 3 lets one of them go
    out over it, leading the pair of 2s holds (no one can follow a pair) and the
    3 then goes out. The search, given the 3 first, picks the pair."""
    s = situation(["2S 2H 3D", 1, 4, 1], 0, dao="9", captured=(100, 100, 50, 50))
    bv = bot_view(s, 0)
    unseen = Counter(SHOE)
    unseen.subtract(bv["hand"])
    lead_3 = {"type": "play", "cards": ["3D"]}
    lead_pair = {"type": "play", "cards": ["2H", "2S"]}
    for k in range(3):
        got = search(bv, [lead_3, lead_pair], +unseen, random.Random(k), 20.0, heuristic_policy)
        assert got == 1
    assert search(bv, [lead_3, lead_pair], +unseen, random.Random(0), 0.0,
                  heuristic_policy) is None  # no budget, no sample


# --- the master (大师) ------------------------------------------------------------------------


def _searched_positions(seed, want=4, small=2):
    """States of a game (the expert playing every seat) where the master searches:
    several candidates, so its sampled deals decide. ``small``: its sample budget."""
    from games.engine.master import candidates_for

    out = []
    for s in _game_states(seed, lambda v, r: expert_policy(v, r, budget_ms=0.0))[:-1]:
        bv = bot_view(s, s["turn"])
        if len(candidates_for(bv)) >= 2:
            out.append(s)
            if len(out) == want:
                break
    assert len(out) == want, "the game had too few contested decisions"
    return out


def test_master_never_reads_a_hidden_hand():
    """RULES.md §12: the master is handed a bot_view and nothing else. Its action
    is the same when the hidden cards are split otherwise between the other
    seats, and when the view carries poisoned ``hands`` and ``seed`` keys (so it
    reads neither: a read would change the sampled deals or fail)."""
    for k, s in enumerate(_searched_positions("master-secret")):
        seat = s["turn"]
        bv = bot_view(s, seat)
        assert "hands" not in bv
        assert "seed" not in bv
        t = _swap_hidden(s, seat, random.Random(k))
        assert t["hands"] != s["hands"]
        other = bot_view(t, seat)
        assert other == bv
        poisoned = copy.deepcopy(bv)
        poisoned["hands"] = [["RJ"] * 3, [], ["BJ"] * 3, []]
        poisoned["seed"] = "not-the-seed"
        a = master_policy(copy.deepcopy(bv), random.Random(k), samples=2)
        assert master_policy(other, random.Random(k), samples=2) == a
        assert master_policy(poisoned, random.Random(k), samples=2) == a
        apply(s, seat, a)  # legal


def test_master_decides_the_same_twice_from_the_same_seed():
    """Budgets are counts, never time: the same bot_view and the same seed give
    the same action (and the search really samples: the rng is drawn from)."""
    for k, s in enumerate(_searched_positions("master-seed", want=3)):
        bv = bot_view(s, s["turn"])
        rng_a, rng_b = random.Random(f"x{k}"), random.Random(f"x{k}")
        assert master_policy(copy.deepcopy(bv), rng_a, samples=3) == \
            master_policy(copy.deepcopy(bv), rng_b, samples=3)
        assert rng_a.getstate() == rng_b.getstate() != random.Random(f"x{k}").getstate()


def test_master_inference_weights_passes_and_shed_groups():
    """A pass over an opponent's single makes every higher rank less likely in the
    passer's hand; a single played makes the rest of its rank less likely in the
    player's hand; a pass over a partner's play says nothing."""
    from games.engine.master import infer

    s = new_game("infer")
    s["dao"] = "2"
    bv = bot_view(s, 0)
    # seat 0 (the bot) leads a 9; seat 3 passes; seat 2 (0's partner) passes; seat 1 plays a J
    bv["history"] = [[0, ["9S"]], [3, []], [2, []], [1, ["JH"]]]
    bv["counts"] = [bv["counts"][0] - 1, bv["counts"][1] - 1, bv["counts"][2], bv["counts"][3]]
    w = infer(bv)
    assert w[3]["T"] < 1
    assert w[3]["A"] < 1
    assert w[3]["2"] < 1
    assert "8" not in w[3]
    assert w[2] == {}  # passing over a partner's card says nothing
    assert w[1]["J"] < 1
    assert "T" not in w[1]


def test_master_inference_reads_leads_and_bombs_by_what_was_played():
    """RULES.md §12 card reading: the defaults weigh a led pair like any pair and
    leave bombs out; the factors fitted to the expert (``CALIBRATED_SHED``) take a
    led group or a bomb to be the player's whole rank, except a lead in the size
    of a partner's nearly-empty hand (it may be split to feed the partner)."""
    from games.engine.master import CALIBRATED_SHED, PASS_FACTOR, SHED_FACTOR, infer

    s = new_game("infer-shed")
    s["dao"] = "2"
    bv = bot_view(s, 0)
    # seat 1 leads a pair of 7s, all pass, seat 1 leads a bomb of four 9s
    bv["history"] = [[1, ["7S", "7H"]], [2, []], [3, []], [0, []],
                     [1, ["9S", "9H", "9C", "9D"]]]
    bv["counts"] = [bv["counts"][0], bv["counts"][1] - 6, bv["counts"][2], bv["counts"][3]]
    plain = infer(bv)
    assert plain[1]["7"] == pytest.approx(SHED_FACTOR)
    assert "9" not in plain[1]
    fitted = infer(bv, shed_by=CALIBRATED_SHED, floor=0.01)
    assert fitted[1]["7"] == pytest.approx(CALIBRATED_SHED["lead"])
    assert fitted[1]["9"] == pytest.approx(CALIBRATED_SHED["bomb"])
    assert fitted[2]["8"] == pytest.approx(PASS_FACTOR[2])  # passed over a pair of 7s
    assert fitted[3] == {}  # a partner's pass says nothing
    bv["counts"][3] = 2  # seat 1's partner nearly out: the pair is read as a follow
    assert infer(bv, shed_by=CALIBRATED_SHED, floor=0.01)[1]["7"] == \
        pytest.approx(CALIBRATED_SHED[2])


def test_master_sampled_deals_keep_every_count_and_the_unseen_cards():
    from games.engine.expert import WEIGHTS, Situation
    from games.engine.master import infer, sample_hands

    states = _game_states("master-sample")
    s = states[len(states) // 3]
    seat = s["turn"]
    bv = bot_view(s, seat)
    sit = Situation(bv, WEIGHTS)
    for k in range(5):
        hands = sample_hands(bv, sit.unseen, infer(bv), random.Random(k))
        assert [len(h) for h in hands] == bv["counts"]
        assert hands[seat] == bv["hand"]
        assert Counter(c for x in range(4) if x != seat for c in hands[x]) == sit.unseen


def test_master_returns_only_legal_actions_in_a_whole_game():
    """The master (a small sample budget) plays seats N–S of a whole game against
    the expert, every action legal."""
    s = new_game("master-legal")
    rng = random.Random(3)
    while s["status"] == "playing":
        seat = s["turn"]
        bv = bot_view(s, seat)
        action = (master_policy(bv, rng, samples=1) if seat % 2 == 0
                  else expert_policy(bv, rng, budget_ms=0.0))
        _check_legal(s, seat, action)
        s, _ = apply(s, seat, action)


def test_master_threats_are_the_experts_when_inference_says_nothing():
    """With every weight 1 the master's per-seat chances are the expert's card
    counting (to rounding); with this half's inference they differ somewhere."""
    from games.engine.expert import WEIGHTS, Situation
    from games.engine.master import InferredSituation, infer

    changed = 0
    for s in _game_states("master-threats")[:-1:7]:
        bv = bot_view(s, s["turn"])
        plain, same = Situation(bv, WEIGHTS), InferredSituation(bv, [{}, {}, {}, {}])
        inferred = InferredSituation(bv, infer(bv))
        for p in legal_plays(bv["hand"], plain.table, bv["dao"])[:20]:
            assert same.q_play(p) == pytest.approx(plain.q_play(p), abs=2e-3)
            changed += abs(inferred.q_play(p) - plain.q_play(p)) > 0.02
    assert changed > 0


def test_master_pick_keeps_the_rules_choice_unless_the_deals_show_better():
    """The search's choice from play-out values on the same deals: the best mean
    (the rules' order breaking near-ties); with a significance gate, another
    candidate replaces the rules' first only when it wins clearly."""
    from games.engine.master import pick

    noisy = [[0.5, 0.5, 0.5, 0.5], [0.9, 0.1, 0.95, 0.2]]  # mean 0.54, paired diff noisy
    clear = [[0.5, 0.4, 0.5, 0.45], [0.7, 0.62, 0.71, 0.66]]  # better on every deal
    assert pick(noisy) == 1
    assert pick(noisy, sure=1.0) == 0
    assert pick(clear) == 1
    assert pick(clear, sure=1.0) == 1
    assert pick([[0.5, 0.5], [0.5, 0.5]]) == 0  # a tie goes the rules' way


def test_master_second_look_keeps_the_rules_choice_or_confirms_the_challenger():
    """A challenger the search prefers meets the rules' first choice again on
    fresh deals (``verify``): the first deals are the same with or without the
    second look, so the action is the rules' choice or that same challenger, and
    the rules' choice stays whenever no challenger came up."""
    from games.engine.master import candidates_for

    challenged = 0
    for k, s in enumerate(_searched_positions("master-verify", want=6)):
        bv = bot_view(s, s["turn"])
        first = candidates_for(bv)[0]
        plain = master_policy(copy.deepcopy(bv), random.Random(k), samples=3, sure=0.0,
                              verify=0)
        looked = master_policy(copy.deepcopy(bv), random.Random(k), samples=3, sure=0.0,
                               verify=4)
        assert looked in (plain, first)
        if plain == first:
            assert looked == first
        else:
            challenged += 1
    assert challenged, "no position brought a challenger: the second look went untested"


def test_master_play_outs_play_the_experts_rules():
    """RULES.md §12: in a play-out every hand is a sampled one, so the cards a
    seat has not seen are the other three hands; counted from them, the
    play-out's expert (:func:`games.engine.master.expert_rules_action`) plays
    exactly what the expert without its search plays from its bot_view."""
    from games.engine.endgame import state_from_view
    from games.engine.master import expert_rules_action

    for s in _game_states("master-playout", lambda v, r: expert_policy(v, r, budget_ms=0.0))[:-1]:
        seat = s["turn"]
        bv = bot_view(s, seat)
        start = state_from_view(bv, s["hands"])
        start["actions"] = []  # the play-out reads no history
        assert expert_rules_action(start, seat) == expert_policy(bv, random.Random(0), 0.0)

