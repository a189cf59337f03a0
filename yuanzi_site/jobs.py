"""The site's periodic jobs, one table for both ways to run (DESIGN.md "Time,
bots, departures"): Celery beat's schedule is built from it in settings, and
the embedded ticker (``games.adapters.scheduler.Ticker``) runs the same tasks in
process. Pure data: settings import it.

Each entry: (name, dotted Celery task, interval in seconds). The embedded
ticker runs the due-turn sweep on every tick (0.2 s) instead of every second,
because eager Celery has no countdown tasks to time turns exactly.
"""

from __future__ import annotations

PERIODIC_JOBS: tuple[tuple[str, str, float], ...] = (
    ("sweep-due-turns", "games.tasks.sweep_due", 1.0),
    ("housekeeping", "games.tasks.housekeeping", 10.0),
    ("recompute-leaderboard", "accounts.tasks.recompute_leaderboard", 60.0),
    # 周榜 (contests.weekly): this week's board, last week's badges
    ("recompute-weekly", "contests.tasks.recompute_weekly", 60.0),
    # 消息 are kept 90 days
    ("purge-notifications", "accounts.tasks.purge_notifications", 3600.0),
    # fair-play signals of every pair, from the stored records
    ("moderation-fairplay", "moderation.tasks.compute_fairplay", 3600.0),
    # arenas: start, seat the queue in fours, lapse unconfirmed tables, pay out
    ("contests-arenas", "contests.arena_tasks.arena_tick", 2.0),
    # the daily challenge: today's committed day, and the close at 00:30
    ("challenge-tick", "contests.challenge_tasks.tick", 60.0),
)
SWEEP_JOB = "sweep-due-turns"
