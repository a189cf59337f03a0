"""The per-seat game view, the read side (never writes): the one filter on every
path out of the server (DESIGN.md "server-authoritative").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, NotRequired, TypedDict, cast

from django.db.models import Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from games import clock, engine, plugins
from games.engine import tricks
from games.engine.shapes import Card, Kind, PreviousTrick
from games.fairness import PublicFairness, SiteState
from games.models import Game, Player, Table
from games.roster import players_of, seat_rows
from yuanzi_site.refusals import Refused

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


class PlayKind(TypedDict):
    """How a play is named: :func:`play_kind`."""

    kind: Kind
    rank: str
    jokers: int


class Hint(PlayKind):
    """One legal play for the seat to act: :func:`hint`."""

    cards: list[Card]
    exact: bool


class SitePreviousTrick(PreviousTrick):
    """The previous trick as a view shows it: the engine's
    :class:`~games.engine.shapes.PreviousTrick` plus ``kinds``, per play its
    :class:`PlayKind` (``None`` for a pass)."""

    kinds: list[PlayKind | None]


class SiteView(engine.View):
    """One seat's view as the site sends it (:func:`view_for`): the engine's
    :class:`~games.engine.View` plus the keys the site adds (described there).

    ``escape_penalty`` is present only for a seat in the running game, ``hints``
    and ``can_pass`` only for the seat to act; ``fairness`` is the games app's
    own plugin key (``games.plugin``), absent for a game dealt before provably
    fair deals.

    Other apps' plugins add more keys (``GamePlugin.view_keys`` returns
    ``dict[str, Any]``): they are merged into the same dict at run time and left
    out of this type on purpose, since ``games`` does not know other apps' keys
    (a ``TypedDict`` describes the keys it names and allows others at run time).
    Code that reads such a key treats the view as a plain dict.
    """

    game_id: int
    players: list[Player]
    time_left_ms: int | None
    clock_paused: bool
    trick_kinds: list[PlayKind | None]
    previous_trick: SitePreviousTrick | None
    escape_penalty: NotRequired[int]
    hints: NotRequired[list[Hint]]
    can_pass: NotRequired[bool]
    fairness: NotRequired[PublicFairness]


def seat_of(game: Game, user: User | AnonymousUser | None) -> int | None:
    """The seat ``user`` plays in ``game``, or ``None`` (spectator)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    for row in seat_rows(game):
        if row.user_id == user.pk:
            return row.index
    return None


def players_game(game_id: int, user: User | AnonymousUser | None,
                 not_seated: str) -> tuple[Game, int]:
    """The game ``game_id`` and the seat ``user`` plays in it, for a request
    only the game's own players may make (the table's ``why``, 复盘).

    :param not_seated: the refusal's message (already translated) for anyone
        else.
    :raises Refused: ``no_game`` for an unknown game, ``not_seated`` for a
        spectator or a visitor.
    """
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise Refused("no_game", _("There is no such game."))
    seat = seat_of(game, user)
    if seat is None:
        raise Refused("not_seated", not_seated)
    return game, seat


def view_for(game: Game, seat: int | None) -> SiteView:
    """What ``seat`` may see of ``game`` (``None``: a spectator).

    The engine's :func:`~games.engine.view` (own hand only, counts of the others;
    everything once the game is over) plus the site's keys, so that the page
    computes no rule itself (docs/protocol.md):

    * ``game_id``; ``players`` (per seat ``user_id``, ``username``, ``level``,
      ``bot``, ``bot_policy``, ``auto_play``);
    * ``time_left_ms``: milliseconds until the turn is due (clients' clocks are
      wrong, so no wall-clock instant is sent), ``None`` when over;
      ``clock_paused``: the site is down (RULES.md §12), so ``time_left_ms``
      is what the turn had left then and does not run;
    * ``trick_kinds``: per play of ``trick.plays``, its :func:`play_kind`
      (``None`` for a pass);
    * ``previous_trick``: the half's last completed trick
      (:func:`games.engine.tricks.previous_trick` plus ``kinds``), ``None`` before
      the first ends or once the game is over (上一轮);
    * for a seat in the running game, ``escape_penalty``: rating points it
      loses by escaping now (RULES.md §7; 0 in a practice game);
    * for the seat to act, ``hints``: its legal plays (:func:`hint`, RULES.md
      §3), and ``can_pass``;

    then the keys other apps contribute (``GamePlugin.view_keys``).
    """
    return build_view(game.pk, game.state, players_of(game), game.due_at, seat)


def play_kind(play: engine.Play) -> PlayKind:
    """How a play is named (RULES.md §3): ``{"kind": one of engine.KINDS,
    "rank": the rank it plays as ("3" for jokers alone and the joker atoms),
    "jokers": jokers in it}``; the page adds the atom's suit from its cards."""
    return {"kind": play.kind, "rank": play.rank, "jokers": play.jokers}


