"""The ladder's models, moved from the tournaments app with their tables (state only:
the tables keep their names, tournaments_ladder and tournaments_ladderentry, and their rows)."""

import django.db.models.deletion
from django.db import migrations, models

import matches.models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('bots', '0002_bot_playing_version'),
        ('tournaments', '0006_match_stats'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
                migrations.CreateModel(
                    name='Ladder',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('rules', models.CharField(default='official', max_length=20, validators=[matches.models.validate_preset])),
                        ('games_per_match', models.PositiveIntegerField(default=2, validators=[matches.models.validate_games])),
                        ('move_ms', models.PositiveIntegerField(default=1000)),
                        ('bank_ms', models.PositiveIntegerField(default=10000)),
                        ('startup_ms', models.PositiveIntegerField(default=5000)),
                        ('name', models.CharField(max_length=80)),
                        ('slug', models.SlugField(max_length=40, unique=True)),
                        ('description', models.TextField(blank=True)),
                        ('active', models.BooleanField(default=True)),
                        ('queue_depth', models.PositiveIntegerField(default=4)),
                        ('created', models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        'db_table': 'tournaments_ladder',
                        'ordering': ['name'],
                    },
                ),
                migrations.CreateModel(
                    name='LadderEntry',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('elo', models.FloatField(default=1500.0)),
                        ('games', models.PositiveIntegerField(default=0)),
                        ('pinned', models.BooleanField(default=False)),
                        ('active', models.BooleanField(default=True)),
                        ('created', models.DateTimeField(auto_now_add=True)),
                        ('updated', models.DateTimeField(auto_now=True)),
                        ('ladder', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='entries', to='ladder.ladder')),
                        ('version', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ladder_entries', to='bots.botversion')),
                    ],
                    options={
                        'verbose_name_plural': 'ladder entries',
                        'db_table': 'tournaments_ladderentry',
                        'ordering': ['-elo'],
                    },
                ),
                migrations.CreateModel(
                    name='RatingChange',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('before', models.FloatField()),
                        ('after', models.FloatField()),
                        ('created', models.DateTimeField(auto_now_add=True)),
                        ('entry', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='changes', to='ladder.ladderentry')),
                    ],
                    options={
                        'db_table': 'tournaments_ratingchange',
                        'ordering': ['id'],
                    },
                ),
        ]),
    ]
