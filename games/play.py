"""Play, the write side: moves, escape, 托管, the game's end, and the due-action
function with its sweep (DESIGN.md "server-authoritative", "Time, bots").

Owns ``Game`` and ``GameEvent`` rows. An action runs in one transaction with
the game row locked (``select_for_update``), appends its ``GameEvent`` in that
same transaction, and only after commit (``transaction.on_commit``) are clients
told, each seat getting only its own view (:mod:`games.seatview`).

Errors: :class:`games.errors.Refused` with a stable ``reason``; nothing has
changed when it is raised.
"""

from __future__ import annotations

import random
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import Profile, RatingEntry
from games import broadcast, engine, presence
from games.errors import Refused
from games.models import Game, GameEvent, Seat, Table
from games.seatview import build_view, seat_of


def start_game(table: Table, seats: list[Seat]) -> Game:
    """Deal a new game at ``table`` for its four ready ``seats`` (index order, each
    with ``user__profile`` loaded) and start its clock (RULES.md §2, §7–§8).

    Runs inside the caller's transaction with the table row locked; the first
    views go out after commit.
    """
    players = []
    for s in seats:
        if s.is_bot:
            players.append({"user_id": None, "username": None, "level": 0, "bot": True})
        else:
            level = s.user.profile.level
            players.append(
                {"user_id": s.user_id, "username": s.user.username, "level": level, "bot": False}
            )
    state = engine.new_game(
        secrets.token_hex(16), [p["level"] for p in players], [p["bot"] for p in players]
    )
    game = Game(table=table, state=state, seq=0, practice=state["practice"], players=players,
                auto_play=[False] * 4, timeouts=[0] * 4)
    game.due_at = _due_at(game)
    game.save()
    table.status, table.current_game = Table.PLAYING, game
    table.save(update_fields=["status", "current_game"])
    _announce(game)
    return game


def _due_at(game: Game):
    """When the current turn is due: a bot's or 托管 seat's pause, or a human's
    turn clock (RULES.md §8)."""
    turn = engine.to_act(game.state)
    if turn is None:
        return None
    if game.players[turn]["bot"] or game.auto_play[turn]:
        delay = settings.GAMES_BOT_DELAY_SECONDS
    else:
        delay = settings.GAMES_TURN_SECONDS
    return timezone.now() + timedelta(seconds=delay)


def _turn_started(game: Game):
    """When the current turn began: the last action's time, or the game's start."""
    last = GameEvent.objects.filter(game=game).order_by("-seq").values_list(
        "created_at", flat=True).first()
    return last or game.started_at


def _locked_game(game_id: int) -> Game:
    try:
        # one action at a time per game: the row lock orders concurrent actions
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise Refused("no_game", _("There is no such game.")) from None


def act(game_id: int, user, seq: Any, action: Any) -> Game:
    """Apply ``user``'s action to the game if ``seq`` is the game's current seq.

    :param seq: the seq the client saw; a stale or repeated action is refused.
    :param action: ``{"type": "play", "cards": [...]}`` or ``{"type": "pass"}``.
    :raises Refused: ``not_seated``, ``stale``, or an engine reason code
        (``not_your_turn``, ``does_not_beat`` …); nothing changes.
    """
    with transaction.atomic():
        game = _locked_game(game_id)
        seat = seat_of(game, user)
        if seat is None:
            raise Refused("not_seated", _("You are not playing in this game."))
        if not isinstance(seq, int) or isinstance(seq, bool) or seq != game.seq:
            raise Refused(
                "stale", _("That move was made on an old position; the table has moved on.")
            )
        if not isinstance(action, dict) or action.get("type") not in ("play", "pass"):
            raise Refused("bad_action", _("That is not a move."))
        game.timeouts[seat] = 0
        _apply(game, seat, action, by="player")
        return game