def hint(play: engine.Play) -> Hint:
    """One legal play for the seat to act: ``play_kind`` plus ``cards`` (a
    list, weakest first) and ``exact``. ``exact`` is true for an atom or a
    hydrogen bomb, where these very cards are the play (suits decide, §3);
    otherwise any ``len(cards)`` cards of ``rank`` with as many jokers make the
    same play, so the page can tell whether a selection is this hint."""
    return {"cards": list(play.cards), **play_kind(play),
            "exact": play.kind in (engine.ATOM, engine.HYDROGEN)}


def _kind(cards: list[Card], dao: str) -> PlayKind | None:
    """:func:`play_kind` of ``cards`` as played (``None`` for a pass, ``[]``)."""
    play = engine.classify(cards, dao) if cards else None
    return play_kind(play) if play is not None else None


@dataclass(frozen=True)
class Shared:
    """What every seat's view of one position has alike (:func:`shared`):
    ``time_left_ms``, ``clock_paused``, ``trick_kinds``, ``previous_trick``."""

    time_left_ms: int | None
    clock_paused: bool
    trick_kinds: list[PlayKind | None]
    previous_trick: SitePreviousTrick | None


def shared(state: SiteState, due_at: datetime | None) -> Shared:
    """The seat-independent keys of a position's views, worked out once for
    the five views of a broadcast (RULES.md §3 kinds; the clock, §12)."""
    playing = state["status"] == engine.PLAYING
    dao = state["dao"]
    left: int | None = None
    paused: datetime | None = None
    if due_at is not None and playing:
        paused = clock.paused_since()  # the site is down: the clock stands still
        left = max(0, int((due_at - (paused or timezone.now())).total_seconds() * 1000))
    prev = tricks.previous_trick(state) if playing else None
    return Shared(
        time_left_ms=left, clock_paused=paused is not None,
        trick_kinds=[_kind(cards, dao) for _, cards in state["trick"]["plays"]],
        previous_trick=None if prev is None else SitePreviousTrick(
            plays=prev["plays"], winner=prev["winner"],
            kinds=[_kind(c, dao) for _, c in prev["plays"]]))


def build_view(game_id: int, state: SiteState, players: list[Player],
               due_at: datetime | None, seat: int | None,
               common: Shared | None = None) -> SiteView:
    """:func:`view_for` from a game's parts (after commit the row may have moved on).

    :param players: :func:`players_of`; ``due_at``: the turn's due time
        (datetime) or ``None``; ``seat``: 0–3 or ``None`` for a spectator;
        ``common``: :func:`shared` of this position if the caller has it (its
        lists are shared by the views: views are read-only once built).
    """
    playing = state["status"] == engine.PLAYING
    dao = state["dao"]
    if common is None:
        common = shared(state, due_at)
    # the engine's fresh view, grown in place into a SiteView: every required key
    # is set just below (a TypedDict literal with ``**`` cannot have optional keys)
    v = cast(SiteView, engine.view(state, seat))
    v["game_id"] = game_id
    v["players"] = [Player(**p) for p in players]
    v["time_left_ms"] = common.time_left_ms
    v["clock_paused"] = common.clock_paused
    v["trick_kinds"] = common.trick_kinds
    v["previous_trick"] = common.previous_trick
    if seat is not None and playing:
        v["escape_penalty"] = (0 if state["practice"]
                               else engine.escape_penalty(state["stake"], state["half"]))
    if seat is not None and state["turn"] == seat and playing:
        # the seat's own legal plays, for the hint button (derived from its own hand only)
        table = engine.table_play(state)
        v["hints"] = [hint(p) for p in engine.legal_plays(state["hands"][seat], table, dao)]
        v["can_pass"] = table is not None
    user_id = players[seat]["user_id"] if seat is not None else None
    return plugins.add_view_keys(v, game_id, state, seat, user_id)


def current_view(table_id: int, user: User | AnonymousUser | None) -> SiteView | None:
    """``user``'s view of the game running (or last played) at the table, or
    ``None``: the game read with the table's pointer to it in one query (a
    ``sync`` on the production stack), its seats in a second."""
    current = Table.objects.filter(pk=table_id).values("current_game")[:1]
    game = next(iter(Game.objects.filter(pk=Subquery(current))), None)
    return None if game is None else view_for(game, seat_of(game, user))


def game_view(game_id: int | None, user: User | AnonymousUser | None,
              emptied: bool = False) -> SiteView | None:
    """``user``'s view of the game ``game_id`` (``None``: no view), for a caller
    that has just read the table's current game id (a snapshot's ``game_id``).

    :param emptied: the table waits with nobody seated
        (``games.snapshots.emptied``): its last game is history, shown only to
        those who played it (their result), not as the board a newcomer finds.
    """
    game = Game.objects.filter(pk=game_id).first() if game_id else None
    if game is None:
        return None
    seat = seat_of(game, user)
    if emptied and seat is None and game.state["status"] == engine.OVER:
        return None
    return view_for(game, seat)
