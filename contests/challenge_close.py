"""The daily challenge's close (RULES.md §12 "Daily challenge", "Coin sources").

A day closes at 00:30 the next day (``contests.challenge.close_time``): the
periodic job (``contests.challenge_tasks.tick``: Celery beat and the embedded
ticker) closes every day due, and so does the first use of the challenge after
that time (:func:`close_due`, called by its pages and API). In one transaction,
with the day's row locked (so a second closer waits and then finds it closed:
the close happens once):

1. every unfinished board is played out by the bot, the player's seat too;
2. the final matchpoints of every board and each ranked entry's result and
   place are stored (``contests.challenge_scores``);
3. a day with at least ``CHALLENGE_PRIZE_MIN_PLAYERS`` ranked results pays the
   top ⌈``CHALLENGE_PRIZE_SHARE`` × n⌉ places (everyone tied at the boundary
   is paid): place p gets ``CHALLENGE_PRIZES[p − 1]``, later places
   ``CHALLENGE_PRIZE_REST``, through ``shop.ledger`` (reason ``challenge``) with
   a notification (``challenge_prize``);
4. ``closed_at`` is set, which reveals the seed and every board.
"""

from __future__ import annotations

import math
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts import inbox
from contests import achievements, challenge
from contests.challenge_play import play_out
from contests.challenge_scores import standings
from contests.models import ChallengeBoard, ChallengeDay, ChallengeEntry
from shop import ledger
from shop.models import CoinEntry


def prize_for(place: int) -> int:
    """The coins of a paid ``place`` (1 = best) on the settings' scale."""
    prizes = settings.CHALLENGE_PRIZES
    return int(prizes[place - 1]) if place <= len(prizes) else int(settings.CHALLENGE_PRIZE_REST)


def paid_places(ranked_count: int) -> int:
    """How many places a day with ``ranked_count`` ranked results pays: none
    under ``CHALLENGE_PRIZE_MIN_PLAYERS``, else ⌈share × count⌉."""
    if ranked_count < settings.CHALLENGE_PRIZE_MIN_PLAYERS:
        return 0
    return math.ceil(settings.CHALLENGE_PRIZE_SHARE * ranked_count - 1e-9)


def close_day(day_id: int, now: datetime | None = None) -> bool:
    """Close the day ``day_id`` (module docstring), once.

    :returns: ``True`` if this call closed it, ``False`` if it was already
        closed (idempotent: nothing is paid twice).
    """
    now = now or timezone.now()
    with transaction.atomic():
        day = ChallengeDay.objects.select_for_update().get(pk=day_id)
        if day.closed:
            return False
        # every board of the day locked (day → boards, the order moves never invert:
        # they lock one board and read the day): no move lands after the scores
        rows = list(ChallengeBoard.objects.select_for_update().filter(day=day).order_by("pk"))
        for board in rows:
            if board.status != ChallengeBoard.DONE:
                board.day = day
                play_out(board, now)
                board.save()
        table = standings(day)
        boards = {(b.user_id, b.number): b for b in ChallengeBoard.objects.filter(day=day)}
        for player in table:
            for number, points in player.points.items():
                boards[(player.user_id, number)].matchpoints = points
        ChallengeBoard.objects.bulk_update(boards.values(), ["matchpoints"])
        entries = {e.user_id: e for e in ChallengeEntry.objects.filter(day=day)}
        ranked = [p for p in table if p.ranked and p.result is not None]
        paid = paid_places(len(ranked))
        for player in table:
            entry = entries[player.user_id]
            entry.result = player.result
            entry.place = player.place if player.ranked else None
            if player.ranked and player.place is not None and player.place <= paid:
                entry.prize = prize_for(player.place)
        ChallengeEntry.objects.bulk_update(entries.values(), ["result", "place", "prize"])
        for entry in sorted(entries.values(), key=lambda e: e.user_id):  # lock order
            if entry.prize:
                ledger.credit(entry.user_id, entry.prize, CoinEntry.Reason.CHALLENGE,
                              note=f"challenge {day.date.isoformat()} place {entry.place}")
                inbox.post(entry.user_id, "challenge_prize",
                           {"date": day.date.isoformat(), "place": entry.place,
                            "coins": entry.prize}, f"/challenge/{day.date.isoformat()}/")
                achievements.grant(entry.user_id, "challenge_top10")  # a paid place is the top 10 %
        day.closed_at = now
        day.save(update_fields=["closed_at"])
    return True


def close_due(now: datetime | None = None) -> int:
    """Close every open day whose close time has passed; returns how many this
    call closed. Cheap when none is due (one query)."""
    now = now or timezone.now()
    # a day whose date is before yesterday (local) is surely due; yesterday's at 00:30
    today = challenge.local_date(now)
    closed = 0
    for day in ChallengeDay.objects.filter(closed_at__isnull=True, date__lt=today):
        if challenge.close_time(day.date) <= now and close_day(day.pk, now):
            closed += 1
    return closed


def tick(now: datetime | None = None) -> None:
    """The periodic job: make today's day (its commitment is public from the
    start) and close the days due."""
    challenge.today(now)
    close_due(now)
