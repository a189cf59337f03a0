"""The game record (RULES.md §11) and replay from the action log. Pure Python."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import pytest

from games.engine import (
    POLICIES,
    SHOE,
    apply,
    deal_half,
    from_record,
    new_game,
    record_actions,
    replay,
    to_record,
    view,
)


def play_game(seed, policy="heuristic", rng_seed=0, stop_after=None, levels=(0, 0, 0, 0)):
    """Drive a game with bots seeing only their views; return (final state, actions)."""
    s = new_game(seed, levels=levels)
    rng = random.Random(rng_seed)
    actions = []
    while s["status"] == "playing":
        if stop_after is not None and len(actions) >= stop_after:
            break
        seat = s["turn"]
        action = POLICIES[policy](view(s, seat), rng)
        s, _ = apply(s, seat, action)
        actions.append((seat, action))
    return s, actions


def finished_games():
    """A few finished games: at least one double clamp and one two-half game."""
    out = []
    for i in range(40):
        s, actions = play_game(f"rec-{i}", "random" if i % 2 else "heuristic", i)
        out.append((s, actions))
    kinds = {s["result"]["double_clamp"] for s, _ in out}
    assert kinds == {True, False}, "the sample should hold both game endings"
    return out


GAMES = finished_games()


@pytest.mark.parametrize("index", range(0, 40, 3))
def test_record_shape(index):
    """§11 (version 2, docs/record.md): version, seed, levels, bots, halves (half,
    indicator, dao, first_dealt, hands as dealt, leader, actions as [seat, cards] with
    [] for a pass, finish_order, end, points), result (winner, double_clamp,
    abandoned_by, reason)."""
    s, actions = GAMES[index]
    rec = to_record(s)
    assert rec["version"] == 3
    assert rec["seed"] == f"rec-{index}"
    assert rec["levels"] == [0, 0, 0, 0]
    assert rec["bots"] == [None] * 4
    assert set(rec["result"]) == {"winner", "double_clamp", "abandoned_by", "reason"}
    assert rec["result"]["winner"] in (0, 1)
    assert rec["result"]["abandoned_by"] is None
    assert rec["result"]["reason"] == "normal"
    n_halves = 1 if rec["result"]["double_clamp"] else 2
    assert [h["half"] for h in rec["halves"]] == list(range(1, n_halves + 1))
    first_out = None
    flat = []
    for h in rec["halves"]:
        assert {"half", "indicator", "dao", "first_dealt", "hands", "leader", "actions",
                "finish_order", "end", "points"} <= set(h)
        deal = deal_half(rec["seed"], h["half"], first_out)
        assert h["hands"] == [list(x) for x in deal.hands]
        assert Counter(c for hand in h["hands"] for c in hand) == Counter(SHOE)
        assert h["indicator"] == deal.indicator
        assert h["dao"] == deal.dao
        if h["half"] == 1:
            assert h["leader"] == deal.indicator_seat  # §4: indicator holder leads
        else:
            assert h["leader"] == h["first_dealt"] == first_out  # §4: first_out leads
        assert h["end"] in ("A", "B")
        assert len(h["finish_order"]) == (2 if h["end"] == "A" else 3)
        assert sum(h["points"]) == 300
        played = Counter()
        for seat, cards in h["actions"]:
            assert seat in (0, 1, 2, 3)
            assert isinstance(cards, list)
            played.update(cards)
            flat.append((seat, cards))
        # cards played + cards left = the deal
        dealt = Counter(c for hand in h["hands"] for c in hand)
        assert played <= dealt
        first_out = h["finish_order"][0]
    # the same cards as played (the engine may order them weakest first)
    assert [(seat, sorted(c)) for seat, c in flat] == [
        (seat, sorted(a.get("cards", []))) for seat, a in actions]


@pytest.mark.parametrize("index", range(40))
def test_record_json_round_trip(index):
    """§11: to_record -> JSON -> from_record rebuilds the same final state."""
    s, _ = GAMES[index]
    rec = json.loads(json.dumps(to_record(s), ensure_ascii=False))
    states = from_record(rec)
    assert states[-1] == s
    assert to_record(states[-1]) == rec


def test_replay_rebuilds_identical_states():
    """§11: the actions alone rebuild every state."""
    s = new_game("replay-me")
    rng = random.Random(3)
    states = [s]
    actions = []
    while s["status"] == "playing":
        seat = s["turn"]
        action = POLICIES["random"](view(s, seat), rng)
        s, _ = apply(s, seat, action)
        states.append(s)
        actions.append((seat, action))
    again = replay("replay-me", actions)
    assert len(again) == len(states)
    assert all(a == b for a, b in zip(again, states, strict=True))


def test_abandoned_game_record():
    """§11/§7: an abandoned game: winner null, abandoned_by the escaper's seat, the
    unfinished half is kept; the record replays, escape included."""
    s, _ = play_game("abandon", "heuristic", 1, stop_after=37, levels=(2, 2, 2, 2))
    s, _ = apply(s, 2, {"type": "escape"})
    rec = json.loads(json.dumps(to_record(s)))
    assert rec["result"] == {"winner": None, "double_clamp": False, "abandoned_by": 2,
                             "reason": "escape"}
    assert len(rec["halves"]) == 1
    assert len(rec["halves"][0]["actions"]) == 37
    assert record_actions(rec)[-1] == (2, {"type": "escape"})
    states = from_record(rec)
    assert states[-1] == s
    assert states[-1]["result"]["rating_changes"] == [0, 0, -20, 0]


def test_abandoned_in_second_half_record():
    """§11: an escape in the second half keeps the finished first half and the
    unfinished second one."""
    for i in range(40):
        s, _actions = play_game(f"rec-{i}", "random" if i % 2 else "heuristic", i)
        if not s["result"]["double_clamp"]:
            break
    n1 = len(s["halves"][0]["actions"])
    s2, _ = play_game(f"rec-{i}", "random" if i % 2 else "heuristic", i, stop_after=n1 + 5)
    assert s2["half"] == 2
    s2, _ = apply(s2, 0, {"type": "escape"})
    rec = to_record(s2)
    assert [h["half"] for h in rec["halves"]] == [1, 2]
    assert rec["halves"][1]["end"] is None
    assert len(rec["halves"][1]["actions"]) == 5
    assert from_record(json.loads(json.dumps(rec)))[-1] == s2


def test_no_record_while_the_game_runs():
    """§11: the seed is secret while the game runs: no record is written."""
    s = new_game("running")
    with pytest.raises(ValueError, match="only for a finished game"):
        to_record(s)


def test_tampered_record_is_refused():
    """§11: a record whose content differs from its own replay is refused."""
    s, _ = GAMES[0]
    rec = to_record(s)
    bad = copy.deepcopy(rec)
    bad["halves"][0]["points"] = [bad["halves"][0]["points"][0] + 5,
                                  bad["halves"][0]["points"][1] - 5]
    with pytest.raises(ValueError, match="does not match its own replay"):
        from_record(bad)
    bad = copy.deepcopy(rec)
    bad["result"]["winner"] = 1 - bad["result"]["winner"]
    with pytest.raises(ValueError, match="does not match its own replay"):
        from_record(bad)
    bad = copy.deepcopy(rec)
    bad["version"] = 99
    with pytest.raises(ValueError, match="unknown record version"):
        from_record(bad)


def test_record_with_illegal_action_is_refused():
    """§11: a log holding an action the rules refuse does not replay."""
    s, _ = GAMES[0]
    rec = to_record(s)
    bad = copy.deepcopy(rec)
    seat, cards = bad["halves"][0]["actions"][0]
    bad["halves"][0]["actions"][0] = [(seat + 1) % 4, cards]
    with pytest.raises(ValueError, match="does not replay"):
        from_record(bad)
