"""Celery task of arenas (``yuanzi_site.jobs``: beat and the embedded ticker);
imported by ``ContestsConfig.ready`` so that a worker knows it."""

from __future__ import annotations

from celery import shared_task

from contests import arena_run


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]  # celery ships no types
def arena_tick() -> None:
    """Every 2 s: start, seat, lapse, end and pay out arenas (``contests.arena_run.tick``)."""

    arena_run.tick()
