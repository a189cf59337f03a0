"""The match as a reducer: ``new_game`` and ``apply`` (RULES.md §4–§7).

A game's state is plain JSON-able data (a ``dict``), never mutated in place:
``apply(state, seat, action)`` returns ``(new_state, events)``. Actions::

    {"type": "play", "cards": ["7S", "7H"]}
    {"type": "pass"}
    {"type": "escape"}          # leave the running game (§7), any seat, any time

Events are small dicts (``{"type": "play", "seat": 2, "cards": [...]}``,
``"pass"``, ``"trick"``, ``"out"``, ``"jiefeng"``, ``"half_end"``, ``"deal"``,
``"game_end"``, ``"escape"``) for the UI and the site's log. The actions alone
rebuild every state (see :mod:`games.engine.record`).

>>> s = new_game("doc", levels=[0, 0, 0, 0])
>>> s["turn"] == s["leader"], s["status"]
(True, 'playing')
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from .cards import cards_points, parse_cards, sort_hand
from .combos import beats, classify
from .deal import deal_half, next_seat, team_of
from .levels import escape_penalty, game_stake

STATE_VERSION = 1
PLAYING, OVER = "playing", "over"

State = dict[str, Any]
Event = dict[str, Any]


class IllegalAction(ValueError):
    """An action the rules do not allow; the state is unchanged.

    ``reason`` is a stable code for clients: ``game_over``, ``not_your_turn``,
    ``bad_action``, ``bad_card``, ``not_in_hand``, ``not_a_combination``,
    ``does_not_beat``, ``must_lead`` (passing on a lead), ``bad_seat``.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def new_game(
    seed: str | int,
    levels: Sequence[int] = (0, 0, 0, 0),
    bots: Sequence[bool] = (False, False, False, False),
) -> State:
    """A new game dealt from ``seed`` (RULES.md §2, §7).

    :param seed: reproduces every shuffle of the game; secret while it runs.
    :param levels: the four players' levels (0–16) when it starts, for the stake.
    :param bots: which seats are filled by bots; any bot makes a practice game.
    :returns: the state of the first half, the indicator holder to lead.
    :raises ValueError: for bad levels.
    """
    if len(levels) != 4 or len(bots) != 4:
        raise ValueError("levels and bots need one entry per seat")
    state: State = {
        "version": STATE_VERSION,
        "seed": str(seed),
        "levels": [int(x) for x in levels],
        "bots": [bool(b) for b in bots],
        "practice": any(bots),
        "stake": game_stake(levels),
        "status": PLAYING,
        "seq": 0,
        "halves": [],
        "result": None,
    }
    _start_half(state, 1, None)
    return state


def _start_half(state: State, half: int, first_out: int | None) -> None:
    deal = deal_half(state["seed"], half, first_out)
    leader = deal.indicator_seat if half == 1 else first_out
    state.update(
        half=half,
        indicator=deal.indicator,
        indicator_seat=deal.indicator_seat,
        dao=deal.dao,
        first_dealt=deal.first_dealt,
        leader=leader,
        hands=[sort_hand(h, deal.dao) for h in deal.hands],
        turn=leader,
        trick={"leader": leader, "plays": [], "last": None, "passes": 0, "points": 0},
        captured=[0, 0, 0, 0],
        finish_order=[],
        actions=[],
    )


def _clone(state: State) -> State:
    s = dict(state)
    s["hands"] = [list(h) for h in state["hands"]]
    s["trick"] = dict(state["trick"])
    s["trick"]["plays"] = list(state["trick"]["plays"])
    s["captured"] = list(state["captured"])
    s["finish_order"] = list(state["finish_order"])
    s["actions"] = list(state["actions"])
    s["halves"] = list(state["halves"])
    return s


