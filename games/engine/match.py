"""The match as a reducer: ``new_game``, ``apply`` and ``abandon`` (RULES.md §4–§7, §12).

A game's state is plain JSON-able data (a :class:`~games.engine.shapes.State`),
never mutated in place: ``apply(state, seat, action)`` returns
``(new_state, events)``. Actions (:data:`~games.engine.shapes.Action`)::

    {"type": "play", "cards": ["7S", "7H"]}
    {"type": "pass"}
    {"type": "escape"}          # leave the running game (§7), any seat, any time

``abandon(state, reason, seat)`` ends a running game for the site (an escape, a
moderator, a suspension). Events (:data:`~games.engine.shapes.Event`) are small
dicts (``{"type": "play", "seat": 2, "cards": [...]}``, ``"pass"``, ``"trick"``,
``"out"``, ``"jiefeng"``, ``"half_end"``, ``"deal"``, ``"game_end"``,
``"escape"``, ``"abandon"``) for the UI and the site's log. The actions alone
rebuild every state (see :mod:`games.engine.record`). Every function here takes
a stored state of any known version (:func:`~games.engine.upgrade`).

>>> s = new_game("doc", levels=[0, 0, 0, 0])
>>> s["turn"] == s["leader"], s["status"]
(True, 'playing')
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Final, Literal

from .cards import cards_points, parse_cards, sort_hand
from .combos import Play, beats, classify
from .deal import deal_half, next_seat, team_of
from .errors import ArgumentError, CardError, IllegalAction
from .levels import escape_penalty, game_stake
from .shapes import (
    END_REASONS,
    Action,
    BotPolicy,
    EndReason,
    Event,
    HalfEnd,
    HalfSummary,
    Result,
    Seat,
    State,
    Team,
    Transfer,
    Trick,
    seat_cards,
)
from .upgrade import STATE_VERSION, bot_policy, upgrade

PLAYING: Final = "playing"
OVER: Final = "over"


def new_game(
    seed: str | int,
    levels: Sequence[int] = (0, 0, 0, 0),
    bots: Sequence[BotPolicy | bool | None] = (None, None, None, None),
) -> State:
    """A new game dealt from ``seed`` (RULES.md §2, §7), at :data:`STATE_VERSION`.

    :param seed: reproduces every shuffle of the game; secret while it runs.
    :param levels: the four players' levels (0–16) when it starts, for the stake.
    :param bots: per seat, the bot policy filling it (``"beginner"``, ``"normal"``,
        ``"expert"``) or ``None`` for a human; booleans are accepted too (``True``
        means ``"normal"``), as the site passed them before version 2. Any bot
        makes a practice game (§7).
    :returns: the state of the first half, the indicator holder to lead.
    :raises ArgumentError: (a ``ValueError``) ``bad_seats`` unless there are four
        levels and four bot entries, ``bad_level`` for a level outside 0–16,
        ``bad_bot`` for an unknown bot policy.
    """
    if len(levels) != 4 or len(bots) != 4:
        raise ArgumentError("bad_seats", "levels and bots need one entry per seat")
    stake = game_stake(levels)
    policies = [bot_policy(b) for b in bots]
    state: State = {
        "version": STATE_VERSION,
        "seed": str(seed),
        "levels": list(levels),
        "bots": policies,
        "practice": any(p is not None for p in policies),
        "stake": stake,
        "status": PLAYING,
        "seq": 0,
        "halves": [],
        "result": None,
        # the current half's fields, set by _start_half
        "half": 1,
        "indicator": "",
        "indicator_seat": 0,
        "dao": "",
        "first_dealt": 0,
        "leader": 0,
        "hands": [],
        "turn": None,
        "trick": _new_trick(0),
        "captured": [],
        "finish_order": [],
        "actions": [],
    }
    _start_half(state, 1, None)
    return state


def _new_trick(leader: Seat) -> Trick:
    return {"leader": leader, "plays": [], "last": None, "passes": 0, "points": 0}


def _start_half(state: State, half: int, first_out: Seat | None) -> None:
    deal = deal_half(state["seed"], half, first_out)
    leader = deal.indicator_seat if first_out is None else first_out
    state["half"] = half
    state["indicator"] = deal.indicator
    state["indicator_seat"] = deal.indicator_seat
    state["dao"] = deal.dao
    state["first_dealt"] = deal.first_dealt
    state["leader"] = leader
    state["hands"] = [sort_hand(h, deal.dao) for h in deal.hands]
    state["turn"] = leader
    state["trick"] = _new_trick(leader)
    state["captured"] = [0, 0, 0, 0]
    state["finish_order"] = []
    state["actions"] = []


def _clone(state: State) -> State:
    """A copy whose every list and dict the reducer changes is its own."""
    s = state.copy()
    s["hands"] = [list(h) for h in state["hands"]]
    s["trick"] = state["trick"].copy()
    s["trick"]["plays"] = list(state["trick"]["plays"])
    s["captured"] = list(state["captured"])
    s["finish_order"] = list(state["finish_order"])
    s["actions"] = list(state["actions"])
    s["halves"] = list(state["halves"])
    return s


def _check_seat(seat: object) -> Seat:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
        raise IllegalAction("bad_seat", f"no such seat: {seat!r}")
    return seat


def apply(state: State, seat: Seat, action: Action) -> tuple[State, list[Event]]:
    """Apply one seat's action (RULES.md §4–§7) and return ``(new_state, events)``.

    ``state`` is not changed (a stored older version is upgraded first, see
    :func:`~games.engine.upgrade`; the new state is at the current version). A
    play must be the seat's turn, cards from its hand, a legal combination (§3)
    and, unless it leads, beat the trick's last play. ``{"type": "escape"}`` is
    :func:`abandon` with reason ``escape``: any seat, any time.

    :param action: ``{"type": "play", "cards": [...]}``, ``{"type": "pass"}`` or
        ``{"type": "escape"}``; anything else (it may come from a client) is refused.
    :raises IllegalAction: (a ``ValueError``) with a ``reason`` code for anything
        the rules forbid; nothing changes.
    :raises RecordError: for a stored state the engine cannot read.
    """
    state = upgrade(state)
    seat = _check_seat(seat)
    kind = action.get("type") if isinstance(action, dict) else None
    if kind not in ("play", "pass", "escape"):
        raise IllegalAction("bad_action", f"not an action: {action!r}")
    if state["status"] != PLAYING:
        raise IllegalAction("game_over", "the game is over")
    if kind == "escape":
        return _escape(state, seat)
    if seat != state["turn"]:
        raise IllegalAction("not_your_turn", f"it is seat {state['turn']}'s turn, not {seat}'s")
    if kind == "pass":
        if state["trick"]["last"] is None:
            raise IllegalAction("must_lead", "the leader must play, not pass")
        s = _clone(state)
        return s, _pass(s, seat)
    given = action.get("cards")
    try:
        cards = parse_cards(given if isinstance(given, list) else [given])
    except ValueError as e:
        # a fourth copy is a real card no hand can hold: "not in your hand", not "not a card"
        copies = isinstance(e, CardError) and e.reason == "too_many_copies"
        raise IllegalAction("not_in_hand" if copies else "bad_card", str(e)) from None
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


def _play(s: State, seat: Seat, cards: list[str]) -> list[Event]:
    hand = s["hands"][seat]
    for c in cards:
        hand.remove(c)
    s["seq"] += 1
    s["actions"].append(seat_cards(seat, cards))
    t = s["trick"]
    t["plays"].append(seat_cards(seat, cards))
    t["last"] = seat_cards(seat, cards)
    t["passes"] = 0
    t["points"] += cards_points(cards)
    events: list[Event] = [{"type": "play", "seat": seat, "cards": list(cards)}]
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


def _pass(s: State, seat: Seat) -> list[Event]:
    s["seq"] += 1
    s["actions"].append(seat_cards(seat, []))
    t = s["trick"]
    t["plays"].append(seat_cards(seat, []))
    t["passes"] += 1
    events: list[Event] = [{"type": "pass", "seat": seat}]
    last = t["last"]
    assert last is not None  # apply refuses a pass on a lead
    winner = last[0]
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
    s["trick"] = _new_trick(leader)
    s["turn"] = leader
    return events


def _next_holding(s: State, seat: Seat) -> Seat:
    x = next_seat(seat)
    while not s["hands"][x]:
        x = next_seat(x)
    return x


def _half_end_kind(s: State) -> HalfEnd | None:
    """'A' if one team is out and the other has nobody out, 'B' if three are out (§4)."""
    out = s["finish_order"]
    if len(out) >= 3:
        return "B"
    if len(out) == 2 and team_of(out[0]) == team_of(out[1]):
        return "A"
    return None


def settle_half(
    end: HalfEnd,
    captured: Sequence[int],
    hands: Sequence[Sequence[str]],
    finish_order: Sequence[Seat],
) -> tuple[list[int], list[Transfer]]:
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
    transfers: list[Transfer] = []
    first_team = team_of(finish_order[0])

    def move(seat: Seat, to: Team, pts: int, what: Literal["captured", "hand"]) -> None:
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


def _end_half(s: State, end: HalfEnd) -> list[Event]:
    points, transfers = settle_half(end, s["captured"], s["hands"], s["finish_order"])
    summary: HalfSummary = {
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
    events: list[Event] = [{
        "type": "half_end", "half": summary["half"], "finish_order": list(summary["finish_order"]),
        "end": end, "captured": list(summary["captured"]),
        "transfers": [t.copy() for t in transfers], "points": list(points),
    }]
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
    """Each team's points summed over the finished halves (§6): ``[N–S, E–W]``."""
    return [sum(h["points"][t] for h in state["halves"]) for t in (0, 1)]


