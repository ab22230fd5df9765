"""Matches, ratings and the ladder leave the tournaments app for the matches and ladder apps
(state only: no table, row or constraint changes; see matches/0001 and ladder/0001)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('ladder', '0001_initial'),
        ('tournaments', '0006_match_stats'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
                migrations.RemoveField(
                    model_name='match',
                    name='ladder',
                ),
                migrations.RemoveField(
                    model_name='ladderentry',
                    name='ladder',
                ),
                migrations.AlterField(
                    model_name='tournament',
                    name='ladder',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='ladder.ladder'),
                ),
                migrations.RemoveField(
                    model_name='ladderentry',
                    name='version',
                ),
                migrations.RemoveField(
                    model_name='ratingchange',
                    name='entry',
                ),
                migrations.RemoveField(
                    model_name='match',
                    name='requested_by',
                ),
                migrations.RemoveField(
                    model_name='match',
                    name='tournament',
                ),
                migrations.RemoveField(
                    model_name='match',
                    name='version_a',
                ),
                migrations.RemoveField(
                    model_name='match',
                    name='version_b',
                ),
                migrations.RemoveField(
                    model_name='ratingchange',
                    name='match',
                ),
                migrations.RemoveField(
                    model_name='matchattempt',
                    name='match',
                ),
                migrations.RemoveField(
                    model_name='playstats',
                    name='version',
                ),
                migrations.DeleteModel(
                    name='Ladder',
                ),
                migrations.DeleteModel(
                    name='LadderEntry',
                ),
                migrations.DeleteModel(
                    name='RatingChange',
                ),
                migrations.DeleteModel(
                    name='Match',
                ),
                migrations.DeleteModel(
                    name='MatchAttempt',
                ),
                migrations.DeleteModel(
                    name='PlayStats',
                ),
        ]),
    ]
