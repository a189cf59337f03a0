"""``manage.py grant_coins USER AMOUNT --reason TEXT``: an audited grant
(RULES.md §12 "Coins": audited moderator grants)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from shop import ledger


class Command(BaseCommand):
    help = (
        "Give USER (a username) AMOUNT coins, or take them with a negative AMOUNT, "
        "as a ledger entry of reason 'grant' carrying --reason. Taking more than "
        "the balance is refused, never clamped."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("user", help="username")
        parser.add_argument("amount", type=int, help="coins, negative to take")
        parser.add_argument(
            "--reason", required=True, help=f"why (stored on the entry, ≤ {ledger.MAX_NOTE} chars)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Write one ``grant`` entry; ``CommandError`` (exit 1, nothing written)
        for an unknown user, a blank reason, or any ``LedgerError`` (its code
        first, e.g. ``not_enough_coins``)."""
        username, amount = options["user"], options["amount"]
        note = options["reason"].strip()
        if not note:
            raise CommandError("bad_note: --reason must say why")
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"unknown_user: no user named {username!r}")
        move = ledger.credit if amount > 0 else ledger.debit
        try:
            with transaction.atomic():
                entry = move(user, abs(amount), ledger.Reason.GRANT, note=note)
        except ledger.LedgerError as e:
            raise CommandError(f"{e.code}: {e.message}") from e
        self.stdout.write(
            f"{username}: {entry.amount:+d} coins, balance {entry.balance_after} (entry {entry.pk})"
        )
