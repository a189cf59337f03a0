"""An opening-balance entry for every existing account (amount = its coins), so
that every balance equals the sum of its entries from the ledger's first day
(``manage.py check_ledger``). Accounts that already have entries are left alone,
so running it again writes nothing twice."""

from django.db import migrations

NOTE = "balance when the ledger began"


def open_balances(apps, schema_editor):
    Profile = apps.get_model("accounts", "Profile")
    CoinEntry = apps.get_model("shop", "CoinEntry")
    have = CoinEntry.objects.values("user_id")
    CoinEntry.objects.bulk_create(
        (
            CoinEntry(user_id=p.user_id, amount=p.coins, balance_after=p.coins,
                      reason="opening", note=NOTE)
            for p in Profile.objects.exclude(user_id__in=have).order_by("user_id").iterator()
        ),
        batch_size=1000,
    )


def close_balances(apps, schema_editor):
    apps.get_model("shop", "CoinEntry").objects.filter(reason="opening").delete()


class Migration(migrations.Migration):

    dependencies = [
        ("shop", "0001_initial"),
        ("accounts", "0005_profile_coins_from_ledger"),
    ]

    operations = [migrations.RunPython(open_balances, close_balances)]