def set_auto_play(game_id: int, user, on: bool) -> Game:
    """Turn 托管 on (the heuristic bot plays the seat) or off (取消托管) for oneself."""
    with transaction.atomic():
        game = _locked_game(game_id)
        seat = seat_of(game, user)
        if seat is None:
            raise Refused("not_seated", _("You are not playing in this game."))
        if game.status != Game.PLAYING:
            raise Refused("game_over", _("The game is over."))
        game.auto_play[seat], game.timeouts[seat] = bool(on), 0
        if game.state["turn"] == seat:
            game.due_at = _due_at(game)
            if not on:  # what is left of this turn's clock, not a new one (no stalling)
                game.due_at = min(game.due_at, _turn_started(game)
                                  + timedelta(seconds=settings.GAMES_TURN_SECONDS))
        game.save(update_fields=["auto_play", "timeouts", "due_at"])
        _announce(game)
        return game


def escape(game_id: int, user) -> Game:
    """Leave a running game (RULES.md §7): it is abandoned; in a rated game the
    escaper loses max(2 × stake, 20 / 10) rating points, the others nothing."""
    with transaction.atomic():
        game = _locked_game(game_id)
        seat = seat_of(game, user)
        if seat is None:
            raise Refused("not_seated", _("You are not playing in this game."))
        _apply(game, seat, {"type": "escape"}, by="player")
        return game


def _apply(game: Game, seat: int, action: dict[str, Any], by: str) -> None:
    try:
        state, events = engine.apply(game.state, seat, action)
    except engine.IllegalAction as e:
        raise Refused(e.reason, _illegal_message(e)) from None
    game.state, game.seq = state, state["seq"]
    GameEvent.objects.create(
        game=game, seq=game.seq, seat=seat, action=action, events=events, by=by
    )
    game.due_at = _due_at(game)
    if state["status"] == engine.OVER:
        game.status, game.ended_at = Game.OVER, timezone.now()
    game.save(
        update_fields=["state", "seq", "due_at", "status", "ended_at", "auto_play", "timeouts"]
    )
    if state["status"] == engine.OVER:
        finish(game)
    _announce(game)


def announce(game: Game) -> None:
    """After commit: every client its view of ``game``; schedule its next due
    action (for :mod:`games.clock`, which moves a paused game's clock)."""
    _announce(game)


def _announce(game: Game) -> None:
    """After commit: every client its view; schedule the next due action."""
    args = (game.pk, game.state, game.table_id, game.players, game.due_at, list(game.auto_play))
    transaction.on_commit(lambda: _after_action(*args))


# marked with gettext_noop so makemessages finds them; translated when raised
_ILLEGAL = {
    "not_your_turn": gettext_noop("It is not your turn."),
    "not_in_hand": gettext_noop("Those cards are not in your hand."),
    "not_a_combination": gettext_noop("Those cards are not a legal play."),
    "does_not_beat": gettext_noop("That does not beat the play on the table."),
    "must_lead": gettext_noop("You lead: you must play."),
    "game_over": gettext_noop("The game is over."),
    "bad_card": gettext_noop("That is not a card."),
}


def _illegal_message(e: engine.IllegalAction) -> str:
    text = _ILLEGAL.get(e.reason)
    return _(text) if text else str(e)


def _after_action(game_id, state, table_id, players, due_at, auto_play) -> None:
    views = {
        p["user_id"]: build_view(game_id, state, players, due_at, auto_play, i)
        for i, p in enumerate(players) if not p["bot"]
    }
    spectator = build_view(game_id, state, players, due_at, auto_play, None)
    broadcast.game_changed(table_id, views, spectator)
    if state["status"] == engine.OVER:
        broadcast.table_changed(table_id)
    elif due_at is not None:
        from games import scheduler

        scheduler.schedule_due(game_id, state["seq"], due_at)


