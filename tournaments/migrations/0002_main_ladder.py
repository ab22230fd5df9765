"""The default ladder, so a fresh site has a live ladder as soon as bots arrive."""

from django.db import migrations


def create_main_ladder(apps, schema_editor):  # type: ignore[no-untyped-def]
    Ladder = apps.get_model("tournaments", "Ladder")
    Ladder.objects.get_or_create(
        slug="main",
        defaults={"name": "Main ladder", "rules": "official", "games_per_match": 2,
                  "description": "The official rules, duplicate matches of two games."},
    )


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0001_initial")]

    operations = [migrations.RunPython(create_main_ladder, migrations.RunPython.noop)]
