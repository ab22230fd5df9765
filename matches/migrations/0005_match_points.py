"""Each side's points of a three-player match, which its pairwise ratings need."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0004_three_players'),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='points',
            field=models.JSONField(blank=True, null=True),
        ),
    ]
