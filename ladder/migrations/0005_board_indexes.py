"""A page of the leaderboard walked in an index by Elo, and an entry's last ratings read from
an index alone (issue 21)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('ladder', '0004_sergeant_major_ladder'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='ladderentry',
            index=models.Index(condition=models.Q(('active', True)), fields=['ladder', '-elo', 'id'], include=('games', 'pinned'), name='ladder_entry_board'),
        ),
        migrations.AddIndex(
            model_name='ratingchange',
            index=models.Index(fields=['entry', '-id'], include=('before', 'after', 'created'), name='rating_change_recent'),
        ),
    ]
