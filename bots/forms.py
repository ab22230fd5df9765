from django import forms
from django.conf import settings

from bots.models import BOT_NAME_VALIDATOR, default_game, game_choices


class BotForm(forms.Form):
    """Name and description; the service validates them (rules, uniqueness in any case)."""

    name = forms.CharField(max_length=40, help_text=BOT_NAME_VALIDATOR.message)
    description = forms.CharField(
        required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 4})
    )


class BotCreateForm(BotForm):
    """A new bot: its game too, chosen once (every version of the bot plays it)."""

    # Not required: a form posted without it (a script written before the second game) makes
    # a bot of the default game, as the API does.
    game = forms.ChoiceField(choices=game_choices, initial=default_game, required=False,
                             help_text="The game this bot plays; it cannot change later.")

    def clean_game(self) -> str:
        return self.cleaned_data.get("game") or default_game()


class UploadForm(forms.Form):
    file = forms.FileField(
        help_text="A single .py file, or a .zip with bot.py or a bot.json manifest at its root "
        f"(at most {settings.KAISER_UPLOAD_MAX_BYTES // 2**20} MB)."
    )
