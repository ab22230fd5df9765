"""docker-compose.yml sends password reset mail over SMTP from the web container, configured
in .env, and only the web container holds the mail settings (the workers run bots)."""

from __future__ import annotations

import re

from tests.deploy.test_compose_safety import ROOT, raw_compose

MAIL_VARIABLES = ("KAISER_EMAIL_BACKEND", "EMAIL_HOST", "EMAIL_PORT", "EMAIL_HOST_USER",
                  "EMAIL_HOST_PASSWORD", "EMAIL_USE_TLS", "EMAIL_USE_SSL", "DEFAULT_FROM_EMAIL")


def test_the_web_container_sends_mail_over_smtp_set_in_dot_env() -> None:
    web = raw_compose()["services"]["web"]["environment"]
    assert web["KAISER_EMAIL_BACKEND"] == "${KAISER_EMAIL_BACKEND:-smtp}"
    for name in MAIL_VARIABLES:
        assert re.fullmatch(rf"\$\{{{name}:-[^}}]*\}}", web[name]), (name, web[name])
    assert web["DATABASE_URL"].startswith("postgres://kaiser:")  # still the shared settings


def test_only_the_web_container_holds_the_mail_settings() -> None:
    services = raw_compose()["services"]
    for name, service in services.items():
        if name == "web":
            continue
        held = set(service.get("environment") or {}) & set(MAIL_VARIABLES)
        assert held == set(), (name, held)
    assert not set(raw_compose()["x-app"]["environment"]) & set(MAIL_VARIABLES)


def test_the_example_settings_name_the_mail_server() -> None:
    example = (ROOT / ".env.example").read_text()
    assert re.search(r"^EMAIL_HOST=$", example, re.M)
    for name in MAIL_VARIABLES[2:]:
        assert re.search(rf"^#?{name}=", example, re.M), name
