"""A match's players live only in its MatchSide rows (issue 42), in three steps, each its own
transaction (PostgreSQL refuses to alter a table with rows written earlier in the same
transaction): this one readies the schema (each side's ups; the constraints and indexes of
the columns dropped; the sides' indexes re-planned), 0014 copies the facts (columns to rows
where missing, and back), 0015 drops the columns (`version_a`/`_b`/`_c`, `games_*`,
`stderr_*`, `points`, `ups`, `forfeit_player`, `forfeit_reason`)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("matches", "0012_match_times"),
    ]

    operations = [
        migrations.AddField(
            model_name="matchside",
            name="ups",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.RemoveConstraint(model_name="match", name="match_not_self"),
        migrations.RemoveConstraint(model_name="match", name="match_c_not_self"),
        migrations.RemoveIndex(model_name="match", name="match_version_a_recent"),
        migrations.RemoveIndex(model_name="match", name="match_version_b_recent"),
        migrations.RemoveIndex(model_name="match", name="match_version_c_newest"),
        # Nullable before the copy, so that migrating back can add them empty, fill them
        # (sides_to_columns) and only then make them required again.
        migrations.AlterField(
            model_name="match", name="version_a",
            field=models.ForeignKey(null=True, on_delete=models.deletion.PROTECT,
                                    related_name="+", to="bots.botversion"),
        ),
        migrations.AlterField(
            model_name="match", name="version_b",
            field=models.ForeignKey(null=True, on_delete=models.deletion.PROTECT,
                                    related_name="+", to="bots.botversion"),
        ),
        migrations.AlterField(
            model_name="matchside", name="match",
            field=models.ForeignKey(db_index=False, on_delete=models.deletion.CASCADE,
                                    related_name="sides", to="matches.match"),
        ),
        migrations.AlterField(
            model_name="matchside", name="version",
            field=models.ForeignKey(db_index=False, on_delete=models.deletion.PROTECT,
                                    related_name="match_sides", to="bots.botversion"),
        ),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(fields=["id"], include=["status", "ladder", "score", "finished",
                                                       "started"], name="match_side_facts"),
        ),
        migrations.RemoveIndex(model_name="matchside", name="matchside_version_recent"),
        migrations.AddIndex(
            model_name="matchside",
            index=models.Index(fields=["version", "-match"], include=["order", "games", "points"],
                               name="matchside_version_recent"),
        ),
    ]