def finish(game: Game) -> bool:
    """The guarded finish step of a game that has just ended (RULES.md §6–§7).

    Runs inside the transaction that ended the game; the conditional update on
    ``settled`` makes it act once per game whatever path ended it. Rated games
    move rating points through ledger entries; every human's game counts move;
    the table returns to waiting with its players unready, and the escaper and
    anyone whose connection is gone are stood up.

    :returns: ``True`` if this call settled the game.
    """
    if not Game.objects.filter(pk=game.pk, settled=False).update(settled=True):
        return False
    game.settled = True
    result = game.state["result"]
    winner = result["winner"]
    for seat, p in enumerate(game.players):
        if p["bot"]:
            continue
        delta = result["rating_changes"][seat]
        won = winner is not None and engine.team_of(seat) == winner
        Profile.objects.filter(user_id=p["user_id"]).update(
            rating_points=F("rating_points") + delta,
            games_played=F("games_played") + 1,
            rated_games=F("rated_games") + int(not game.practice),
            games_won=F("games_won") + int(won),
            double_clamps=F("double_clamps") + int(won and result["double_clamp"]),
        )
        if delta:
            reason = RatingEntry.ESCAPE if result["abandoned_by"] == seat else RatingEntry.GAME
            RatingEntry.objects.create(
                user_id=p["user_id"], game_id=game.pk, delta=delta, reason=reason
            )
    Table.objects.filter(pk=game.table_id).update(status=Table.WAITING)
    seats = Seat.objects.filter(table_id=game.table_id, is_bot=False)
    seats.update(ready=False)
    # the escaper, and anyone whose connection is gone, is stood up (issue: departures)
    gone = seats.exclude(user_id__in=list(presence.online_users(game.table_id)))
    escaper = result["abandoned_by"]
    if escaper is not None:
        gone = gone | seats.filter(user_id=game.players[escaper]["user_id"])
    gone.update(user=None)
    return True


def run_due(game_id: int, seq: int | None = None) -> bool:
    """Act for the seat to move if its turn is due (DESIGN.md "Time, bots").

    "If the game is still at ``seq`` and its turn is due, act for that seat":
    a bot or a 托管 seat plays the heuristic policy; a human whose clock ran out
    gets the §8 timeout action (a random single on a lead, else a pass), and
    after two such turns in a row goes on 托管. Idempotent: callers may race
    (countdown task, sweep, ticker) and it acts once.

    Order: the site's own outage first (:func:`games.clock.resume_if_down`:
    a due turn of a game the outage froze gets its time back instead, RULES.md
    §12), then a bot's or 托管 seat's move, then the §8 timeout action.

    :returns: ``True`` if it acted.
    """
    from games import clock

    clock.resume_if_down()
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None or game.status != Game.PLAYING or game.due_at is None:
            return False
        if (seq is not None and game.seq != seq) or game.due_at > timezone.now():
            return False
        seat = game.state["turn"]
        if game.players[seat]["bot"] or game.auto_play[seat]:
            rng = random.Random(f"{game.state['seed']}:{game.seq}")
            action = engine.heuristic_policy(engine.view(game.state, seat), rng)
            by = "bot" if game.players[seat]["bot"] else "auto"
        else:
            action = engine.timeout_action(game.state, random.SystemRandom())
            by = "clock"
            game.timeouts[seat] += 1
            if game.timeouts[seat] >= 2:  # two turns in a row lost to the clock: 托管
                game.auto_play[seat] = True
        _apply(game, seat, action, by=by)
        return True


def sweep_due(limit: int = 100) -> int:
    """Act on every game whose turn is due (the beat sweep and the ticker).

    The scheduler's heartbeat is written first (:func:`games.clock.beat`,
    which resumes frozen clocks after an outage).

    :returns: how many games were acted on.
    """
    from games import clock

    clock.beat()
    now = timezone.now()
    due = list(
        Game.objects.filter(status=Game.PLAYING, due_at__lte=now)
        .order_by("due_at").values_list("pk", "seq")[:limit]
    )
    return sum(run_due(pk, seq) for pk, seq in due)
