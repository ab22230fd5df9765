from django import forms
from django.conf import settings

from bots.models import Bot


class BotForm(forms.ModelForm):
    class Meta:
        model = Bot
        fields = ["name", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 4})}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["name"].validators = []  # the service checks the name (any case)


class UploadForm(forms.Form):
    file = forms.FileField(
        help_text="A single .py file, or a .zip with bot.py or a bot.json manifest at its root "
        f"(at most {settings.KAISER_UPLOAD_MAX_BYTES // 2**20} MB)."
    )
