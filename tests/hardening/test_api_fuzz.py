"""Schemathesis against the project's own OpenAPI schema (/api/schema/), in-process over WSGI,
anonymously and as staff (who may call every operation): no response is a 500, and every
response matches the schema (status code, content type, headers, body)."""

from __future__ import annotations

import os

import pytest
import schemathesis
from django.contrib.auth.models import User
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.specs.openapi.checks import ignored_auth

from bots.models import Bot
from bots.services import bot_builtin_add

pytestmark = pytest.mark.django_db
# Reads are open to anyone and also take a token (to see one's own stderr): the schema says
# so with an empty security requirement, which this check does not honour.
EXCLUDED = [ignored_auth]
# Examples per operation and caller: small in CI; KAISER_FUZZ_EXAMPLES=200 for a long run.
EXAMPLES = int(os.environ.get("KAISER_FUZZ_EXAMPLES", "8"))


@pytest.fixture
def api_schema(db):  # type: ignore[no-untyped-def]
    # As Django's test client does: the test's database connection outlives each request.
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield schemathesis.from_wsgi("/api/schema/?format=json", get_wsgi_application())
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@pytest.fixture
def staff_token(db: None) -> str:
    """A staff user's token, and some bots to find (ids 1, 2... as the fuzzer guesses)."""
    staff = User.objects.create_user("fuzz-staff", password="x-fuzz-x", is_staff=True)
    for name in ("one", "two"):
        bot_builtin_add(bot=Bot.objects.create(owner=staff, name=name),
                                spec="builtin:random")
    return Token.objects.create(user=staff).key


schema = schemathesis.from_pytest_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_api_operation_answers_within_its_schema_and_never_500(  # type: ignore[no-untyped-def]
    case, staff_token
):
    case.call_and_validate(excluded_checks=EXCLUDED)
    case.call_and_validate(headers={"Authorization": f"Token {staff_token}"},
                           excluded_checks=EXCLUDED)
