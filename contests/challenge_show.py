"""What a daily challenge board shows its player (RULES.md §12 "Daily
challenge": hidden until the day closes). Read side: never writes; the one
filter on what of a board leaves the server.

- **Running**: the engine's view of seat 2 (own hand, the others' counts, the
  trick, whose turn; ``games.engine.view``), the turn's time left in
  milliseconds and whether the board is paused.
- **Finished, day open**: the player's own hand as dealt, the indicator, the
  dao and every action of the half (all face-up plays), the half's end and
  points, the raw score, its provisional matchpoints and the ranked field's
  raw scores on the board. No other hand, no seed: not even the cards left in
  the others' hands at the end.
- **Day closed**: also all four hands as dealt, the board seed, the day's
  server seed and the board's record (RULES.md §11 shape, first half only,
  marked ``"challenge": {"date", "board"}``), free to replay for anyone, with
  the field's best on the same deal beside it (:func:`best_on`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _

from contests import challenge
from contests.challenge_scores import matchpoints
from contests.models import ChallengeBoard
from games import engine, seatview
from games.engine.cards import sort_hand
from games.engine.shapes import State


def _field(board: ChallengeBoard) -> list[int]:
    """The other ranked players' raw scores on this board (one query)."""
    rows = (ChallengeBoard.objects.filter(day_id=board.day_id, number=board.number,
                                          status=ChallengeBoard.DONE, entry__ranked=True,
                                          raw__isnull=False)
            .exclude(user_id=board.user_id).values_list("raw", flat=True))
    return sorted((r for r in rows if r is not None), reverse=True)


def record(board: ChallengeBoard) -> dict[str, Any]:
    """The board's record once its day has closed: the §11 shape with the
    first half only (hands as dealt), ``result`` the half's (double clamp or
    not) and ``challenge`` naming the day and board.

    :raises ValueError: before the day closes or before the half is over.
    """
    state: State = board.state
    if not board.day.closed or not state["halves"]:
        raise ValueError("a board's record is served only once its day has closed")
    h = state["halves"][0]
    deal = engine.deal_half(state["seed"], 1)
    r = state["result"]
    clamp = r is not None and r["double_clamp"] and len(state["halves"]) == 1
    return {
        "version": engine.RECORD_VERSION,
        "seed": state["seed"],
        "levels": list(state["levels"]),
        "bots": list(state["bots"]),
        "halves": [{"half": 1, "indicator": h["indicator"], "dao": h["dao"],
                    "first_dealt": h["first_dealt"], "hands": [list(x) for x in deal.hands],
                    "leader": h["leader"], "actions": [[s, list(c)] for s, c in h["actions"]],
                    "finish_order": list(h["finish_order"]), "end": h["end"],
                    "points": list(h["points"])}],
        "result": {"winner": (r["winner"] if clamp and r is not None
                              else (0 if h["points"][0] >= h["points"][1] else 1)),
                   "double_clamp": clamp, "abandoned_by": None, "reason": "normal"},
        "challenge": {"date": board.day.date.isoformat(), "board": board.number},
    }


def raw_why(points: int, raw: int) -> str | None:
    """How a raw score is made when a double clamp is in it (RULES.md §12
    "Daily challenge"): "35 card points − 100 for the double clamp suffered";
    ``None`` when the raw score is North–South's card points alone.

    :param points: North–South's card points of the half (§5).
    :param raw: the board's raw score (:func:`contests.challenge_scores.raw_score`).
    """
    if raw > points:
        return _("%(points)s card points + 100 for the double clamp inflicted") % {
            "points": points}
    if raw < points:
        return _("%(points)s card points − 100 for the double clamp suffered") % {
            "points": points}
    return None


def board_frame(board: ChallengeBoard) -> dict[str, Any]:
    """What the board's player may see now (module docstring), as JSON.

    Always: ``id``, ``date``, ``number``, ``status`` (``playing`` / ``paused``
    / ``done``), ``closed``. Running: ``view`` and ``time_left_ms``, and on
    the player's turn ``hints`` (their legal plays, as a table view's: 提示). Finished:
    ``hand``, ``indicator``, ``indicator_seat``, ``dao``, ``leader``,
    ``actions``, ``finish_order``, ``end``, ``points``, ``raw``, ``raw_why``, ``by_bot``,
    ``matchpoints`` (provisional %, or final once closed), ``field``. Closed:
    ``hands``, ``seed``, ``server_seed``, ``record``, ``player``, ``best``.
    """
    day = board.day
    out: dict[str, Any] = {"id": board.pk, "date": day.date.isoformat(),
                           "number": board.number, "status": board.status,
                           "closed": day.closed}
    state: State = board.state
    if board.status != ChallengeBoard.DONE:
        if not day.closed:
            view = engine.view(state, challenge.PLAYER_SEAT)
            out["view"] = view
            if board.status == ChallengeBoard.PLAYING and view["turn"] == challenge.PLAYER_SEAT:
                # the player's legal plays for 提示, from their own hand only (as a table's view)
                table = engine.table_play(state)
                out["hints"] = [seatview.hint(p) for p in engine.legal_plays(
                    state["hands"][challenge.PLAYER_SEAT], table, state["dao"])]
            out["time_left_ms"] = max(0, settings.CHALLENGE_TURN_SECONDS * 1000 - board.clock_ms)
        return out
    h = state["halves"][0]
    deal = engine.deal_half(state["seed"], 1)
    field = _field(board)
    out.update({
        "hand": sort_hand(deal.hands[challenge.PLAYER_SEAT], h["dao"]),
        "indicator": h["indicator"], "indicator_seat": deal.indicator_seat, "dao": h["dao"],
        "leader": h["leader"], "actions": [[s, list(c)] for s, c in h["actions"]],
        "finish_order": list(h["finish_order"]), "end": h["end"],
        "points": list(h["points"]), "raw": board.raw, "by_bot": board.by_bot,
        "raw_why": raw_why(h["points"][0], board.raw or 0),
        "field": field,
        "matchpoints": (board.matchpoints if day.closed and board.matchpoints is not None
                        else matchpoints(board.raw or 0, field)),
    })
    if day.closed:
        out["hands"] = [sort_hand(x, h["dao"]) for x in deal.hands]
        out["seed"] = state["seed"]
        out["server_seed"] = day.server_seed
        out["record"] = record(board)
        out["player"] = board.user.username
        out["best"] = best_on(board)
    return out


def best_on(board: ChallengeBoard) -> dict[str, Any] | None:
    """The field's best on the same deal once the day has closed (one query):
    ``{"player", "raw", "path"}`` of the highest raw score (ranked players
    first, then the earlier finish), or ``None`` if nobody else played it."""
    best = (ChallengeBoard.objects.filter(day_id=board.day_id, number=board.number,
                                          status=ChallengeBoard.DONE, raw__isnull=False)
            .exclude(pk=board.pk).order_by("-raw", "-entry__ranked", "finished_at")
            .values_list("raw", "user__username").first())
    if best is None:
        return None
    iso = board.day.date.isoformat()
    return {"raw": best[0], "player": best[1],
            "path": f"/challenge/{iso}/{board.number}/?user={best[1]}"}
