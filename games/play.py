"""Play, the write side: moves, escape, 托管, the game's end (the finisher), and
the due-action function with its sweep (DESIGN.md "server-authoritative",
"Time, bots", "The plugin seam").

Owns ``Game``, ``GameSeat`` and ``GameEvent`` rows. An action runs in one
transaction with the game row locked (``select_for_update``), appends its
``GameEvent`` in that same transaction, and only after commit are clients told
(``events.GameChanged``; ``games.adapters.broadcast`` subscribes).

Lock order, everywhere on the site: Game → Table → Seat → Profile (ascending
user id) → inventory rows (ascending id); ledger rows are inserted last. The
finisher runs the game-end hooks under the game's lock, so a hook that takes
table, profile or inventory locks follows this order by construction.

Errors: :class:`yuanzi_site.refusals.Refused` with a stable ``reason``; nothing has
changed when it is raised.
"""

from __future__ import annotations

import logging
import random
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeGuard, cast

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import get_language, gettext_noop
from django.utils.translation import gettext as _

from games import clock, engine, events, fairness, metrics, plugins, presence, queries, roster, wire
from games.explain import lang_of, refusal
from games.models import Game, GameEvent, GameSeat, Seat, Table, new_server_seed
from games.plugins import GameEnd
from games.roster import seat_rows
from games.seatview import players_game, seat_of
from yuanzi_site.refusals import REASONS, Refused

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from games.fairness import SiteState

log = logging.getLogger(__name__)


def start_game(table: Table, seats: list[Seat]) -> Game:
    """Deal a new game at ``table`` for its four ready ``seats`` (index order, each
    with ``user__profile`` loaded) and start its clock (RULES.md §2, §7–§8).

    Runs inside the caller's transaction with the table row locked, and the
    game-start hooks (``GamePlugin.on_game_start``) in it; the first views go
    out after commit.
    """
    rows = [_game_seat(s) for s in seats]
    # the deal seed combines the server seed committed to while the table waited
    # with each seat's (fairness.py); the next game's is made now, before its seeds
    inputs = fairness.new_inputs([None if s.is_bot else (s.seed or None) for s in seats],
                                 table.next_server_seed or None)
    table.next_server_seed = new_server_seed()
    state: SiteState = {
        **engine.new_game(inputs.pop("seed"), [r.level for r in rows],
                          [engine.bot_policy(r.bot or None) for r in rows]),
        "fairness": inputs,  # kept with the state; views show fairness.public() only
    }
    game = Game(table=table, table_name=table.name, state=state, seq=0,
                practice=state["practice"])
    game._seat_rows = rows
    game.due_at = _due_at(game)
    game.save()
    for r in rows:
        r.game = game
    GameSeat.objects.bulk_create(rows)
    table.status, table.current_game = Table.PLAYING, game
    table.save(update_fields=["status", "current_game", "next_server_seed"])
    plugins.game_started(game)  # e.g. the wager's held stake, in this transaction
    _announce(game)
    return game


def _game_seat(s: Seat) -> GameSeat:
    """The ``GameSeat`` row (not saved) for a ready seat: a bot's level or its player."""
    if s.is_bot:
        return GameSeat(index=s.index, bot=s.bot_policy or "normal")
    user = s.user
    assert user is not None  # a ready seat that is no bot has its player
    return GameSeat(index=s.index, user=user, username=user.username, level=user.profile.level)


def _due_at(game: Game) -> datetime | None:
    """When the current turn is due: a bot's or 托管 seat's pause, or a human's
    turn clock (RULES.md §8)."""
    turn = engine.to_act(game.state)
    if turn is None:
        return None
    row = seat_rows(game)[turn]
    if row.is_bot or row.auto_play:
        delay = bot_pause(game.state, game.seq)
    else:
        delay = settings.GAMES_TURN_SECONDS
    return timezone.now() + timedelta(seconds=delay)


