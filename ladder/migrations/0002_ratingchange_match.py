"""RatingChange's link to its match, once matches.Match exists (state only)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('ladder', '0001_initial'),
        ('matches', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
                migrations.AddField(
                    model_name='ratingchange',
                    name='match',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='rating_changes', to='matches.match'),
                ),
                migrations.AddConstraint(
                    model_name='ladderentry',
                    constraint=models.UniqueConstraint(fields=('ladder', 'version'), name='ladder_entry_unique'),
                ),
                migrations.AddConstraint(
                    model_name='ratingchange',
                    constraint=models.UniqueConstraint(fields=('match', 'entry'), name='rating_change_once'),
                ),
        ]),
    ]
