"""A game's choices and default come from the engine's registry (issue 32): no schema
change on PostgreSQL (the column's database default stays); the check that named a game (a third
player exactly at Sergeant Major) goes, match_players_check holds it for any game."""

from django.db import migrations, models

import bots.models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0009_matchside'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='match',
            name='match_c_when_three_players',
        ),
        migrations.AlterField(
            model_name='match',
            name='game',
            field=models.CharField(choices=bots.models.game_choices, db_default='kaiser', default=bots.models.default_game, max_length=20),
        ),
    ]
