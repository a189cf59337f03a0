"""``manage.py check_challenge <date> [--seed SEED]``: re-derive a closed daily
challenge day's boards from its revealed seed and check the commitment
(docs/fairness.md "The daily challenge")."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from contests import challenge
from contests.models import ChallengeBoard, ChallengeDay
from games import engine


class Command(BaseCommand):
    """Check a day: SHA-256(seed) equals the commitment shown since the day
    opened, and every board played that day was dealt from
    SHA-256(seed ":" date ":" board) by the engine's first-half deal. Prints
    each board's indicator, dao, first seat dealt to and leader; exits with an
    error on any mismatch."""

    help = "Re-derive a closed daily challenge day's boards from its seed and check them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("date", help="the day, YYYY-MM-DD (Asia/Shanghai)")
        parser.add_argument("--seed", help="the revealed seed (default: the stored one)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            day = ChallengeDay.objects.get(date=date.fromisoformat(options["date"]))
        except (ValueError, ChallengeDay.DoesNotExist):
            raise CommandError(f"no challenge on {options['date']!r}") from None
        if not day.closed and not options["seed"]:
            raise CommandError("the day is still open: its seed is secret until the close")
        seed = options["seed"] or day.server_seed
        bad = 0
        if challenge.commitment(seed) == day.commitment:
            self.stdout.write(f"commitment ok: sha256(seed) = {day.commitment}")
        else:
            bad += 1
            self.stdout.write(f"commitment mismatch: sha256(seed) != {day.commitment}")
        for number in range(1, 9):
            board_seed = challenge.board_seed(seed, day.date, number)
            deal = engine.deal_half(board_seed, 1)
            self.stdout.write(f"board {number}: seed {board_seed} indicator {deal.indicator} "
                              f"dao {deal.dao} first dealt {deal.first_dealt} "
                              f"leader {deal.indicator_seat}")
            for state in ChallengeBoard.objects.filter(day=day, number=number).values_list(
                    "state", flat=True):
                halves = state.get("halves") or []
                if state.get("seed") != board_seed or (
                        halves and halves[0]["indicator"] != deal.indicator):
                    bad += 1
                    self.stdout.write(f"board {number}: a played board mismatch")
        if bad:
            raise CommandError(f"{bad} mismatch(es)")
        self.stdout.write("all boards re-derived from the seed")