def apply(state: State, seat: int, action: dict[str, Any]) -> tuple[State, list[Event]]:
    """Apply one seat's action (RULES.md §4–§7) and return ``(new_state, events)``.

    ``state`` is not changed. A play must be the seat's turn, cards from its hand,
    a legal combination (§3) and, unless it leads, beat the trick's last play.

    :raises IllegalAction: (a ``ValueError``) with a ``reason`` code for anything
        the rules forbid; nothing changes.
    """
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
        raise IllegalAction("bad_seat", f"no such seat: {seat!r}")
    if not isinstance(action, dict) or action.get("type") not in ("play", "pass", "escape"):
        raise IllegalAction("bad_action", f"not an action: {action!r}")
    if state["status"] != PLAYING:
        raise IllegalAction("game_over", "the game is over")
    kind = action["type"]
    if kind == "escape":
        return _escape(state, seat)
    if seat != state["turn"]:
        raise IllegalAction("not_your_turn", f"it is seat {state['turn']}'s turn, not {seat}'s")
    if kind == "pass":
        if state["trick"]["last"] is None:
            raise IllegalAction("must_lead", "the leader must play, not pass")
        s = _clone(state)
        return s, _pass(s, seat)
    cards = action.get("cards")
    try:
        cards = parse_cards(cards if isinstance(cards, list) else [cards])
    except ValueError as e:
        raise IllegalAction("bad_card", str(e)) from None
    hand = state["hands"][seat]
    need = Counter(cards)
    have = Counter(hand)
    if any(have[c] < n for c, n in need.items()):
        raise IllegalAction("not_in_hand", f"not all of {' '.join(cards)} are in your hand")
    play = classify(cards, state["dao"])
    if play is None:
        raise IllegalAction("not_a_combination", f"{' '.join(cards)} is not a legal play")
    last = state["trick"]["last"]
    if last is not None:
        table = classify(last[1], state["dao"])
        assert table is not None
        if not beats(play, table):
            raise IllegalAction(
                "does_not_beat", f"{' '.join(cards)} does not beat {' '.join(last[1])}"
            )
    s = _clone(state)
    return s, _play(s, seat, sort_hand(cards, s["dao"]))


def _play(s: State, seat: int, cards: list[str]) -> list[Event]:
    hand = s["hands"][seat]
    for c in cards:
        hand.remove(c)
    s["seq"] += 1
    s["actions"].append([seat, cards])
    t = s["trick"]
    t["plays"].append([seat, cards])
    t["last"] = [seat, cards]
    t["passes"] = 0
    t["points"] += cards_points(cards)
    events: list[Event] = [{"type": "play", "seat": seat, "cards": cards}]
    if not hand:
        s["finish_order"].append(seat)
        events.append({"type": "out", "seat": seat, "place": len(s["finish_order"])})
        end = _half_end_kind(s)
        if end:
            s["captured"][seat] += t["points"]  # the unfinished trick goes to its last play (§4)
            t["points"] = 0
            events += _end_half(s, end)
            return events
    s["turn"] = _next_holding(s, seat)
    return events


def _pass(s: State, seat: int) -> list[Event]:
    s["seq"] += 1
    s["actions"].append([seat, []])
    t = s["trick"]
    t["plays"].append([seat, []])
    t["passes"] += 1
    events: list[Event] = [{"type": "pass", "seat": seat}]
    winner = t["last"][0]
    others = sum(1 for x in range(4) if x != winner and s["hands"][x])
    if t["passes"] < others:
        s["turn"] = _next_holding(s, seat)
        return events
    # every other player still holding cards has passed: the trick ends (§4)
    s["captured"][winner] += t["points"]
    events.append({"type": "trick", "seat": winner, "points": t["points"]})
    leader = winner
    if not s["hands"][winner]:
        leader = _next_holding(s, winner)  # 接风: the 下家 still holding cards
        events.append({"type": "jiefeng", "from": winner, "to": leader})
    s["trick"] = {"leader": leader, "plays": [], "last": None, "passes": 0, "points": 0}
    s["turn"] = leader
    return events


def _next_holding(s: State, seat: int) -> int:
    x = next_seat(seat)
    while not s["hands"][x]:
        x = next_seat(x)
    return x


def _half_end_kind(s: State) -> str | None:
    """'A' if one team is out and the other has nobody out, 'B' if three are out (§4)."""
    out = s["finish_order"]
    if len(out) >= 3:
        return "B"
    if len(out) == 2 and team_of(out[0]) == team_of(out[1]):
        return "A"
    return None


def settle_half(
    end: str, captured: Sequence[int], hands: Sequence[Sequence[str]], finish_order: Sequence[int]
) -> tuple[list[int], list[dict[str, Any]]]:
    """Score a finished half (RULES.md §5).

    :param end: ``"A"`` or ``"B"`` (§4).
    :param captured: points each seat captured in tricks.
    :param hands: the cards still held by each seat.
    :param finish_order: seats in the order they went out.
    :returns: ``(points, transfers)``: the two team scores (summing to 300) and
        each transfer as ``{"seat", "to_team", "points", "what"}`` with ``what``
        ``"captured"`` or ``"hand"``.
    """
    team = [0, 0]
    for seat in range(4):
        team[team_of(seat)] += captured[seat]
    transfers: list[dict[str, Any]] = []
    first_team = team_of(finish_order[0])

    def move(seat: int, to: int, pts: int, what: str) -> None:
        if pts:
            transfers.append({"seat": seat, "to_team": to, "points": pts, "what": what})

    if end == "A":
        for seat in range(4):
            if seat not in finish_order:
                move(seat, first_team, captured[seat], "captured")
                team[team_of(seat)] -= captured[seat]
                team[first_team] += captured[seat] + cards_points(hands[seat])
                move(seat, first_team, cards_points(hands[seat]), "hand")
    else:
        last = next(x for x in range(4) if x not in finish_order)
        lt = team_of(last)
        if lt != first_team:
            move(last, first_team, captured[last], "captured")
            team[lt] -= captured[last]
            team[first_team] += captured[last]
        in_hand = cards_points(hands[last])
        move(last, 1 - lt, in_hand, "hand")
        team[1 - lt] += in_hand
    return team, transfers


