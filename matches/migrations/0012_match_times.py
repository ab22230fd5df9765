from django.db import migrations, models


class Migration(migrations.Migration):
    """Each match's decision times beside its replay (matches.times_store): their object's
    key and hash. Matches finished before have none (empty)."""

    dependencies = [
        ("matches", "0011_strict_time"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="times_key",
            field=models.CharField(blank=True, db_default="", default="", editable=False,
                                   max_length=200),
        ),
        migrations.AddField(
            model_name="match",
            name="times_sha256",
            field=models.CharField(blank=True, db_default="", default="", editable=False,
                                   max_length=64),
        ),
    ]
