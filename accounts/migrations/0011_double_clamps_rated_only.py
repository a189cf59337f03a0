"""Profiles counted the double clamps won in practice games too; the count is
of rated games only now (accounts.plugin, RULES.md §7). Each profile gives
back the practice games it won by a double clamp (never below zero: what was
counted from games since deleted stays)."""


from django.db import migrations
from django.db.models import Count, F, Q
from django.db.models.functions import Greatest

WON = (Q(index__in=(0, 2), game__state__result__winner=0)
       | Q(index__in=(1, 3), game__state__result__winner=1))


def practice_clamps_out(apps, schema_editor):
    GameSeat = apps.get_model("games", "GameSeat")
    Profile = apps.get_model("accounts", "Profile")
    rows = (GameSeat.objects.filter(WON, user__isnull=False, game__practice=True,
                                    game__state__result__double_clamp=True)
            .values("user_id").annotate(n=Count("pk")))
    for row in rows.iterator():
        Profile.objects.filter(user_id=row["user_id"]).update(
            double_clamps=Greatest(F("double_clamps") - row["n"], 0))


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0010_rep_finish_rate"),
        ("games", "0014_table_next_server_seed"),
    ]

    operations = [migrations.RunPython(practice_clamps_out, migrations.RunPython.noop)]
