"""A game's choices and default come from the engine's registry (issue 32): no schema
change on PostgreSQL (the column's database default stays)."""

from django.db import migrations, models

import bots.models


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0008_tournament_game'),
    ]

    operations = [
        migrations.AlterField(
            model_name='tournament',
            name='game',
            field=models.CharField(choices=bots.models.game_choices, db_default='kaiser', default=bots.models.default_game, max_length=20),
        ),
    ]
