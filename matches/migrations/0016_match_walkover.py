"""Match.Status.WALKOVER: a match never played but scored (a tournament's, against an entrant
who withdrew). The walkovers stored before it as void matches with a score (their error says
"walkover: ...") become walkovers, and back."""

from typing import Any

from django.db import migrations, models

WALKOVER_ERROR = "walkover:"


def void_to_walkover(apps: Any, schema_editor: Any) -> None:
    Match = apps.get_model("matches", "Match")
    Match.objects.filter(status="void", tournament__isnull=False,
                         error__startswith=WALKOVER_ERROR).update(status="walkover")


def walkover_to_void(apps: Any, schema_editor: Any) -> None:
    Match = apps.get_model("matches", "Match")
    Match.objects.filter(status="walkover").update(status="void")


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0015_match_side_columns_drop'),
    ]

    operations = [
        migrations.AlterField(
            model_name='match',
            name='status',
            field=models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('finished', 'Finished'), ('failed', 'Failed'), ('void', 'Void'), ('walkover', 'Walkover')], db_index=True, default='queued', max_length=10),
        ),
        migrations.RunPython(void_to_walkover, walkover_to_void),
    ]
