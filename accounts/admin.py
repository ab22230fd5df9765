"""The admin's login counts failed passwords like the site's (accounts.login_limits)."""

from django.contrib import admin

from accounts.forms import AdminLoginForm

admin.site.login_form = AdminLoginForm
