"""The matches' models, moved from the tournaments app with their tables (state only: the
tables keep their names, tournaments_match, tournaments_matchattempt, tournaments_playstats,
and their rows), and the admin's content types and permissions follow them."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import matches.models

MOVED = {"match": "matches", "matchattempt": "matches", "playstats": "matches",
         "ladder": "ladder", "ladderentry": "ladder", "ratingchange": "ladder"}


def content_types_follow(apps, schema_editor):
    """The moved models' content types (and so their permissions and admin log entries) take
    their new app's label, unless the new label has one already."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model, label in MOVED.items():
        if not ContentType.objects.filter(app_label=label, model=model).exists():
            ContentType.objects.filter(app_label="tournaments", model=model).update(
                app_label=label)


def content_types_back(apps, schema_editor):
    """The mirror image, when migrating back to before the split."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model, label in MOVED.items():
        if not ContentType.objects.filter(app_label="tournaments", model=model).exists():
            ContentType.objects.filter(app_label=label, model=model).update(
                app_label="tournaments")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('bots', '0002_bot_playing_version'),
        ('ladder', '0001_initial'),
        ('tournaments', '0007_models_to_matches_and_ladder'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
                migrations.CreateModel(
                    name='Match',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('rules', models.CharField(default='official', max_length=20, validators=[matches.models.validate_preset])),
                        ('games_per_match', models.PositiveIntegerField(default=2, validators=[matches.models.validate_games])),
                        ('move_ms', models.PositiveIntegerField(default=1000)),
                        ('bank_ms', models.PositiveIntegerField(default=10000)),
                        ('startup_ms', models.PositiveIntegerField(default=5000)),
                        ('kind', models.CharField(choices=[('ladder', 'Ladder'), ('challenge', 'Challenge'), ('tournament', 'Tournament')], max_length=10)),
                        ('round', models.PositiveIntegerField(blank=True, null=True)),
                        ('position', models.PositiveIntegerField(blank=True, null=True)),
                        ('rated', models.BooleanField(default=True)),
                        ('seed', models.CharField(max_length=40)),
                        ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('finished', 'Finished'), ('failed', 'Failed'), ('void', 'Void')], db_index=True, default='queued', max_length=10)),
                        ('score', models.FloatField(blank=True, null=True)),
                        ('games_a', models.PositiveIntegerField(blank=True, null=True)),
                        ('games_b', models.PositiveIntegerField(blank=True, null=True)),
                        ('forfeit_player', models.CharField(blank=True, max_length=1)),
                        ('forfeit_reason', models.CharField(blank=True, max_length=20)),
                        ('forfeit', models.JSONField(blank=True, null=True)),
                        ('replay_gz', models.BinaryField(blank=True, null=True)),
                        ('replay_size', models.PositiveIntegerField(default=0)),
                        ('stderr_a', models.TextField(blank=True)),
                        ('stderr_b', models.TextField(blank=True)),
                        ('error', models.TextField(blank=True)),
                        ('created', models.DateTimeField(auto_now_add=True)),
                        ('dispatched', models.DateTimeField(blank=True, null=True)),
                        ('started', models.DateTimeField(blank=True, null=True)),
                        ('finished', models.DateTimeField(blank=True, null=True)),
                        ('play_ms', models.PositiveIntegerField(blank=True, null=True)),
                        ('attempts', models.PositiveIntegerField(default=0)),
                        ('lease_token', models.CharField(blank=True, max_length=32)),
                        ('lease_expires', models.DateTimeField(blank=True, null=True)),
                        ('stats', models.JSONField(blank=True, editable=False, null=True)),
                        ('stats_folded', models.BooleanField(default=False)),
                        ('ladder', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='matches', to='ladder.ladder')),
                        ('requested_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='challenges', to=settings.AUTH_USER_MODEL)),
                        ('tournament', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='matches', to='tournaments.tournament')),
                        ('version_a', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='bots.botversion')),
                        ('version_b', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='bots.botversion')),
                    ],
                    options={
                        'verbose_name_plural': 'matches',
                        'db_table': 'tournaments_match',
                        'ordering': ['-created', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='MatchAttempt',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('token', models.CharField(max_length=32, unique=True)),
                        ('worker', models.CharField(blank=True, max_length=200)),
                        ('started', models.DateTimeField()),
                        ('ended', models.DateTimeField(blank=True, null=True)),
                        ('outcome', models.CharField(choices=[('running', 'Running'), ('finished', 'Finished'), ('superseded', 'Superseded'), ('infrastructure', 'Infrastructure'), ('error', 'Error'), ('lost', 'Lost')], default='running', max_length=16)),
                        ('error', models.TextField(blank=True)),
                        ('match', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='attempt_rows', to='matches.match')),
                    ],
                    options={
                        'db_table': 'tournaments_matchattempt',
                        'ordering': ['match_id', 'started'],
                    },
                ),
                migrations.CreateModel(
                    name='PlayStats',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('key', models.CharField(max_length=40, unique=True)),
                        ('data', models.JSONField(default=dict)),
                        ('updated', models.DateTimeField(auto_now=True)),
                        ('version', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='play_stats', to='bots.botversion')),
                    ],
                    options={
                        'db_table': 'tournaments_playstats',
                    },
                ),
                migrations.AddIndex(
                    model_name='match',
                    index=models.Index(fields=['status', 'dispatched'], name='tournaments_status_b0b8b1_idx'),
                ),
                migrations.AddIndex(
                    model_name='match',
                    index=models.Index(fields=['ladder', 'status'], name='tournaments_ladder__8c0cc7_idx'),
                ),
                migrations.AddIndex(
                    model_name='match',
                    index=models.Index(fields=['tournament', 'round'], name='tournaments_tournam_aefb59_idx'),
                ),
                migrations.AddIndex(
                    model_name='match',
                    index=models.Index(fields=['status', 'finished'], name='tournaments_status_ca4645_idx'),
                ),
                migrations.AddIndex(
                    model_name='match',
                    index=models.Index(fields=['version_a', '-id'], name='match_version_a_newest'),
                ),
                migrations.AddIndex(
                    model_name='match',
                    index=models.Index(fields=['version_b', '-id'], name='match_version_b_newest'),
                ),
                migrations.AddIndex(
                    model_name='match',
                    index=models.Index(condition=models.Q(('stats__isnull', False), ('stats_folded', False)), fields=['id'], name='match_stats_to_fold'),
                ),
                migrations.AddConstraint(
                    model_name='match',
                    constraint=models.CheckConstraint(condition=models.Q(('version_a', models.F('version_b')), _negated=True), name='match_not_self'),
                ),
        ]),
        migrations.RunPython(content_types_follow, content_types_back),
    ]
