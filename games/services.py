"""The only code that changes tables and games (DESIGN.md "server-authoritative").

Every change runs in one transaction with the rows it changes locked
(``select_for_update``); game actions append their ``GameEvent`` in that same
transaction, and only after commit (``transaction.on_commit``) are clients told,
each seat getting only its own :func:`view_for`. Consumers and views call these
functions and nothing else that writes.

Errors: :class:`Refused` (a ``ValueError``) with a stable ``reason`` code and a
translated message; nothing has changed when it is raised.
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
from games import broadcast, engine
from games.models import ChatMessage, Game, GameEvent, Presence, Seat, Table


class Refused(ValueError):
    """A request the rules or the table refuse; ``reason`` is a stable code."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


# --- tables and seats ---------------------------------------------------------


def create_table(user, name: str = "") -> Table:
    """Open a new table owned by ``user`` with four empty seats.

    :param name: up to 40 characters; blank gives the default "桌 N".
    :raises Refused: ``too_many_tables`` when the user already owns
        ``GAMES_MAX_IDLE_TABLES`` open tables where nobody sits.
    """
    name = (name or "").strip()[:40]
    with transaction.atomic():
        idle = Table.objects.filter(owner=user, closed=False, status=Table.WAITING).exclude(
            seats__user__isnull=False
        )
        if idle.count() >= settings.GAMES_MAX_IDLE_TABLES:
            raise Refused(
                "too_many_tables",
                _("You already have %(count)s empty tables open: sit at one of them.")
                % {"count": settings.GAMES_MAX_IDLE_TABLES},
            )
        table = Table.objects.create(name=name or "-", owner=user)
        if not name:
            table.name = _("Table %(number)s") % {"number": table.pk}
            table.save(update_fields=["name"])
        Seat.objects.bulk_create(Seat(table=table, index=i) for i in range(4))
        transaction.on_commit(lambda: broadcast.table_changed(table.pk))
    return table


def _locked_table(table_id: int) -> Table:
    try:
        # the table row serialises every seat change at this table
        return Table.objects.select_for_update().get(pk=table_id, closed=False)
    except Table.DoesNotExist:
        raise Refused("no_table", _("This table does not exist or is closed.")) from None


def _waiting(table: Table) -> None:
    if table.status != Table.WAITING:
        raise Refused("game_running", _("A game is running at this table."))


def _seat(table: Table, index: Any) -> Seat:
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index <= 3:
        raise Refused("bad_seat", _("There is no such seat."))
    return Seat.objects.select_for_update().get(table=table, index=index)


def sit(table_id: int, user, index: int) -> None:
    """Take the empty seat ``index`` (moving from another seat at this table)."""
    with transaction.atomic():
        table = _locked_table(table_id)
        _waiting(table)
        seat = _seat(table, index)
        if seat.user_id == user.pk:
            return
        if not seat.empty:
            raise Refused("seat_taken", _("That seat is taken."))
        Seat.objects.filter(table=table, user=user).update(user=None, ready=False)
        seat.user, seat.ready = user, False
        seat.save(update_fields=["user", "ready"])
        transaction.on_commit(lambda: broadcast.table_changed(table_id))


def stand(table_id: int, user) -> None:
    """Leave one's seat while no game runs (during a game, see :func:`escape`)."""
    with transaction.atomic():
        table = _locked_table(table_id)
        _waiting(table)
        if not Seat.objects.filter(table=table, user=user).update(user=None, ready=False):
            raise Refused("not_seated", _("You are not seated at this table."))
        transaction.on_commit(lambda: broadcast.table_changed(table_id))


def _owner(table: Table, user) -> None:
    if table.owner_id != user.pk:
        raise Refused("not_owner", _("Only the table's owner may do that."))


def add_bot(table_id: int, user, index: int) -> None:
    """The owner puts a bot in the empty seat ``index`` (a bot makes practice games)."""
    _set_bot(table_id, user, index, True)


def remove_bot(table_id: int, user, index: int) -> None:
    """The owner takes the bot out of seat ``index``."""
    _set_bot(table_id, user, index, False)


def _set_bot(table_id: int, user, index: int, bot: bool) -> None:
    with transaction.atomic():
        table = _locked_table(table_id)
        _owner(table, user)
        _waiting(table)
        seat = _seat(table, index)
        if bot and not seat.empty:
            raise Refused("seat_taken", _("That seat is taken."))
        if not bot and not seat.is_bot:
            raise Refused("no_bot", _("There is no bot in that seat."))
        seat.is_bot = seat.ready = bot  # bots are always ready
        seat.save(update_fields=["is_bot", "ready"])
        transaction.on_commit(lambda: broadcast.table_changed(table_id))
        if bot:
            _maybe_start(table)


def set_ready(table_id: int, user, ready: bool = True) -> Game | None:
    """Mark oneself (un)ready; the game starts once four are seated and ready.

    :returns: the new game if this started one, else ``None``.
    """
    with transaction.atomic():
        table = _locked_table(table_id)
        _waiting(table)
        if not Seat.objects.filter(table=table, user=user).update(ready=bool(ready)):
            raise Refused("not_seated", _("You are not seated at this table."))
        transaction.on_commit(lambda: broadcast.table_changed(table_id))
        return _maybe_start(table)


def _maybe_start(table: Table) -> Game | None:
    seats = list(Seat.objects.filter(table=table).select_related("user__profile"))
    if not all(s.ready and not s.empty for s in seats):
        return None
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


