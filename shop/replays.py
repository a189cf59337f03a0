"""The replay page's data (RULES.md §11–§12 录像机): read only, and only of a
finished game's stored record (a running game has none): every action with
the scores after it, each half as dealt, the seat drawn at the bottom, the
page's words."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from games import engine, ui
from games.models import Game, GameSeat
from shop.models import Replay


def frames(game: Game) -> list[dict[str, Any]]:
    """One entry per action of the finished ``game``'s §11 record, in order:
    ``{"half", "seat", "cards", "trick", "captured", "table_points", "out",
    "half_points"}``. ``cards`` ``[]`` is a pass; ``trick`` the trick's number
    in the game, from 1 (an action leads when the trick before it has no
    plays). After the action: ``captured`` the points each seat has taken
    this half, ``table_points`` the points in the trick on the table, ``out``
    the seats gone out this half in order, and ``half_points`` the half's two
    team scores after §5 when this action ended the half, else ``None``. All
    of it comes from replaying the record through the engine (the page
    computes no rule); the page rebuilds the hands from :func:`deals`.

    :raises ValueError: if the game has no record (it is running), or the
        record does not replay (``engine.from_record``).
    """
    record = game.record
    if record is None:
        raise ValueError("a running game has no record")
    states = engine.from_record(record)
    out: list[dict[str, Any]] = []
    trick = 0
    actions = [(h["half"], seat, cards) for h in record["halves"] for seat, cards in h["actions"]]
    for before, after, (half, seat, cards) in zip(states, states[1:], actions, strict=False):
        if not before["trick"]["plays"]:
            trick += 1
        frame: dict[str, Any] = {"half": half, "seat": seat, "cards": list(cards),
                                 "trick": trick, "half_points": None}
        ended = [h for h in after["halves"] if h["half"] == half]
        if ended:  # this action ended its half: the half's own summary
            frame.update(captured=list(ended[0]["captured"]), table_points=0,
                         out=list(ended[0]["finish_order"]),
                         half_points=list(ended[0]["points"]))
        else:
            frame.update(captured=list(after["captured"]),
                         table_points=engine.view(after, None)["trick"]["points"],
                         out=list(after["finish_order"]))
        out.append(frame)
    return out


def deals(game: Game) -> list[dict[str, Any]]:
    """Each half of the finished ``game``'s record as dealt: ``{"half", "dao",
    "indicator", "hands"}``, each hand sorted weakest first under that half's
    dao (``engine.sort_hand``), indexed by seat."""
    record = engine.upgrade_record(game.record)
    return [{"half": h["half"], "dao": h["dao"], "indicator": h["indicator"],
             "hands": [engine.sort_hand(hand, h["dao"]) for hand in h["hands"]]}
            for h in record["halves"]]


def bottom_seat(game: Game, user: User) -> int:
    """The seat the replay page draws at the bottom: the saver's seat in the
    game, else South (2), as the table page draws its own player."""
    index = (GameSeat.objects.filter(game=game, user=user)
             .values_list("index", flat=True).first())
    return 2 if index is None else index


def names(game: Game) -> list[str]:
    """The four seats' player names; a bot's is 机器人 and its level, translated
    (the table page's words: 新手, 普通, 高手; another policy by its code)."""
    rows = GameSeat.objects.filter(game=game).order_by("index")
    return [r.username or ui.bot_name(r.bot) for r in rows]


def strings() -> dict[str, Any]:
    """The replay page's words (``static/shop/replay.js`` reads them as ``T``,
    with the card modules of the table page): the table page's own for cards,
    seats, teams and places, and the replay's."""
    table = ui.table_strings()
    words = {k: table[k] for k in (
        "lang", "seat_names", "places", "big_joker", "small_joker", "big_joker_short",
        "small_joker_short", "jokers", "pass_mark", "dao_is", "first_half", "second_half",
        "team_ns", "team_ew", "trick_points", "cards_left")}
    words.update({
        "deal": _("%(half)s: the deal"),
        "trick_n": _("Trick %(n)s"),
        "half_score": _("%(half)s: %(ns)s %(ns_points)s, %(ew)s %(ew_points)s"),
        "pause": pgettext("replay", "Pause"),
        "play": pgettext("replay", "Play"),
    })
    return words


def saved_tokens(user_id: int, game_ids: list[int]) -> dict[int, str]:
    """``{game_id: replay token}`` for those of ``game_ids`` that ``user_id``
    saved with a 录像机 (one query): what shows 已保存 and the link instead of
    the recorder button."""
    return dict(Replay.objects.filter(user_id=user_id, game_id__in=game_ids)
                .values_list("game_id", "token"))
