from django.db import migrations, models


class Migration(migrations.Migration):
    """The rated outcome of a match and a three-player match's ups (issue 35): nullable, so
    existing rows need no rewrite; `manage.py ratings_rebuild` fills the outcome for the
    matches rated before it."""

    dependencies = [
        ('matches', '0007_stderr_c_db_default'),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='outcome',
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='match',
            name='ups',
            field=models.JSONField(blank=True, null=True),
        ),
    ]