def bot_pause(state: SiteState, seq: int) -> float:
    """A bot's (or 托管 seat's) pause before it moves, in seconds: a natural
    0.5–1.5 × ``GAMES_BOT_DELAY_SECONDS`` (0.5–1.5 s by default), drawn from the
    game's own randomness (its secret seed and the seq), so a retry or another
    process computes the same pause and no two moves look machine-timed."""
    rng = random.Random(f"{state['seed']}:{seq}:pause")
    return settings.GAMES_BOT_DELAY_SECONDS * rng.uniform(0.5, 1.5)


def _turn_started(game: Game) -> datetime:
    """When the current turn began: the last action's time, or the game's start."""
    last = GameEvent.objects.filter(game=game).order_by("-seq").values_list(
        "created_at", flat=True).first()
    return last or game.started_at


def _locked_game(game_id: int, table_id: int | None = None) -> Game:
    """The game row locked, its seat rows loaded under the lock. With
    ``table_id``, ``game_id`` is a hint: unless the locked row is of that table
    and still playing, the table's current game is locked instead (one query
    more, only when the hint was stale)."""
    game = Game.objects.select_for_update().filter(pk=game_id).first()
    if table_id is not None and (game is None or game.table_id != table_id
                                 or game.status != Game.PLAYING):
        current = queries.current_game_id(table_id)
        if current != game_id:
            if current is None:
                raise Refused("no_game", _("No game is running at this table."))
            game = Game.objects.select_for_update().filter(pk=current).first()
    if game is None:
        raise Refused("no_game", _("There is no such game."))
    # one action at a time per game: the row lock orders concurrent actions
    seat_rows(game)  # loaded under the lock
    return game


def act(game_id: int, user: User, seq: Any, action: Any, table_id: int | None = None) -> Game:
    """Apply ``user``'s action to the game if ``seq`` is the game's current seq.

    :param seq: the seq the client saw, as it sent it: a whole number as
        :func:`games.wire.whole` reads one (``17`` or ``"17"``); a stale or
        repeated action is refused.
    :param action: ``{"type": "play", "cards": [...]}`` or ``{"type": "pass"}``.
    :param table_id: given when ``game_id`` is only a hint of the table's
        current game (the connection's, ``SocketContext.game_id``): a locked
        row of another table, or of a game no longer playing, is not trusted,
        and the table's current game is looked up instead.
    :raises Refused: ``no_game``, ``not_seated``, ``bad_message`` (``seq``
        missing or not a number), ``stale``, or an engine
        reason code (``not_your_turn``, ``does_not_beat`` …); nothing changes.
    """
    with transaction.atomic():
        game = _locked_game(game_id, table_id)
        seat = seat_of(game, user)
        if seat is None:
            raise Refused("not_seated", _("You are not playing in this game."))
        seen = wire.whole(seq)
        if seen is None:
            raise Refused("bad_message", _("“seq” must be a whole number."))
        if seen > game.seq:
            raise Refused("stale", _("That move names a position the table has not reached."))
        if seen < game.seq:
            raise Refused(
                "stale", _("That move was made on an old position; the table has moved on.")
            )
        if not isinstance(action, dict) or action.get("type") not in ("play", "pass"):
            raise Refused("bad_action", _("That is not a move."))
        _reset_timeouts(game, seat)
        # a play or a pass (checked just above); the engine checks the rest
        _apply(game, seat, cast(engine.Action, action), by="player")
        return game


def _reset_timeouts(game: Game, seat: int) -> None:
    row = seat_rows(game)[seat]
    if row.timeouts:
        row.timeouts = 0
        row.save(update_fields=["timeouts"])