def _finish(s: State, winner: Team, double_clamp: bool) -> list[Event]:
    stake = s["stake"] * (2 if double_clamp else 1)
    changes = [0, 0, 0, 0]
    if not s["practice"]:
        changes = [stake if team_of(x) == winner else -stake for x in range(4)]
    return _end_game(s, winner, double_clamp, None, "normal", stake, changes)


def _end_game(
    s: State, winner: Team | None, double_clamp: bool, abandoned_by: Seat | None,
    reason: EndReason, stake: int, changes: list[int],
) -> list[Event]:
    s["status"] = OVER
    s["turn"] = None
    result: Result = {
        "winner": winner,
        "double_clamp": double_clamp,
        "abandoned_by": abandoned_by,
        "reason": reason,
        "totals": game_totals(s),
        "stake": stake,
        "rating_changes": changes,
    }
    s["result"] = result
    return [{"type": "game_end", "winner": winner, "double_clamp": double_clamp,
             "abandoned_by": abandoned_by, "reason": reason, "totals": list(result["totals"]),
             "stake": stake, "rating_changes": list(changes)}]


def _escape(state: State, seat: Seat) -> tuple[State, list[Event]]:
    """Leave the running game (RULES.md §7): it is abandoned; only the escaper pays."""
    s = _clone(state)
    s["seq"] += 1
    penalty = 0 if s["practice"] else escape_penalty(s["stake"], s["half"])
    changes = [0, 0, 0, 0]
    changes[seat] = -penalty
    events = _end_game(s, None, False, seat, "escape", s["stake"], changes)
    return s, [{"type": "escape", "seat": seat, "penalty": penalty}, *events]


