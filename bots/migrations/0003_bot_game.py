"""A bot plays one game, chosen when it is made; existing bots play Kaiser."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('bots', '0002_bot_playing_version'),
    ]

    operations = [
        migrations.AddField(
            model_name='bot',
            name='game',
            field=models.CharField(choices=[('kaiser', 'Kaiser'), ('sergeant-major', 'Sergeant Major (9-5-2)')], db_default='kaiser', default='kaiser', max_length=20),
        ),
    ]
