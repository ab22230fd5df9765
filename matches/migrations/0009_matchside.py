"""A match's players as rows (issue 32): `MatchSide`, one a side, made for every match from
the columns that held them (`version_a`/`_b`/`_c`, `games_*`, `stderr_*`, `points`, the
forfeit). The columns stay, holding the same values, while the readers move to the rows."""

import django.db.models.deletion
from django.db import migrations, models

BATCH = 2000
LETTERS = "ABC"


def sides_of(match):
    """The rows of one match, from its columns (historical model: no properties)."""
    versions = [match.version_a_id, match.version_b_id, match.version_c_id]
    games = [match.games_a, match.games_b, match.games_c]
    stderr = [match.stderr_a, match.stderr_b, match.stderr_c]
    points = match.points or {}
    for order, version_id in enumerate(versions):
        if version_id is None:
            continue
        letter = LETTERS[order]
        yield {"match_id": match.pk, "order": order, "version_id": version_id,
               "games": games[order],
               "points": float(points[letter]) if letter in points else None,
               "stderr": stderr[order] or "",
               "fault": match.forfeit_reason if match.forfeit_player == letter else ""}


def sides_fill(apps, schema_editor):
    Match = apps.get_model("matches", "Match")
    MatchSide = apps.get_model("matches", "MatchSide")
    fields = ("pk", "version_a_id", "version_b_id", "version_c_id", "games_a", "games_b",
              "games_c", "stderr_a", "stderr_b", "stderr_c", "points", "forfeit_player",
              "forfeit_reason")
    rows = []
    for match in Match.objects.only(*fields).order_by("pk").iterator(chunk_size=BATCH):
        rows.extend(MatchSide(**side) for side in sides_of(match))
        if len(rows) >= BATCH:
            MatchSide.objects.bulk_create(rows)
            rows = []
    MatchSide.objects.bulk_create(rows)


class Migration(migrations.Migration):

    dependencies = [
        ("bots", "0001_initial"),
        ("matches", "0008_match_outcome"),
    ]

    operations = [
        migrations.CreateModel(
            name="MatchSide",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True,
                                           serialize=False, verbose_name="ID")),
                ("order", models.PositiveSmallIntegerField()),
                ("games", models.PositiveIntegerField(blank=True, null=True)),
                ("points", models.FloatField(blank=True, null=True)),
                ("stderr", models.TextField(blank=True, default="")),
                ("fault", models.CharField(blank=True, max_length=20)),
                ("match", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                            related_name="sides", to="matches.match")),
                ("version", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT,
                                              related_name="match_sides",
                                              to="bots.botversion")),
            ],
            options={
                "ordering": ["match_id", "order"],
                "indexes": [models.Index(fields=["version", "-match"],
                                         name="matchside_version_recent")],
                "constraints": [
                    models.UniqueConstraint(fields=("match", "order"),
                                            name="matchside_order_once"),
                    models.UniqueConstraint(fields=("match", "version"),
                                            name="matchside_version_once"),
                ],
            },
        ),
        migrations.RunPython(sides_fill, migrations.RunPython.noop),
    ]
