"""复盘 of records other than games (a daily challenge board): a review names
its record by ``kind`` and ``ref``; a game's row keeps its ``game`` (``ref`` its id)."""

import django.db.models.deletion
from django.db import migrations, models


def refs_of_games(apps, schema_editor):
    GameReview = apps.get_model("games", "GameReview")
    GameReview.objects.update(ref=models.F("game_id"))


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0012_game_review'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='gamereview',
            name='games_review_once_per_seat',
        ),
        migrations.AddField(
            model_name='gamereview',
            name='kind',
            field=models.CharField(default='game', max_length=20),
        ),
        migrations.AddField(
            model_name='gamereview',
            name='ref',
            field=models.PositiveBigIntegerField(null=True),
        ),
        migrations.RunPython(refs_of_games, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='gamereview',
            name='ref',
            field=models.PositiveBigIntegerField(),
        ),
        migrations.AlterField(
            model_name='gamereview',
            name='game',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='reviews', to='games.game'),
        ),
        migrations.AddConstraint(
            model_name='gamereview',
            constraint=models.UniqueConstraint(fields=('kind', 'ref', 'seat'), name='games_review_once_per_record_seat'),
        ),
        migrations.AddConstraint(
            model_name='gamereview',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('game__isnull', False), ('kind', 'game'), ('ref', models.F('game'))), models.Q(models.Q(('kind', 'game'), _negated=True), ('game__isnull', True)), _connector='OR'), name='games_review_game_or_other_kind'),
        ),
    ]
