"""Each table's next server seed, committed to before its players' seeds are
sent (games/fairness.py); every existing table gets a seed of its own."""

import secrets

from django.db import migrations, models

import games.models


def seed_each(apps, schema_editor):
    Table = apps.get_model("games", "Table")
    for pk in Table.objects.values_list("pk", flat=True).iterator():
        Table.objects.filter(pk=pk).update(next_server_seed=secrets.token_hex(16))


class Migration(migrations.Migration):

    dependencies = [("games", "0013_review_kinds")]

    operations = [
        migrations.AddField(
            model_name="table", name="next_server_seed",
            field=models.CharField(default=games.models.new_server_seed, editable=False,
                                   max_length=32)),
        migrations.RunPython(seed_each, migrations.RunPython.noop),
    ]
