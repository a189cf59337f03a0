"""Celery tasks of the games app (DESIGN.md "Time, bots, departures")."""

from __future__ import annotations

from celery import shared_task

from games import deserted, play, presence, tables


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]  # celery ships no types
def run_due(game_id: int, seq: int) -> bool:
    """Act for the seat to move of game ``game_id`` if it is still at ``seq`` and due."""

    return play.run_due(game_id, seq)


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]  # celery ships no types
def sweep_due() -> int:
    """Beat's sweep every second: act on every due game (covers lost tasks, restarts)."""

    return play.sweep_due()


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]  # celery ships no types
def housekeeping() -> None:
    """Beat, every 10 s: drop connections whose heartbeats stopped, leave practice
    games their players have all left (``games.deserted``), close idle tables."""

    presence.expire_presence()
    deserted.leave_deserted_practice()
    tables.close_idle_tables()


@shared_task(ignore_result=True, acks_late=True)  # type: ignore[untyped-decorator]  # celery ships no types
def run_review(review_id: int) -> bool:
    """复盘: make review ``review_id`` if it is still queued (``games.reviews.run``),
    then any other queued one (a task lost with Redis must not strand its row).
    Routed to the ``review`` queue (``CELERY_TASK_ROUTES``), which only the
    review worker consumes (``celery -A yuanzi_site worker -Q review``)."""
    from games import reviews

    ran = reviews.run(review_id)
    while reviews.run_next():
        pass
    return ran
