"""Three-player matches (Sergeant Major): the game of a match, its third player C and C's
result and stderr. Existing rows are Kaiser matches (db_default), without C."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('bots', '0003_bot_game'),
        ('matches', '0003_boards'),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='game',
            field=models.CharField(choices=[('kaiser', 'Kaiser'), ('sergeant-major', 'Sergeant Major (9-5-2)')], db_default='kaiser', default='kaiser', max_length=20),
        ),
        migrations.AddField(
            model_name='match',
            name='games_c',
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='match',
            name='stderr_c',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='match',
            name='version_c',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='bots.botversion'),
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(fields=['version_c', '-id'], name='match_version_c_newest'),
        ),
        migrations.AddConstraint(
            model_name='match',
            constraint=models.CheckConstraint(condition=models.Q(('version_c__isnull', True), models.Q(models.Q(('version_c', models.F('version_a')), _negated=True), models.Q(('version_c', models.F('version_b')), _negated=True)), _connector='OR'), name='match_c_not_self'),
        ),
        migrations.AddConstraint(
            model_name='match',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('game', 'sergeant-major'), ('version_c__isnull', False)), models.Q(models.Q(('game', 'sergeant-major'), _negated=True), ('version_c__isnull', True)), _connector='OR'), name='match_c_when_three_players'),
        ),
    ]
