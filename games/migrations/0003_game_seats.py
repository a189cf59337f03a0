# Per-seat game rows instead of three parallel JSON lists; the finisher's end
# reason and stored §11 record; a bot seat's level (schema; data in 0004).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0002_auto_play'),
        ('accounts', '0006_rated_wins'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='GameSeat',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('index', models.PositiveSmallIntegerField()),
                ('username', models.CharField(blank=True, max_length=150)),
                ('level', models.PositiveSmallIntegerField(default=0)),
                ('bot', models.CharField(blank=True, max_length=20)),
                ('auto_play', models.BooleanField(default=False)),
                ('timeouts', models.PositiveSmallIntegerField(default=0)),
                ('game', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='seats', to='games.game')),
                ('user', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='game_seats', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['game', 'index'],
            },
        ),
        migrations.AddField(
            model_name='game',
            name='end_reason',
            field=models.CharField(blank=True, choices=[('normal', 'normal'), ('escape', 'escape'), ('moderator_close', 'moderator_close'), ('moderator_kick', 'moderator_kick'), ('suspension', 'suspension')], max_length=20),
        ),
        migrations.AddField(
            model_name='game',
            name='record',
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='seat',
            name='bot_policy',
            field=models.CharField(blank=True, max_length=20),
        ),
        migrations.RemoveConstraint(
            model_name='seat',
            name='games_seat_one_per_user',
        ),
    ]