def _end_half(s: State, end: str) -> list[Event]:
    points, transfers = settle_half(end, s["captured"], s["hands"], s["finish_order"])
    summary = {
        "half": s["half"],
        "indicator": s["indicator"],
        "dao": s["dao"],
        "first_dealt": s["first_dealt"],
        "leader": s["leader"],
        "actions": s["actions"],
        "finish_order": list(s["finish_order"]),
        "end": end,
        "captured": list(s["captured"]),
        "left": [list(h) for h in s["hands"]],
        "transfers": transfers,
        "points": points,
    }
    s["halves"].append(summary)
    events: list[Event] = [{"type": "half_end", **{k: summary[k] for k in (
        "half", "finish_order", "end", "captured", "transfers", "points")}}]
    first_team = team_of(s["finish_order"][0])
    if s["half"] == 1:
        if end == "A" or min(points) < 60:  # 双夹 (§6)
            winner = first_team if end == "A" else (0 if points[0] >= 60 else 1)
            events += _finish(s, winner, double_clamp=True)
            return events
        _start_half(s, 2, s["finish_order"][0])
        events.append({"type": "deal", "half": 2, "indicator": s["indicator"], "dao": s["dao"],
                       "leader": s["leader"]})
        return events
    totals = game_totals(s)
    t1 = team_of(s["halves"][0]["finish_order"][0])
    winner = t1 if totals[t1] >= 300 else 1 - t1
    events += _finish(s, winner, double_clamp=False)
    return events


def game_totals(state: State) -> list[int]:
    """Each team's points summed over the finished halves (§6)."""
    return [sum(h["points"][t] for h in state["halves"]) for t in (0, 1)]


def _finish(s: State, winner: int, double_clamp: bool) -> list[Event]:
    stake = s["stake"] * (2 if double_clamp else 1)
    changes = [0, 0, 0, 0]
    if not s["practice"]:
        changes = [stake if team_of(x) == winner else -stake for x in range(4)]
    return _end_game(s, winner, double_clamp, None, stake, changes)


def _end_game(
    s: State, winner: int | None, double_clamp: bool, abandoned_by: int | None, stake: int,
    changes: list[int],
) -> list[Event]:
    s["status"] = OVER
    s["turn"] = None
    s["result"] = {
        "winner": winner,
        "double_clamp": double_clamp,
        "abandoned_by": abandoned_by,
        "totals": game_totals(s),
        "stake": stake,
        "rating_changes": changes,
    }
    return [{"type": "game_end", **s["result"]}]


def _escape(state: State, seat: int) -> tuple[State, list[Event]]:
    """Leave the running game (RULES.md §7): it is abandoned; only the escaper pays."""
    s = _clone(state)
    s["seq"] += 1
    penalty = 0 if s["practice"] else escape_penalty(s["stake"], s["half"])
    changes = [0, 0, 0, 0]
    changes[seat] = -penalty
    events = _end_game(s, None, False, seat, s["stake"], changes)
    return s, [{"type": "escape", "seat": seat, "penalty": penalty}, *events]


def to_act(state: State) -> int | None:
    """The seat whose turn it is, or ``None`` when the game is over."""
    return state["turn"] if state["status"] == PLAYING else None


def table_play(state: State):
    """The play to beat in the current trick (a ``Play``), or ``None`` on a lead."""
    last = state["trick"]["last"]
    return None if last is None else classify(last[1], state["dao"])


def timeout_action(state: State, rng: random.Random) -> dict[str, Any]:
    """What the server does for a seat whose turn ran out (RULES.md §8).

    A leader has one card of their hand, chosen uniformly at random, played as a
    single; a follower passes.
    """
    if state["trick"]["last"] is not None:
        return {"type": "pass"}
    hand = state["hands"][state["turn"]]
    return {"type": "play", "cards": [rng.choice(hand)]}
