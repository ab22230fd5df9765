"""A person's game against bots is a Table (one class called Game: the engine's): the model
(and its table, play_table) is renamed, its rows, seats and moves kept."""

from django.conf import settings
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("play", "0003_game_choices_from_registry"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RenameModel("Game", "Table"),
        # Its indexes are named after its table.
        migrations.RenameIndex(model_name="table", new_name="play_table_owner_i_a7a478_idx",
                               old_name="play_game_owner_i_6621d6_idx"),
        migrations.RenameIndex(model_name="table", new_name="play_table_status_a219fc_idx",
                               old_name="play_game_status_5af8d9_idx"),
    ]
