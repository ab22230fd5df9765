"""The Sergeant Major ladder, so a fresh or upgraded site ranks bots of the second game too.
Its matches are one set (three games over the same deals, the seats rotated) of the preset
with a known length: six hands a game, the totals of ups and downs decide."""

from django.db import migrations

SLUG = "sergeant-major"


def create_sergeant_major_ladder(apps, schema_editor):  # type: ignore[no-untyped-def]
    Ladder = apps.get_model("ladder", "Ladder")
    Ladder.objects.get_or_create(
        slug=SLUG,
        defaults={"name": "Sergeant Major ladder", "game": "sergeant-major",
                  "rules": "952-six-hands", "games_per_match": 3,
                  "description": "Sergeant Major (9-5-2), six hands a game; each match plays "
                                 "the same deals three times, the seats rotated."},
    )


def remove_sergeant_major_ladder(apps, schema_editor):  # type: ignore[no-untyped-def]
    Ladder = apps.get_model("ladder", "Ladder")
    Ladder.objects.filter(slug=SLUG, matches__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("ladder", "0003_ladder_game")]

    operations = [migrations.RunPython(create_sergeant_major_ladder,
                                       remove_sergeant_major_ladder)]
