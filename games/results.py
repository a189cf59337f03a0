"""A finished game arranged for the result page (``templates/games/result.html``),
in the visitor's language: names, halves, point transfers, rating and coin
changes, the hands left (RULES.md §6–§7), and the card faces the page draws,
a hand in the table's order (:func:`hand_as_shown`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from accounts import levels
from games import engine, ui
from games.engine.cards import is_joker

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}


def card_face(card: str, dao: str | None = None) -> dict[str, Any]:
    """How a card is drawn (the same face as ``cardEl`` in static/js/cards.js):
    rank and suit symbol, red for ♥♦, 大王 / 小王 for the jokers."""
    if card in ("RJ", "BJ"):
        big = card == "RJ"
        return {
            "code": card, "joker": True, "color": "red" if big else "black",
            "rank": pgettext("card corner, big joker", "BIG") if big
            else pgettext("card corner, small joker", "SMALL"),
            "suit": "", "label": _("Big joker") if big else _("Small joker"), "dao": False,
        }
    rank = "10" if card[0] == "T" else card[0]
    suit = SUIT_SYMBOLS[card[1]]
    return {"code": card, "joker": False, "color": "red" if card[1] in "HD" else "black",
            "rank": rank, "suit": suit, "label": rank + suit, "dao": card[0] == dao}


def hand_as_shown(cards: Iterable[str], dao: str) -> list[str]:
    """``cards`` (a hand, card codes) in the order the table shows a hand
    (``handOrder`` in static/js/cards.js): strongest first under ``dao``, the
    jokers apart at the right end, big before small. A lone joker plays as the
    lowest 3 and with other cards takes their rank (RULES.md §3), so it sits
    at the weak end. ``["3C", "RJ", "AS", "BJ", "5D"]``, dao ``"5"`` →
    ``["5D", "AS", "3C", "RJ", "BJ"]``."""
    shown = list(reversed(engine.sort_hand(cards, dao)))
    return [c for c in shown if not is_joker(c)] + [c for c in shown if is_joker(c)]


def _name(players: list[dict[str, Any]], seat: int) -> str:
    p = players[seat]
    return _("Bot (%(seat)s)") % {"seat": ui.seat_names()[seat]} if p["bot"] else p["username"]


def result_summary(view: Mapping[str, Any]) -> dict[str, Any]:
    """A finished game's view (``seatview.view_for``, a ``SiteView``) arranged for
    the result page; read as a plain mapping, since it also reads the shop's
    plugin keys (``wager``, ``coin_changes``), which ``SiteView`` leaves out."""
    players = view["players"]
    res = view["result"] or {}
    names = [_name(players, i) for i in range(4)]
    teams = [f"{names[0]} · {names[2]}", f"{names[1]} · {names[3]}"]
    halves = []
    for h in view["halves"]:
        halves.append({
            "half": h["half"],
            "dao": "10" if h["dao"] == "T" else h["dao"],
            "indicator": h["indicator"],
            "end": h["end"],
            "finish": [{"place": ui.places()[k], "n": k + 1, "name": names[s]}
                       for k, s in enumerate(h["finish_order"])],
            "transfers": [
                (_("%(points)s points left in %(name)s's hand go to %(team)s")
                 if t["what"] == "hand" else
                 _("%(name)s hands %(points)s captured points to %(team)s"))
                % {"name": names[t["seat"]], "points": t["points"], "team": teams[t["to_team"]]}
                for t in h["transfers"]
            ],
            "points": h["points"],
        })
    changes = []
    coins = view.get("coin_changes")  # a wager game's, once over (shop.wagers)
    for i, p in enumerate(players):
        if p["bot"]:
            continue
        delta = (res.get("rating_changes") or [0] * 4)[i]
        changes.append({"name": names[i], "delta": delta,
                        "coins": coins[i] if coins else None,
                        "title": levels.title_for(p["level"]) if ui.lang() == "zh"
                        else levels.title_en_for(p["level"])})
    reason = res.get("reason") or "normal"
    abandoned_by = res.get("abandoned_by") if reason == "escape" else None
    return {
        "reason": reason,
        "names": names,
        "teams": [{"name": teams[t], "team": t,
                   "halves": [h["points"][t] for h in view["halves"]],
                   "total": (res.get("totals") or [0, 0])[t],
                   "winner": res.get("winner") == t} for t in (0, 1)],
        "halves": halves,
        "winner": res.get("winner"),
        "winner_name": teams[res["winner"]] if res.get("winner") is not None else None,
        "double_clamp": res.get("double_clamp", False),
        "abandoned_by": names[abandoned_by] if abandoned_by is not None else None,
        "penalty": -(res.get("rating_changes") or [0] * 4)[abandoned_by]
        if abandoned_by is not None else 0,
        "stake": res.get("stake"),
        "wager": view.get("wager"),
        "practice": view["practice"],
        "changes": changes,
        "hands": [{"name": names[i],
                   "cards": [card_face(c, view["dao"]) for c in hand_as_shown(h, view["dao"])]}
                  for i, h in enumerate(view.get("hands") or []) if h],
    }
