"""The house bots of both games on their ladders (issue 34): a fresh or upgraded site has them
as it has the ladders, so a lone author's first bot of either game has a table to play at.
Before this only `manage.py arena_seed` (the production container's start) and `seed_demo`
(run.sh's demo data, Kaiser's only) made them."""

from django.conf import settings
from django.db import migrations


def install(apps, schema_editor):  # type: ignore[no-untyped-def]
    from ladder.services import house_bots_install

    house_bots_install(apps=apps)


class Migration(migrations.Migration):
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("bots", "0003_bot_game"),
        ("ladder", "0006_pair_tally"),
        ("tournaments", "0002_main_ladder"),
    ]

    operations = [migrations.RunPython(install, migrations.RunPython.noop)]