def set_auto_play(game_id: int, user: User, on: bool) -> Game:
    """Turn 托管 on (a bot plays the seat) or off (取消托管) for oneself.

    :param on: a bool (the consumer refuses anything else).
    """
    with transaction.atomic():
        game = _locked_game(game_id)
        seat = seat_of(game, user)
        if seat is None:
            raise Refused("not_seated", _("You are not playing in this game."))
        if game.status != Game.PLAYING:
            raise Refused("game_over", _("The game is over."))
        row = seat_rows(game)[seat]
        row.auto_play, row.timeouts = on, 0
        row.save(update_fields=["auto_play", "timeouts"])
        if game.state["turn"] == seat:
            due = _due_at(game)  # not None: the game runs and this seat is to act
            if not on and due is not None:  # what is left of this turn's clock, not a new one
                due = min(due, _turn_started(game)  # (no stalling)
                          + timedelta(seconds=settings.GAMES_TURN_SECONDS))
            game.due_at = due
        game.save(update_fields=["due_at"])
        _announce(game)
        return game


def escape(game_id: int, user: User) -> Game:
    """Leave a running game (RULES.md §7): it is abandoned; in a rated game the
    escaper loses max(2 × stake, 20 / 10) rating points, the others nothing."""
    with transaction.atomic():
        game = _locked_game(game_id)
        seat = seat_of(game, user)
        if seat is None:
            raise Refused("not_seated", _("You are not playing in this game."))
        _apply(game, seat, {"type": "escape"}, by="player")
        return game


def end_game(game_id: int, reason: str, seat: int | None = None) -> Game:
    """End a running game for a moderator's close or kick or a suspension
    (RULES.md §12: no rating, wager or escape change for anyone), through the
    finisher like every ending; ``seat`` (the kicked or suspended player) is
    stood up. Call it inside the moderator action's own transaction, so the
    action and its audit row commit together.

    :param reason: ``moderator_close`` (no seat), ``moderator_kick`` or
        ``suspension`` (a seat 0–3).
    :raises Refused: ``no_game``, ``game_over``, ``bad_seat``.
    """
    with transaction.atomic():
        game = _locked_game(game_id)
        if game.status != Game.PLAYING:
            raise Refused("game_over", _("The game is over."))
        try:
            # any other reason is refused by the engine (bad_reason)
            state, events = engine.abandon(game.state, cast(engine.EndReason, reason), seat)
        except engine.IllegalAction as e:
            code = e.reason if e.reason in REASONS else "bad_action"
            raise Refused(code, illegal_message(e)) from None
        game.state, game.seq = state, state["seq"]
        GameEvent.objects.create(
            game=game, seq=game.seq, seat=seat,
            action={"type": "abandon", "reason": reason, "seat": seat}, events=events,
            by="moderator",
        )
        _saved(game)
        return game


def _apply(game: Game, seat: int, action: engine.Action, by: str) -> None:
    try:
        state, events = engine.apply(game.state, seat, action)
    except engine.IllegalAction as e:
        # engine codes that a client's action cannot cause are not client codes
        reason = e.reason if e.reason in REASONS else "bad_action"
        raise Refused(reason, refusal_message(game.state, seat, action, e)) from None
    game.state, game.seq = state, state["seq"]
    GameEvent.objects.create(
        game=game, seq=game.seq, seat=seat, action=action, events=events, by=by
    )
    _saved(game)
    transaction.on_commit(metrics.MOVES.labels(by).inc)


def _saved(game: Game) -> None:
    """Save a game whose state just changed; if it is over, run the finisher."""
    state = game.state
    game.due_at = _due_at(game)
    if state["status"] == engine.OVER:
        game.status, game.ended_at = Game.OVER, timezone.now()
    game.save(update_fields=["state", "seq", "due_at", "status", "ended_at"])
    if state["status"] == engine.OVER:
        try:
            finish(game)
        except Refused:
            raise
        except Exception:
            # a hook failed: nothing of the ending may be kept (the transaction rolls back)
            log.exception("game %s: a game-end hook failed", game.pk)
            raise Refused(
                "game_end_failed",
                _("The game could not be ended just now, so that move was not made. Try again."),
            ) from None
    _announce(game)


