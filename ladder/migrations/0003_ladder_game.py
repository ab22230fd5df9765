"""Each ladder ranks the bots of one game; existing ladders are Kaiser ladders."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('ladder', '0002_ratingchange_match'),
    ]

    operations = [
        migrations.AddField(
            model_name='ladder',
            name='game',
            field=models.CharField(choices=[('kaiser', 'Kaiser'), ('sergeant-major', 'Sergeant Major (9-5-2)')], db_default='kaiser', default='kaiser', max_length=20),
        ),
    ]
