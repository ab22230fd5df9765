"""Each ladder's rated results added up per pair of versions (PairTally), which the fitted
ratings read instead of every match (issue 21), filled from the matches already rated."""

import django.db.models.deletion
from django.db import migrations, models


def fill(apps, schema_editor):  # type: ignore[no-untyped-def]
    from ladder.services import pair_tallies_rebuild

    pair_tallies_rebuild(match_model=apps.get_model("matches", "Match"),
                         tally_model=apps.get_model("ladder", "PairTally"),
                         using=schema_editor.connection.alias)


class Migration(migrations.Migration):

    dependencies = [
        ('bots', '0003_bot_game'),
        ('ladder', '0005_board_indexes'),
        ('matches', '0007_stderr_c_db_default'),
    ]

    operations = [
        migrations.CreateModel(
            name='PairTally',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('games', models.PositiveIntegerField(default=0)),
                ('low_wins', models.FloatField(default=0.0)),
                ('high', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='bots.botversion')),
                ('ladder', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='ladder.ladder')),
                ('low', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='bots.botversion')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('ladder', 'low', 'high'), name='pair_tally_once'), models.CheckConstraint(condition=models.Q(('low__lt', models.F('high'))), name='pair_tally_low_first')],
            },
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