def _announce(game: Game) -> None:
    """After commit: every client its view, the next due action scheduled."""
    roster.publish_game(game)
    if game.state["status"] == engine.OVER:
        events.publish(events.TableChanged(game.table_id))


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


def illegal_message(e: engine.IllegalAction) -> str:
    """The player's sentence for an engine refusal (RULES.md §3–§4), in the
    active language; the engine's own English text for a code without one."""
    text = _ILLEGAL.get(e.reason)
    return _(text) if text else str(e)


#: refusals a sentence of the rules explains (RULES.md §3–§4, games.explain)
_RULED = frozenset({"not_a_combination", "does_not_beat", "must_lead"})


def refusal_message(state: engine.State, seat: int, action: engine.Action,
                    e: engine.IllegalAction) -> str:
    """The player's sentence for the engine's refusal ``e`` of ``action`` by
    ``seat`` in ``state``: for a play that is no play, does not beat the table,
    or a pass on a lead, the rule it breaks (:func:`games.explain.refusal`,
    RULES.md §3–§4); otherwise :func:`illegal_message`. Active language."""
    if e.reason in _RULED:
        cards = action.get("cards") if action.get("type") == "play" else []
        last = state["trick"]["last"]
        try:
            text = refusal(state["hands"][seat], last[1] if last else None, state["dao"],
                           cast(list[str], cards or []), lang_of(get_language()))
        except ValueError:  # not cards: the engine said so already
            text = None
        if text:
            return text
    return illegal_message(e)


def judge(state: engine.State, seat: int, action: engine.Action) -> dict[str, Any]:
    """Would ``action`` by ``seat`` be refused in ``state``, and why? The
    engine's own check on a copy (nothing changes).

    :returns: ``{"legal": bool, "reason": the refusal's code or None,
        "message": the sentence of :func:`refusal_message`, "" when legal}``.
    """
    try:
        engine.apply(state, seat, action)
    except engine.IllegalAction as e:
        return {"legal": False, "reason": e.reason if e.reason in REASONS else "bad_action",
                "message": refusal_message(state, seat, action, e)}
    return {"legal": True, "reason": None, "message": ""}


def why(game_id: int, user: User, cards: list[str]) -> dict[str, Any]:
    """The answer to the table's ``why`` message (docs/protocol.md): would
    ``user`` playing ``cards`` now be refused, and by which rule (RULES.md
    §3–§4)? Reads the game; changes nothing.

    :param cards: §2 card strings, as the client selected them.
    :returns: ``{"type": "why", "cards": cards, "seq": the game's seq}`` and
        :func:`judge`'s ``legal``, ``reason`` and ``message``.
    :raises Refused: ``no_game``, ``not_seated``.
    """
    game, seat = players_game(game_id, user, _("You are not playing in this game."))
    return {"type": "why", "cards": cards, "seq": game.seq,
            **judge(game.state, seat, {"type": "play", "cards": cards})}


def finish(game: Game, reason: engine.EndReason | None = None) -> bool:
    """The one finisher every ending goes through (RULES.md §6–§7, §11–§12).

    Runs inside the transaction that ended the game, with its row locked; the
    conditional update on ``settled`` makes it act once per game whatever path
    ended it. It stores the game's end reason and its §11 record, runs the
    game-end hooks in priority order (rating settlement first: ``accounts``),
    then returns the table to waiting with its players unready, standing up the
    escaper, anyone removed by a moderator, anyone whose connection is gone, and
    anyone a seat policy no longer admits (each told why by a ``notice``).

    :param reason: one of ``Game.END_REASONS``; default: the engine result's
        ``reason``, else ``escape`` when someone escaped, else ``normal``.
    :returns: ``True`` if this call finished the game.
    :raises Exception: whatever a hook raised (the caller rolls back).
    """
    if not Game.objects.filter(pk=game.pk, settled=False).update(settled=True):
        return False
    game.settled = True
    result = game.state["result"]
    assert result is not None  # the game is over (its status says so)
    departed = result.get("abandoned_by")
    if reason is None:
        reason = result.get("reason") or (Game.ESCAPE if departed is not None else Game.NORMAL)
    game.end_reason, game.record = reason, engine.to_record(game.state)
    game.save(update_fields=["settled", "end_reason", "record"])
    rows = seat_rows(game)
    # the table before any hook locks profiles (lock order Game → Table → Profile):
    # _reset_table needs it after them, and a table-then-profile writer must not cross us
    Table.objects.select_for_update().filter(pk=game.table_id).first()
    plugins.game_ended(GameEnd(game=game, reason=reason, result=result, seats=rows,
                               record=game.record))
    _reset_table(game, rows, departed)
    return True


