"""Replays leave the database: a match's replay is an object in the replay store, the row keeps
its key and SHA-256 (matches.replay_store). Existing replays stay in replay_gz, still read from
there, until `manage.py replays_to_store` moves them. Both columns are added empty, which
PostgreSQL does without rewriting the table."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0001_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='replay_key',
            field=models.CharField(blank=True, editable=False, max_length=200),
        ),
        migrations.AddField(
            model_name='match',
            name='replay_sha256',
            field=models.CharField(blank=True, editable=False, max_length=64),
        ),
    ]
