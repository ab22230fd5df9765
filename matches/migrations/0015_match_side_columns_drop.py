"""The side columns of a match dropped (issue 42): its sides' rows hold every fact of them
(0014 copied them; migrated back, 0014 fills the columns again)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("matches", "0014_match_sides_copy"),
    ]

    operations = [
        *[migrations.RemoveField(model_name="match", name=name) for name in (
            "version_a", "version_b", "version_c", "games_a", "games_b", "games_c",
            "stderr_a", "stderr_b", "stderr_c", "points", "ups", "forfeit_player",
            "forfeit_reason")],
    ]