def chat(table_id: int, user, text: str) -> ChatMessage:
    """Post a chat line at the table (trimmed, at most 200 characters; escaped on display)."""
    text = (text or "").strip()
    if not text:
        raise Refused("empty", _("Say something."))
    if len(text) > ChatMessage.MAX_LENGTH:
        raise Refused("too_long", _("A chat message has at most 200 characters."))
    if not Table.objects.filter(pk=table_id, closed=False).exists():
        raise Refused("no_table", _("This table does not exist or is closed."))
    msg = ChatMessage.objects.create(table_id=table_id, user=user, text=text)
    transaction.on_commit(lambda: broadcast.chat(table_id, chat_line(msg)))
    return msg


def chat_line(msg: ChatMessage) -> dict[str, Any]:
    """One chat message as sent to clients: ``{"user", "text", "at"}`` (ISO time)."""
    return {"user": msg.user.username, "text": msg.text, "at": msg.created_at.isoformat()}


# --- games ----------------------------------------------------------------------


def seat_of(game: Game, user) -> int | None:
    """The seat ``user`` plays in ``game``, or ``None`` (spectator)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    for i, p in enumerate(game.players):
        if p["user_id"] == user.pk:
            return i
    return None


def view_for(game: Game, seat: int | None) -> dict[str, Any]:
    """The one filter on every path out (DESIGN.md): what ``seat`` may see of ``game``.

    The engine's :func:`~games.engine.view` (own hand only, counts of the others;
    everything once the game is over) plus ``game_id``, ``players`` (names,
    levels, bots) and ``time_left_ms``: milliseconds until the turn is due
    (clients' clocks are wrong, so no wall-clock instant is sent); for the seat
    to act, ``hints`` (its ``legal_plays`` as card lists) and ``can_pass``.
    """
    return _view(game.pk, game.state, game.players, game.due_at, game.auto_play, seat)


def _view(game_id, state, players, due_at, auto_play, seat) -> dict[str, Any]:
    v = engine.view(state, seat)
    v["game_id"] = game_id
    v["players"] = [
        {"user_id": p["user_id"], "username": p["username"], "level": p["level"], "bot": p["bot"],
         "auto_play": bool(auto_play and auto_play[i])}
        for i, p in enumerate(players)
    ]
    left = None
    if due_at is not None and state["status"] == engine.PLAYING:
        left = max(0, int((due_at - timezone.now()).total_seconds() * 1000))
    v["time_left_ms"] = left
    if seat is not None and state["turn"] == seat and state["status"] == engine.PLAYING:
        # the seat's own legal plays, for the hint button (derived from its own hand only)
        table = engine.table_play(state)
        v["hints"] = [list(p.cards) for p in engine.legal_plays(state["hands"][seat], table,
                                                                  state["dao"])]
        v["can_pass"] = table is not None
    return v


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
        p["user_id"]: _view(game_id, state, players, due_at, auto_play, i)
        for i, p in enumerate(players) if not p["bot"]
    }
    spectator = _view(game_id, state, players, due_at, auto_play, None)
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
    online = Presence.objects.filter(
        table_id=game.table_id, last_seen__gte=online_cutoff(), user__isnull=False
    ).values_list("user_id", flat=True)
    gone = seats.exclude(user_id__in=list(online))
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

    :returns: ``True`` if it acted.
    """
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

    :returns: how many games were acted on.
    """
    now = timezone.now()
    due = list(
        Game.objects.filter(status=Game.PLAYING, due_at__lte=now)
        .order_by("due_at").values_list("pk", "seq")[:limit]
    )
    return sum(run_due(pk, seq) for pk, seq in due)


# --- presence ---------------------------------------------------------------------


def touch_presence(channel_name: str, table_id: int | None, user) -> None:
    """Record or refresh one connection's heartbeat."""
    Presence.objects.update_or_create(
        channel_name=channel_name,
        defaults={
            "table_id": table_id,
            "user": user if getattr(user, "is_authenticated", False) else None,
            "last_seen": timezone.now(),
        },
    )


def drop_presence(channel_name: str) -> None:
    """Forget a closed connection."""
    Presence.objects.filter(channel_name=channel_name).delete()


def expire_presence() -> int:
    """Forget connections whose heartbeats stopped (a killed process says no
    goodbye) and tell their tables, so they show offline.

    :returns: how many connections were forgotten.
    """
    stale = Presence.objects.filter(last_seen__lt=online_cutoff())
    tables = set(stale.exclude(table=None).values_list("table_id", flat=True))
    count, _ = stale.delete()
    for table_id in tables:
        broadcast.table_changed(table_id)
    return count


def close_idle_tables() -> int:
    """Close waiting tables nobody sits at or watches, once they have been idle
    for ``GAMES_IDLE_TABLE_MINUTES`` (since they opened or their last game
    ended), and take them off the lobby.

    :returns: how many tables were closed.
    """
    cutoff = timezone.now() - timedelta(minutes=settings.GAMES_IDLE_TABLE_MINUTES)
    idle = (
        Table.objects.filter(closed=False, status=Table.WAITING, created_at__lt=cutoff)
        .exclude(seats__user__isnull=False)
        .exclude(presences__last_seen__gte=online_cutoff())
        .exclude(games__ended_at__gte=cutoff)
    )
    ids = list(idle.values_list("pk", flat=True).distinct())
    if ids:
        Table.objects.filter(pk__in=ids).update(closed=True)
        for table_id in ids:
            broadcast.table_closed(table_id)
    return len(ids)


def online_cutoff():
    """Heartbeats older than this no longer count (a killed process sends no goodbye)."""
    return timezone.now() - timedelta(seconds=settings.GAMES_PRESENCE_TTL_SECONDS)
