"""The bot's matches per side, newest first, with the columns the bot page, the leaderboard's
statistics and head to head read (index-only scans at a million matches; issue 21)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0005_match_points'),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='match',
            name='match_version_a_newest',
        ),
        migrations.RemoveIndex(
            model_name='match',
            name='match_version_b_newest',
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(fields=['version_a', '-id'], include=('status', 'ladder', 'score', 'finished', 'started', 'version_b'), name='match_version_a_recent'),
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(fields=['version_b', '-id'], include=('status', 'ladder', 'score', 'finished', 'started', 'version_a'), name='match_version_b_recent'),
        ),
    ]
