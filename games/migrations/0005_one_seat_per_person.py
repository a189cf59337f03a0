# One seat per person on the whole site (RULES.md §12); the JSON lists that
# GameSeat replaced are dropped.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [('games', '0004_game_seats_data')]

    operations = [
        migrations.RemoveField(model_name='game', name='auto_play'),
        migrations.RemoveField(model_name='game', name='players'),
        migrations.RemoveField(model_name='game', name='timeouts'),
        migrations.AddConstraint(
            model_name='seat',
            constraint=models.UniqueConstraint(condition=models.Q(('user__isnull', False)), fields=('user',), name='games_seat_one_per_person'),
        ),
        migrations.AddIndex(
            model_name='gameseat',
            index=models.Index(fields=['user', 'game'], name='games_gameseat_user_game'),
        ),
        migrations.AddConstraint(
            model_name='gameseat',
            constraint=models.UniqueConstraint(fields=('game', 'index'), name='games_gameseat_unique'),
        ),
    ]
