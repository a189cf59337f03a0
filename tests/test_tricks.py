"""上一轮: ``games.tricks.previous_trick`` agrees with the engine's
own trick ends (its ``trick`` events, RULES.md §4) at every move of whole
games, and the view carries it."""

from __future__ import annotations

import random

from games import engine
from games.engine.tricks import previous_trick
from games.seatview import build_view


def _norm(trick):
    if trick is None:
        return None
    return {"plays": [[s, sorted(c)] for s, c in trick["plays"]], "winner": trick["winner"]}


def test_previous_trick_matches_the_engines_trick_events():
    checked = 0
    for g in range(12):
        state = engine.new_game(f"prev{g}")
        rng = random.Random(g)
        expected, running = None, []
        while state["status"] == engine.PLAYING:
            seat = state["turn"]
            action = engine.heuristic_policy(engine.view(state, seat), rng)
            state, events = engine.apply(state, seat, action)
            running.append([seat, list(action.get("cards") or [])])
            kinds = {e["type"] for e in events}
            if "trick" in kinds:
                winner = next(e["seat"] for e in events if e["type"] == "trick")
                expected, running = {"plays": running, "winner": winner}, []
            if kinds & {"half_end", "deal"}:
                expected, running = None, []
            if state["status"] == engine.PLAYING:
                assert _norm(previous_trick(state)) == _norm(expected), (g, state["seq"])
                checked += 1
    assert checked > 500


def test_the_view_carries_the_previous_trick_with_its_kinds():
    state = engine.new_game("prev-view")
    rng = random.Random(1)
    players = [{"user_id": None, "username": None, "level": 0, "bot": True, "bot_policy": "normal",
                "auto_play": False, "auto_by_clock": False}] * 4
    assert build_view(1, state, players, None, 0)["previous_trick"] is None
    while previous_trick(state) is None:
        seat = state["turn"]
        state, _ = engine.apply(state, seat, engine.heuristic_policy(engine.view(state, seat), rng))
    v = build_view(1, state, players, None, None)
    prev = v["previous_trick"]
    assert prev["plays"][0][1]
    assert prev["kinds"][0]["kind"] in engine.KINDS
    pairs = zip(prev["plays"], prev["kinds"], strict=True)
    assert all((k is None) == (not c) for (_, c), k in pairs)