_SEATED_REASONS = ("escape", "moderator_kick", "suspension")


def abandon(
    state: State, reason: EndReason, seat: Seat | None = None
) -> tuple[State, list[Event]]:
    """End a running game early, for ``reason`` (RULES.md §7, §12; docs/record.md).

    - ``escape``: ``seat`` left the game, as the action ``{"type": "escape"}``
      (§7): the escaper loses max(2 × stake, 20 in the first half / 10 after),
      nothing in a practice game; the other three keep their points.
    - ``moderator_kick`` (``seat``: the kicked player), ``suspension`` (``seat``:
      the suspended player), ``moderator_close`` (no seat: the table was
      closed): no rating change for anyone (§12).

    In every case ``winner`` is ``None``, ``result.abandoned_by`` is ``seat``, and
    the unfinished half stays in the state (and in its record). ``normal`` is
    not accepted: a game ends normally only by its last play. ``state`` is not
    changed.

    :returns: ``(new_state, events)``: ``escape`` then ``game_end`` for an escape,
        ``abandon`` (``reason``, ``seat``) then ``game_end`` otherwise.
    :raises IllegalAction: (a ``ValueError``) ``bad_reason`` for another reason,
        ``bad_seat`` for a seat outside 0–3 where one is needed or any seat with
        ``moderator_close``, ``game_over`` if the game has already ended.
    :raises RecordError: for a stored state the engine cannot read.
    """
    state = upgrade(state)
    if reason not in END_REASONS or reason == "normal":
        raise IllegalAction(
            "bad_reason", f"not a reason to abandon a game: {reason!r} "
            f"(one of {', '.join(r for r in END_REASONS if r != 'normal')})"
        )
    if reason in _SEATED_REASONS:
        seat = _check_seat(seat)
    elif seat is not None:
        raise IllegalAction("bad_seat", f"{reason} names no seat, got {seat!r}")
    if state["status"] != PLAYING:
        raise IllegalAction("game_over", "the game is over")
    if reason == "escape":
        assert seat is not None
        return _escape(state, seat)
    s = _clone(state)
    s["seq"] += 1
    events = _end_game(s, None, False, seat, reason, s["stake"], [0, 0, 0, 0])
    return s, [{"type": "abandon", "reason": reason, "seat": seat}, *events]


def to_act(state: State) -> Seat | None:
    """The seat whose turn it is, or ``None`` when the game is over."""
    state = upgrade(state)
    return state["turn"] if state["status"] == PLAYING else None


def table_play(state: State) -> Play | None:
    """The play to beat in the current trick, or ``None`` on a lead (RULES.md §4)."""
    state = upgrade(state)
    last = state["trick"]["last"]
    return None if last is None else classify(last[1], state["dao"])


def timeout_action(state: State, rng: random.Random) -> Action:
    """What the server does for a seat whose turn ran out (RULES.md §8).

    A leader has one card of their hand, chosen uniformly at random, played as a
    single; a follower passes.

    :raises IllegalAction: ``game_over`` when nobody is to act.
    """
    state = upgrade(state)
    turn = state["turn"]
    if state["status"] != PLAYING or turn is None:
        raise IllegalAction("game_over", "the game is over")
    if state["trick"]["last"] is not None:
        return {"type": "pass"}
    return {"type": "play", "cards": [rng.choice(state["hands"][turn])]}
