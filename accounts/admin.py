"""The admin's login counts failed passwords like the site's (accounts.login_limits), and a
refusal by those limits answers 429 with Retry-After there too (kaiser_site.urls routes
/admin/login/ here, before the admin's own URLs)."""

from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from accounts.forms import AdminLoginForm

admin.site.login_form = AdminLoginForm


def admin_login(request: HttpRequest) -> HttpResponse:
    """The admin's own login view; its response is a 429 when the limits refused the form."""
    response = admin.site.login(request)
    form = (getattr(response, "context_data", None) or {}).get("form")
    refused = getattr(form, "refused", None)
    if refused is not None:
        response.status_code = 429
        response["Retry-After"] = str(refused.wait)
    return response
