"""The replay page's data (RULES.md §11–§12 录像机): read only, and only of a
finished game's stored record (a running game has none)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games import engine
from games.models import Game, GameSeat


def frames(game: Game) -> list[dict[str, Any]]:
    """One entry per action of the finished ``game``'s §11 record, in order:
    ``{"half", "seat", "cards", "trick"}`` (``cards`` ``[]``: a pass;
    ``trick``: the trick's number in the game, from 1). The page rebuilds the
    four hands from the record's dealt hands and these. Tricks come from
    replaying the record through the engine: an action leads when the trick
    before it has no plays.

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
    for before, (half, seat, cards) in zip(states, actions, strict=False):
        if not before["trick"]["plays"]:
            trick += 1
        out.append({"half": half, "seat": seat, "cards": list(cards), "trick": trick})
    return out


def names(game: Game) -> list[str]:
    """The four seats' player names; a bot's is 机器人 and its level, translated
    (the table page's words: 新手, 普通, 高手; another policy by its code)."""
    levels = {"beginner": _("Beginner"), "normal": _("Normal"), "heuristic": _("Normal"),
              "expert": _("Expert")}
    rows = GameSeat.objects.filter(game=game).order_by("index")
    return [r.username or _("Bot (%(level)s)") % {"level": levels.get(r.bot, r.bot)}
            for r in rows]