def _reset_table(game: Game, rows: list[GameSeat], departed: int | None) -> None:
    table = Table.objects.select_for_update().get(pk=game.table_id)
    table.status = Table.WAITING
    table.save(update_fields=["status"])
    seats = Seat.objects.filter(table=table, is_bot=False)
    seats.update(ready=False)
    # the escaper, and anyone whose connection is gone, is stood up
    online = presence.online_users(table.pk)
    gone: set[int | None] = set(
        seats.exclude(user_id__in=list(online)).values_list("user_id", flat=True))
    if departed is not None and rows[departed].user_id is not None:
        gone.add(rows[departed].user_id)
    for seat in seats.exclude(user_id__in=gone).exclude(user=None).select_related("user"):
        assert seat.user_id is not None  # the query keeps seats with a player
        try:
            plugins.check_seat(table, seat.user, "game_end")
        except Refused as e:
            gone.add(seat.user_id)
            events.notify(seat.user_id, e.reason, e.words,
                          {**e.params, "table_id": table.pk, "table": table.name})
    seats.filter(user_id__in=gone).update(user=None)


def run_due(game_id: int, seq: int | None = None) -> bool:
    """Act for the seat to move if its turn is due (DESIGN.md "Time, bots").

    "If the game is still at ``seq`` and its turn is due, act for that seat",
    in this fixed order: a bot or a 托管 seat plays its policy (decided from
    its ``bot_view`` before the row lock, applied with the seq check); else the
    turn-timeout hooks are asked and the first that extends the turn wins (the
    定时器); else the RULES.md §8 timeout action (a random single on a lead, a
    pass otherwise), and after two such turns in a row the seat goes on 托管.
    Idempotent: callers may race (countdown task, sweep, ticker) and it acts
    once, under the game's row lock and the seq check. Before all of these
    comes the site's own outage (:func:`games.clock.resume_if_down`, RULES.md
    §12): after one, every frozen clock gets its time back and nothing acts.

    :returns: ``True`` if it acted.
    """

    clock.resume_if_down()
    # a bot's (or 托管 seat's) move is decided before the row lock, so no table
    # waits on another's bot; it is applied below only if the game is still there
    decided = _bot_move(Game.objects.filter(pk=game_id).first(), seq)
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if not _due(game, seq):
            return False
        seat, due_at = game.state["turn"], game.due_at
        assert seat is not None
        assert due_at is not None
        row = seat_rows(game)[seat]
        if row.is_bot or row.auto_play:
            if decided is None or decided[0] != (game.seq, seat):
                decided = _bot_move(game, game.seq)  # it moved meanwhile: decide again
                assert decided is not None  # due, with a bot or 托管 seat to act
            action = decided[1]
            by = "bot" if row.is_bot else "auto"
        else:
            extension = plugins.turn_extension(game, seat)
            if extension:  # e.g. the 定时器: the turn goes on instead
                game.due_at = max(due_at, timezone.now()) + extension
                game.save(update_fields=["due_at"])
                _announce(game)
                return True
            action = engine.timeout_action(game.state, random.SystemRandom())
            by = "clock"
            row.timeouts += 1
            if row.timeouts >= 2:  # two turns in a row lost to the clock: 托管
                row.auto_play = True
            row.save(update_fields=["timeouts", "auto_play"])
        _apply(game, seat, action, by=by)
        if by == "clock":
            _tell_timeout(game, row, action)
        return True


