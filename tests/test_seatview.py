"""The per-seat view carries what the table page would otherwise compute from
the rules (games/seatview.py; docs/protocol.md): each trick play's kind, the
seat to act's hints with their kinds, and the escape penalty (RULES.md §7)."""

from __future__ import annotations

import pytest

from games import engine
from games.seatview import build_view

# views carry the apps' contributions (GamePlugin.view_keys), which may read
# the database (the shop's armed timers and card counters)
pytestmark = pytest.mark.django_db

PLAYERS = [{"user_id": i + 1, "username": f"p{i}", "level": 0, "bot": False, "bot_policy": None,
            "auto_play": False, "auto_by_clock": False} for i in range(4)]


def _view(state, seat):
    return build_view(7, state, PLAYERS, None, seat)


def test_hints_are_the_legal_plays_with_their_kinds():
    state = engine.new_game("hints", [0, 0, 0, 0])
    seat = state["turn"]
    v = _view(state, seat)
    plays = engine.legal_plays(state["hands"][seat], None, state["dao"])
    assert [h["cards"] for h in v["hints"]] == [list(p.cards) for p in plays]
    for h in v["hints"]:
        p = engine.classify(h["cards"], state["dao"])
        assert (h["kind"], h["rank"], h["jokers"]) == (p.kind, p.rank, p.jokers)
        assert h["exact"] == (p.kind in ("atom", "hydrogen"))
    assert v["can_pass"] is False  # a lead
    others = [_view(state, s) for s in range(4) if s != seat] + [_view(state, None)]
    assert all("hints" not in o and "can_pass" not in o for o in others)


def test_trick_kinds_name_each_play_and_null_a_pass():
    state = engine.new_game("kinds", [0, 0, 0, 0])
    leader = state["turn"]
    lead = engine.legal_plays(state["hands"][leader], None, state["dao"])[0]
    state, _ = engine.apply(state, leader, {"type": "play", "cards": list(lead.cards)})
    state, _ = engine.apply(state, state["turn"], {"type": "pass"})
    for seat in (None, 0, 1, 2, 3):
        kinds = _view(state, seat)["trick_kinds"]
        assert kinds == [{"kind": lead.kind, "rank": lead.rank, "jokers": lead.jokers}, None]


@pytest.mark.django_db  # a finished view runs the apps' view contributions (shop.wagers reads)
def test_escape_penalty_for_players_of_a_running_game_only():
    state = engine.new_game("escape", [0, 0, 0, 0])  # stake 1, first half
    assert {_view(state, s)["escape_penalty"] for s in range(4)} == {20}
    assert "escape_penalty" not in _view(state, None)
    high = {**state, "stake": 8, "half": 2}
    assert _view(high, 0)["escape_penalty"] == engine.escape_penalty(8, 2) == 16
    practice = engine.new_game("escape", [0, 0, 0, 0], [False, True, False, False])
    assert _view(practice, 0)["escape_penalty"] == 0
    over, _ = engine.apply(state, 0, {"type": "escape"})
    assert over["status"] == engine.OVER
    assert "escape_penalty" not in _view(over, 1)
