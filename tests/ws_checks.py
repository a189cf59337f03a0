"""Checks shared by the websocket tests (tests/test_consumers.py and
tests/test_production_stack.py): what a client received against the truth."""

from __future__ import annotations

import random
from typing import Any

from games import engine
from games.models import Game, GameEvent

# what games.seatview adds to the engine's view (no game data of other seats)
SITE_KEYS = {"game_id", "players", "time_left_ms", "clock_paused", "trick_kinds",
             "escape_penalty", "hints", "can_pass", "fairness", "previous_trick",
             "wager", "coin_changes", "coins",  # contributed by shop.wagers, once over
             "armed_timer", "card_counter", "drops",  # shop.ingame
             "coins_held"}  # shop.holds, a player's own view while a wager game runs
SECRET_KEYS = {"hand", "hands", "seed", "state"}


def states_by_seq(game: Game) -> dict[int, dict]:
    """Rebuild the true state at every seq from the seed and the event log."""
    s = game.state
    state = engine.new_game(s["seed"], s["levels"], s["bots"])
    if "fairness" in s:  # the deal's inputs, kept with the state from the start (games.fairness)
        state["fairness"] = s["fairness"]
    states = {0: state}
    for ev in GameEvent.objects.filter(game=game).order_by("seq"):
        state, _ = engine.apply(state, ev.seat, ev.action)
        assert state["seq"] == ev.seq
        states[ev.seq] = state
    return states


def keys(obj: Any) -> set[str]:
    """Every dict key anywhere in a JSON value."""
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in keys(v)}
    return set()


def check_frames(frames: list[dict[str, Any]], states: dict[int, dict], seat: int | None) -> int:
    """Every frame holds only what ``seat`` (``None``: a spectator) may see.

    A ``game`` frame's view must be exactly the engine's view of the true state
    at its seq for that seat (own hand only, no seed, no other hands while the
    game runs) plus the site's keys; any other frame holds no hand or seed at all.

    :returns: how many game frames were checked.
    """
    checked = 0
    for frame in frames:
        if frame["type"] != "game":
            assert not keys(frame) & SECRET_KEYS, frame["type"]
            continue
        v = frame["view"]
        true = states[v["seq"]]
        assert v["seat"] == seat
        engine_part = {k: val for k, val in v.items() if k not in SITE_KEYS}
        assert engine_part == engine.view(true, seat)
        if true["status"] == engine.PLAYING:
            assert "seed" not in v
            assert "hands" not in v
            # the deal's fairness: the commitment only, never the server seed (games.fairness)
            assert "server_seed" not in v.get("fairness", {})
            assert v["hand"] == (true["hands"][seat] if seat is not None else None)
            for hint in v.get("hints", []):
                cards = hint["cards"]
                assert all(cards.count(c) <= v["hand"].count(c) for c in cards)
        checked += 1
    return checked


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The client message for the seat to act: ``heuristic_policy`` on its own view."""
    action = engine.heuristic_policy(view, rng)
    msg: dict[str, Any] = {"type": action["type"], "seq": view["seq"]}
    if action["type"] == "play":
        msg["cards"] = action["cards"]
    return msg
