"""Bots: policies that see only a seat's view (RULES.md §3–§4). Pure Python."""

from __future__ import annotations

import copy
import json
import random

import pytest

from games.engine import (
    POLICIES,
    IllegalAction,
    apply,
    classify,
    heuristic_policy,
    legal_plays,
    new_game,
    random_policy,
    table_play,
    view,
)


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
        assert "hands" not in v and "seed" not in v
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
