"""Playing the daily challenge's boards (RULES.md §8, §12 "Daily challenge").

A board is the player's own: nobody else is seated, it is never in the lobby,
takes no spectators, invites or chat, and holds no seat (a board is not a
table; starting one stands its player up from a waiting table and is refused
while they play a running game, ``seated_elsewhere``; while a board is
connected, sitting down elsewhere is refused by ``contests.plugin``). Its
player is South (seat 2); the day's bot plays North, East and West.

- **Bots** play at once, in the request that gave them the turn, through the
  engine's policies with a random source seeded by the board's seed, the seat
  and the seq (:func:`bot_rng`): the bots' budgets are counts, so the same
  board played the same way gets the same bot plays for everyone.
- **The clock** runs only while the player is connected: the page sends a
  sign of life every few seconds (:func:`sync`); the time between two signs
  counts toward the turn (``CHALLENGE_TURN_SECONDS``) only when they are at
  most ``CHALLENGE_GAP_SECONDS`` apart, so leaving (closing the page, a lost
  connection, the site down) pauses it and a reload or a restart resumes it
  where it was; the page's "leave for now" and its closing say so at once
  (:func:`leave`). A turn that runs out acts as §8 (a leader's random single, a
  follower's pass) and two in a row pause the board until the player resumes
  it (:func:`resume`); there is no 托管.
- Boards go in order, one attempt per account and day: a finished board is
  never replayed. A board is over when its first half is: the raw score is
  stored then (``contests.challenge_scores.raw_score``).

Every write locks the board row (``select_for_update``): two requests of the
same player are applied one after the other.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Profile
from contests import challenge, quests
from contests.challenge_scores import raw_score
from contests.models import ChallengeBoard, ChallengeDay, ChallengeEntry
from games import engine, play
from games.engine.policies import POLICIES
from games.engine.shapes import Action, State
from games.engine.view import bot_view
from games.models import Seat
from games.tables import leave_waiting_seat, waiting_seat_or_refuse
from moderation.fairplay import address_hash
from yuanzi_site.refusals import Refused

PLAYER = challenge.PLAYER_SEAT


def bot_rng(state: State, seat: int) -> random.Random:
    """The random source of a decision in ``seat`` at the board's current seq:
    ``random.Random(f"{board_seed}:{seat}:{seq}")`` (the same for everyone on
    the same board and position)."""
    return random.Random(f"{state['seed']}:{seat}:{state['seq']}")


def half_over(state: State) -> bool:
    """The board's half is over (its first half has a summary)."""
    return bool(state["halves"])


def _advance(board: ChallengeBoard, policy: str, now: datetime) -> None:
    """Let the bot play every seat whose turn it is until the player's turn or
    the half's end; a board whose half is over is marked done with its raw
    score."""
    state: State = board.state
    choose = POLICIES[policy]
    while not half_over(state):
        seat = engine.to_act(state)
        if seat is None or (seat == PLAYER and not board.by_bot):
            break
        if seat == PLAYER:  # the bot plays the player's seat at the close (复盘 skips it)
            board.moves_by = {**board.moves_by, str(len(state["actions"])): "auto"}
        state, _events = engine.apply(state, seat, choose(bot_view(state, seat),
                                                          bot_rng(state, seat)))
    board.state = state
    if half_over(state):
        board.status = ChallengeBoard.DONE
        board.raw = raw_score(state)
        board.finished_at = now
        board.clock_ms = 0
        if not board.by_bot:  # 每日任务 "play today's challenge" (RULES.md §12: it counts)
            quests.count(board.user_id, "challenge", now=now)


def _leave(seat: Seat | None, user: User) -> None:
    """A waiting seat is left for the board (§12: one seat per person)."""
    leave_waiting_seat(seat, user, "challenge_left_seat", lambda: _(
        "You started a daily challenge board, so your seat here is free again."))


def open_board(user: User) -> ChallengeBoard | None:
    """The user's unfinished board of a day still open, if any (oldest day first)."""
    return (ChallengeBoard.objects.filter(user=user, day__closed_at__isnull=True)
            .exclude(status=ChallengeBoard.DONE).select_related("day")
            .order_by("day__date", "number").first())


