"""``manage.py check_ledger``: prove the coins ledger (DESIGN.md "Money and points")."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from shop import ledger


class Command(BaseCommand):
    help = (
        "Check that every balance equals the sum of its coin entries and its last "
        "entry's balance_after, and that every multi-party transfer sums to zero. "
        "Prints one summary line; exits non-zero listing every difference."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        """Print ``ledger.audit()``'s differences (stderr) and summary; raise
        ``CommandError`` (exit status 1) when there is any difference."""
        result = ledger.audit()
        for line in result.differences:
            self.stderr.write(line)
        if not result.ok:
            raise CommandError(result.summary())
        self.stdout.write(result.summary())
