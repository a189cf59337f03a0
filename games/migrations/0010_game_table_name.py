"""Keep the table's name with each game (a replay is titled as the game
was played, not with the table's current name). Games from before get
their table's name as it is now: the best that is known of them."""

from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def copy_current_names(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    Table = apps.get_model("games", "Table")
    Game.objects.filter(table_name="").update(
        table_name=Subquery(Table.objects.filter(pk=OuterRef("table_id")).values("name")[:1]))


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0009_table_private_invite"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="table_name",
            field=models.CharField(blank=True, max_length=40),
        ),
        migrations.RunPython(copy_current_names, migrations.RunPython.noop),
    ]