def start(user: User, now: datetime | None = None, address: str | None = None) -> ChallengeBoard:
    """开始/继续: the user's next board — an unfinished one of a day still open,
    else today's next board in order, dealt now (the bot plays up to the
    player's first turn).

    :raises Refused: ``seated_elsewhere`` while they play a running game
        elsewhere (a waiting seat is left); ``challenge_done`` when all of
        today's boards are played. Nothing has changed when it is raised.

    :param address: the client's address, kept only as its keyed hash.
    """
    now = now or timezone.now()
    waiting = waiting_seat_or_refuse(user)
    current = open_board(user)
    if current is not None:
        _leave(waiting, user)
        return current
    day = challenge.today(now)
    with transaction.atomic():
        entry = _entry(day, user)
        done = ChallengeBoard.objects.filter(entry=entry).count()
        unfinished = (ChallengeBoard.objects.filter(entry=entry)
                      .exclude(status=ChallengeBoard.DONE).first())
        if unfinished is not None:  # made by a concurrent request meanwhile
            board = unfinished
        elif done >= settings.CHALLENGE_BOARDS:
            raise Refused("challenge_done", _("You have played all of today's boards."))
        else:
            board = ChallengeBoard(entry=entry, day=day, user=user, number=done + 1,
                                   state=challenge.new_board_state(day, done + 1), seen_at=now,
                                   address_hash=address_hash(address) if address else "")
            _advance(board, day.bot_policy, now)
            board.save()
    _leave(waiting, user)
    return board


def _entry(day: ChallengeDay, user: User) -> ChallengeEntry:
    """The user's entry of ``day``, locked; made (ranked or not) on first use."""
    entry = ChallengeEntry.objects.select_for_update().filter(day=day, user=user).first()
    if entry is not None:
        return entry
    games = Profile.objects.filter(user=user).values_list("counted_games", flat=True).first()
    try:
        with transaction.atomic():
            ChallengeEntry.objects.create(
                day=day, user=user, ranked=(games or 0) >= settings.CHALLENGE_RANKED_GAMES)
    except IntegrityError:  # a concurrent start made it: use theirs
        pass
    return ChallengeEntry.objects.select_for_update().get(day=day, user=user)


def _locked(board_id: int, user: User) -> ChallengeBoard:
    board = (ChallengeBoard.objects.select_for_update(of=("self",)).select_related("day")
             .filter(pk=board_id, user=user).first())
    if board is None:
        raise Refused("no_board", _("There is no such board."))
    # the close may have committed while we waited for the row: read it afresh
    board.day.refresh_from_db(fields=["closed_at"])
    return board


def _tick(board: ChallengeBoard, now: datetime) -> None:
    """Count the connected time since the last sign of life toward the player's
    turn and act for them if it ran out (§8); two timeouts in a row pause."""
    seen, board.seen_at = board.seen_at, now
    if board.status != ChallengeBoard.PLAYING or engine.to_act(board.state) != PLAYER:
        return
    if seen is not None:
        gap_ms = int((now - seen).total_seconds() * 1000)
        if 0 < gap_ms <= settings.CHALLENGE_GAP_SECONDS * 1000:
            board.clock_ms += gap_ms
    if board.clock_ms < settings.CHALLENGE_TURN_SECONDS * 1000:
        return
    state: State = board.state
    action = engine.timeout_action(state, random.Random(f"{state['seed']}:timeout:{state['seq']}"))
    board.moves_by = {**board.moves_by, str(len(state["actions"])): "clock"}  # not theirs
    board.state, _events = engine.apply(state, PLAYER, action)
    board.clock_ms = 0
    board.timeouts += 1
    _advance(board, board.day.bot_policy, now)
    if board.status == ChallengeBoard.PLAYING and board.timeouts >= 2:
        board.status = ChallengeBoard.PAUSED


def sync(board_id: int, user: User, now: datetime | None = None, *,
         leaving: bool = False) -> ChallengeBoard:
    """A sign of life from the board's page: the clock counts the time since
    the last one (module docstring) and a turn that ran out is acted on.
    ``leaving``: the page is being left (:func:`leave`).

    :raises Refused: ``no_board`` for a board that is not the user's.
    """
    now = now or timezone.now()
    with transaction.atomic():
        board = _locked(board_id, user)
        if board.status != ChallengeBoard.DONE and not board.day.closed:
            _tick(board, now)
            if leaving:
                board.seen_at = None
            board.save()
    return board


def leave(board_id: int, user: User, now: datetime | None = None) -> ChallengeBoard:
    """The player leaves the board's page (its "leave for now" button, or the
    page being closed): the time since the last sign of life counts as in
    :func:`sync`, then the clock stops at once and the board holds the player
    no longer (:func:`refuse_if_on_board`), rather than after
    ``CHALLENGE_GAP_SECONDS`` (§12: leaving pauses it). The next sign of life
    starts the clock again where it was.

    :raises Refused: ``no_board`` for a board that is not the user's.
    """
    return sync(board_id, user, now, leaving=True)


def resume(board_id: int, user: User, now: datetime | None = None) -> ChallengeBoard:
    """Resume a board paused by two timeouts in a row: its clock starts afresh.

    :raises Refused: ``no_board``; ``seated_elsewhere`` while they play a
        running game elsewhere (a waiting seat is left); ``board_done``,
        ``challenge_closed``.
    """
    now = now or timezone.now()
    waiting = waiting_seat_or_refuse(user)
    with transaction.atomic():
        board = _locked(board_id, user)
        _check_open(board)
        if board.status == ChallengeBoard.PAUSED:
            board.status, board.timeouts, board.clock_ms = ChallengeBoard.PLAYING, 0, 0
        board.seen_at = now
        board.save()
    _leave(waiting, user)
    return board


