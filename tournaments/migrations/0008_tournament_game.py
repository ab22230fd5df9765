"""A tournament is of one game; existing tournaments are Kaiser tournaments."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0007_models_to_matches_and_ladder'),
    ]

    operations = [
        migrations.AddField(
            model_name='tournament',
            name='game',
            field=models.CharField(choices=[('kaiser', 'Kaiser'), ('sergeant-major', 'Sergeant Major (9-5-2)')], db_default='kaiser', default='kaiser', max_length=20),
        ),
    ]
