"""The scheduler's heartbeat, and turn clocks that pause while the site is down
(RULES.md §12 "The site's own outage"; DESIGN.md "Time, bots, departures").

Every sweep of the scheduler — the embedded ticker, Celery beat's
``sweep_due`` — calls :func:`beat`, which writes the ``SchedulerHeartbeat``
row (at most twice a second per process). A heartbeat older than
``GAMES_OUTAGE_SECONDS`` means nothing could act on due turns: the site counts
as down, views show ``clock_paused`` with the time frozen, and the next sweep
or due action (:func:`resume_if_down`, the first step of ``play.run_due``)
resumes every running game before anything acts: a turn that had begun before
the last heartbeat gets back what it had left then (``due_at − heartbeat``),
a turn that began during the outage gets a full turn (a human's
``GAMES_TURN_SECONDS``, a bot's or 托管 seat's pause), a person's turn also
``GAMES_RESUME_GRACE_SECONDS`` for their page to reconnect when they have no
live connection at the table then (a tester came back 6 s after the restart,
and those seconds were the outage's too; a player whose page stayed connected
through a stalled scheduler needs none), and each
human player gets a ``clock_resumed`` notice. Nobody is timed out, and no 托管 starts,
because of the site's own outage.

:func:`paused_since` and :func:`age` read the heartbeat (the views, /readyz).
Besides :mod:`games.play`, this is the only writer of ``Game.due_at``; it takes
the heartbeat row's lock before the games' (they are locked in id order).
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games import events, presence
from games.models import Game, GameEvent, SchedulerHeartbeat
from games.roster import publish_game, seat_rows

RESUMED = gettext_noop("The site was down for %(seconds)s s: the clock is running again, "
                       "with the time that was left.")

_beaten_at = 0.0  # monotonic time of this process's last write

# --- reading the heartbeat: whether the site counts as down (views, /readyz) ----------

NAME = "scheduler"

_read: tuple[float, datetime | None] = (0.0, None)  # (monotonic, heartbeat) cache


def _stale_before(now: datetime) -> datetime:
    return now - timedelta(seconds=settings.GAMES_OUTAGE_SECONDS)


def paused_since() -> datetime | None:
    """The last heartbeat if it is stale (turn clocks are paused), else ``None``;
    ``None`` too when no scheduler ever ran. Read at most once a second per
    process (views call it)."""
    global _read
    if settings.GAMES_SCHEDULER == "none":
        return None
    if time.monotonic() - _read[0] >= 1.0:
        at = SchedulerHeartbeat.objects.filter(name=NAME).values_list("at", flat=True).first()
        _read = (time.monotonic(), at)
    at = _read[1]
    if at is not None and at < _stale_before(timezone.now()):
        return at
    return None


def _forget_read() -> None:
    global _read
    _read = (0.0, None)


def age() -> float | None:
    """Seconds since the scheduler's last heartbeat, read now (uncached), or
    ``None`` if no scheduler ever ran. ``/readyz`` calls it: an age over
    ``GAMES_OUTAGE_SECONDS`` means turn clocks are paused (RULES.md §12)."""
    at = SchedulerHeartbeat.objects.filter(name=NAME).values_list("at", flat=True).first()
    return None if at is None else (timezone.now() - at).total_seconds()


# --- writing it, and resuming the clocks ---------------------------------------------


def beat() -> list[int]:
    """Record that the scheduler runs (call at every sweep, before acting).

    :returns: the ids of the games resumed because the heartbeat was stale
        (an outage ended), else ``[]``.
    """
    global _beaten_at
    if time.monotonic() - _beaten_at < 0.5:
        return []
    now = timezone.now()
    fresh = SchedulerHeartbeat.objects.filter(name=NAME, at__gte=_stale_before(now))
    if fresh.update(at=now):
        _beaten_at = time.monotonic()
        return []
    if not SchedulerHeartbeat.objects.filter(name=NAME).exists():
        try:  # the first heartbeat ever: nothing to resume
            with transaction.atomic():
                SchedulerHeartbeat.objects.create(name=NAME, at=now)
        except IntegrityError:
            pass  # another process wrote it first
        _beaten_at = time.monotonic()
        return []
    resumed = resume_if_down()
    _beaten_at = time.monotonic()
    return resumed


def resume_if_down() -> list[int]:
    """If the heartbeat is stale, resume every running game's clock (see the
    module docstring) and write a fresh heartbeat, in one transaction; the new
    views and the notices go out after commit. Cheap when the site is up (one
    read). Without a heartbeat row (no scheduler ever ran) nothing is down.

    :returns: ids of the games resumed.
    """
    now = timezone.now()
    if not SchedulerHeartbeat.objects.filter(name=NAME, at__lt=_stale_before(now)).exists():
        return []
    with transaction.atomic():
        hb = SchedulerHeartbeat.objects.select_for_update().get(name=NAME)
        now = timezone.now()
        if hb.at >= _stale_before(now):
            return []  # another caller resumed meanwhile
        last = hb.at
        games = list(Game.objects.select_for_update()
                     .filter(status=Game.PLAYING, due_at__isnull=False).order_by("pk"))
        for game in games:
            game.due_at = now + _left_at(game, last)
            game.save(update_fields=["due_at"])
            publish_game(game)
        hb.at = now
        hb.save(update_fields=["at"])
        seconds = round((now - last).total_seconds())
        for game in games:
            for row in seat_rows(game):
                if row.user_id is not None:
                    events.notify(row.user_id, "clock_resumed", lambda: _(RESUMED) % {
                        "seconds": seconds}, {"seconds": seconds, "game_id": game.pk})
    _forget_read()
    return [g.pk for g in games]


def _left_at(game: Game, last: datetime) -> timedelta:
    """The time the turn gets on resume: what it had left at ``last``, or a full
    turn if it began after ``last`` (during the outage); a person's turn (not a
    bot's, not 托管's) also ``GAMES_RESUME_GRACE_SECONDS`` to reconnect, unless
    their page is connected at the table now."""
    turn, due_at = game.state["turn"], game.due_at
    # the caller's query: a running game (a seat to act) with a due time
    assert turn is not None
    assert due_at is not None
    row = seat_rows(game)[turn]
    machine = row.is_bot or row.auto_play
    if machine:
        full = timedelta(seconds=settings.GAMES_BOT_DELAY_SECONDS)
    else:
        full = timedelta(seconds=settings.GAMES_TURN_SECONDS)
    away = not machine and row.user_id not in presence.online_users(game.table_id)
    grace = timedelta(seconds=settings.GAMES_RESUME_GRACE_SECONDS if away else 0)
    started = (GameEvent.objects.filter(game=game).order_by("-seq")
               .values_list("created_at", flat=True).first() or game.started_at)
    if started > last:
        return full + grace
    return max(timedelta(0), due_at - last) + grace  # a 定时器's extension included


def forget() -> None:
    """Drop this process's cached heartbeat reads and writes (tests)."""
    global _beaten_at
    _beaten_at = 0.0
    _forget_read()