def _check_open(board: ChallengeBoard) -> None:
    if board.day.closed:
        raise Refused("challenge_closed", _("This challenge day has closed."))
    if board.status == ChallengeBoard.DONE:
        raise Refused("board_done", _("This board is over."))


def parse_action(data: Any) -> Action:
    """A move as the page sent it: ``{"type": "pass"}`` or ``{"type": "play",
    "cards": [card, …]}`` (card strings, §2).

    :raises Refused: ``bad_action`` for anything else.
    """
    if isinstance(data, dict) and data.get("type") == "pass":
        return {"type": "pass"}
    if (isinstance(data, dict) and data.get("type") == "play"
            and isinstance(data.get("cards"), list) and 0 < len(data["cards"]) <= 41
            and all(isinstance(c, str) and len(c) == 2 for c in data["cards"])):
        return {"type": "play", "cards": list(data["cards"])}
    raise Refused("bad_action", _("That is not a move."))


def act(board_id: int, user: User, seq: Any, data: Any,
        now: datetime | None = None, address: str | None = None) -> ChallengeBoard:
    """The player's move on their board, if ``seq`` is the board's current
    seq; then the bot plays up to the player's next turn or the half's end.
    A paused board is resumed by a move.

    :raises Refused: ``no_board``, ``board_done``, ``challenge_closed``,
        ``stale`` (another seq: the move was not made), ``bad_action``,
        ``seated_elsewhere``, or the engine's reason (``not_your_turn``,
        ``does_not_beat`` …). Nothing changed when it is raised, except that
        a turn that had run out was acted on first (then ``stale``).
    """
    now = now or timezone.now()
    action = parse_action(data)
    waiting = waiting_seat_or_refuse(user)
    with transaction.atomic():
        board = _locked(board_id, user)
        _check_open(board)
        if board.status == ChallengeBoard.PAUSED and seq == board.state["seq"]:
            board.status, board.timeouts, board.clock_ms = ChallengeBoard.PLAYING, 0, 0
        _tick(board, now)
        state: State = board.state
        stale = seq != state["seq"] or board.status != ChallengeBoard.PLAYING
        if not stale:
            try:
                board.state, _events = engine.apply(state, PLAYER, action)
            except engine.IllegalAction as e:
                raise Refused(e.reason, play.refusal_message(state, PLAYER, action, e)) from None
            board.clock_ms, board.timeouts = 0, 0
            if address:
                board.address_hash = address_hash(address)
            _advance(board, board.day.bot_policy, now)
        board.save()  # a stale move keeps the clock's work (a timeout acted on)
    if stale:
        raise Refused("stale", _("The board has moved on: look again."))
    _leave(waiting, user)
    return board


def why(board_id: int, user: User, data: Any) -> dict[str, Any]:
    """Would the move ``data`` (as :func:`act` takes it) be refused on the
    user's board now, and by which rule (RULES.md §3–§4)? Reads the board;
    changes nothing, not even its clock.

    :returns: ``{"seq", "legal", "reason", "message"}``: the board's seq
        and :func:`games.play.judge` of the move.
    :raises Refused: ``no_board``, ``board_done``, ``challenge_closed``,
        ``bad_action``.
    """
    action = parse_action(data)
    board = ChallengeBoard.objects.select_related("day").filter(pk=board_id, user=user).first()
    if board is None:
        raise Refused("no_board", _("There is no such board."))
    _check_open(board)
    return {"seq": board.state["seq"], **play.judge(board.state, PLAYER, action)}


def play_out(board: ChallengeBoard, now: datetime) -> None:
    """The bot plays the rest of an unfinished board, the player's seat too
    (the day's close, RULES.md §12). The caller saves the row."""
    board.by_bot = True
    _advance(board, board.day.bot_policy, now)


def refuse_if_on_board(user: User, now: datetime | None = None) -> None:
    """Refuse a seat (``seated_elsewhere``) while one of the user's boards is
    being played: unfinished, not paused, with a sign of life within
    ``CHALLENGE_GAP_SECONDS`` (a board left behind holds no seat, §12)."""
    since = (now or timezone.now()) - timedelta(seconds=settings.CHALLENGE_GAP_SECONDS)
    if ChallengeBoard.objects.filter(user=user, status=ChallengeBoard.PLAYING,
                                     seen_at__gte=since).exists():
        raise Refused("seated_elsewhere",
                      _("You are playing a daily challenge board: finish or leave it first."))