def _tell_timeout(game: Game, row: GameSeat, action: engine.Action) -> None:
    """Tell the player at once what the clock did for them (RULES.md §8): a
    ``turn_timeout`` notice with ``params`` ``{table_id, action: "play" | "pass",
    cards, auto}`` (``auto``: this was the second in a row, 托管 is on); nobody
    to tell at a seat whose player's account is gone."""
    if row.user_id is None:
        return
    cards = list(action["cards"]) if action["type"] == "play" else []

    def text() -> str:  # in each reader's language (the ticker has none of its own)
        said = (_("Your time ran out: the clock played %(cards)s for you.")
                % {"cards": " ".join(cards)} if action["type"] == "play"
                else _("Your time ran out: the clock passed for you."))
        if not row.auto_play:
            said += " " + _("If the next turn runs out too, auto-play starts.")
        return said

    events.notify(row.user_id, "turn_timeout", text,
                  {"table_id": game.table_id, "action": action["type"], "cards": cards,
                      "auto": row.auto_play})


def _due(game: Game | None, seq: int | None) -> TypeGuard[Game]:
    return (game is not None and game.status == Game.PLAYING and game.due_at is not None
            and (seq is None or game.seq == seq) and game.due_at <= timezone.now())


def bot_policy_of(row: GameSeat, practice: bool = False) -> str:
    """The policy that plays a seat: a bot seat's level; 托管 plays the master
    (大师) in a practice game and the expert (高手) in a rated one (nobody climbs the
    ladder by leaving the strongest bot on, and a player's seat should not play
    worse than its player)."""
    return row.bot or ("master" if practice else "expert")


def _bot_move(game: Game | None,
              seq: int | None) -> tuple[tuple[int, int], engine.Action] | None:
    """If ``game`` is due at ``seq`` with a bot or 托管 seat to act, that seat's
    policy's action from its ``bot_view`` (what a player there may know, RULES.md
    §12), as ``((seq, seat), action)``; else ``None``. Reads only: no lock.

    The random source is seeded by the game's seed and seq, so a retry decides
    the same; the expert searches within ``GAMES_BOT_BUDGET_MS``, the master
    within its counted budget (:mod:`games.engine.master`). Runs where
    ``run_due`` runs: a Celery worker, or the embedded ticker's database thread
    (``database_sync_to_async``), never on Daphne's event loop.
    """
    if not _due(game, seq):
        return None
    seat = game.state["turn"]
    assert seat is not None  # _due: the game runs
    row = seat_rows(game)[seat]
    if not (row.is_bot or row.auto_play):
        return None
    policy = bot_policy_of(row, game.practice)
    rng = random.Random(f"{game.state['seed']}:{game.seq}")
    bot_view = engine.bot_view(game.state, seat)
    if policy == "expert":
        action = engine.expert_policy(bot_view, rng, budget_ms=settings.GAMES_BOT_BUDGET_MS)
    else:
        action = engine.POLICIES[policy](bot_view, rng)
    return (game.seq, seat), action


def sweep_due(limit: int = 100) -> int:
    """Act on every game whose turn is due (the beat sweep and the ticker).

    The scheduler's heartbeat is written first (:func:`games.clock.beat`,
    which resumes frozen clocks after an outage).

    :returns: how many games were acted on.
    """

    clock.beat()
    now = timezone.now()
    due = list(
        Game.objects.filter(status=Game.PLAYING, due_at__lte=now)
        .order_by("due_at").values_list("pk", "seq")[:limit]
    )
    return sum(run_due(pk, seq) for pk, seq in due)
