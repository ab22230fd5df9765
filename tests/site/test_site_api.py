"""API-wide behaviour: the schema, the docs, throttling and the shape of errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

pytestmark = pytest.mark.django_db


def test_schema_builds_with_no_warnings(tmp_path: Path) -> None:
    out = tmp_path / "schema.yml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text()
    assert "/api/v1/bots/{id}/versions/" in text
    assert "/api/v1/auth/token/regenerate/" in text


def test_schema_and_docs_are_served(anon_client: APIClient) -> None:
    schema = anon_client.get("/api/schema/?format=json")
    assert schema.status_code == 200
    assert schema.json()["info"]["title"] == "Kaiser Arena API"
    docs = anon_client.get("/api/docs/")
    assert docs.status_code == 200
    page = docs.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    assert "cdn" not in page.lower()  # served by the site itself: works with no internet


def test_anonymous_callers_are_throttled_with_a_clear_body(
    anon_client: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "anon", "3/min")
    statuses = [anon_client.get("/api/v1/bots/").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    response = anon_client.get("/api/v1/bots/")
    assert response.json()["code"] == "throttled"
    assert response.json()["detail"].startswith("Request was throttled. Expected available in")
    assert int(response["Retry-After"]) > 0


def test_signed_in_users_have_their_own_budget(
    owner_client: APIClient, other_client: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "user", "2/min")
    assert [owner_client.get("/api/v1/bots/").status_code for _ in range(3)] == [200, 200, 429]
    assert other_client.get("/api/v1/bots/").status_code == 200


def test_uploads_have_a_stricter_rate_of_their_own(
    owner_client: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "uploads", "2/hour")
    bot = owner_client.post("/api/v1/bots/", {"name": "busy"}).json()

    def upload(i: int) -> int:
        file = SimpleUploadedFile(f"v{i}.py", f"# version {i}\n".encode())
        return owner_client.post(f"/api/v1/bots/{bot['id']}/versions/", {"file": file},
                                 format="multipart").status_code

    assert [upload(i) for i in range(3)] == [201, 201, 429]
    # Reading is not an upload: the upload budget does not touch it.
    assert owner_client.get(f"/api/v1/bots/{bot['id']}/versions/").status_code == 200


def test_unknown_api_path_is_a_json_404(anon_client: APIClient) -> None:
    response = anon_client.get("/api/v1/no-such-thing/")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found.", "code": "not_found"}


def test_unknown_page_is_an_html_404(client: object) -> None:
    response = client.get("/no-such-page/")  # type: ignore[attr-defined]
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_malformed_json_is_a_clear_400(owner_client: APIClient) -> None:
    response = owner_client.generic("POST", "/api/v1/bots/", "{not json",
                                    content_type="application/json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "parse_error"
    assert body["detail"].startswith("JSON parse error")


def test_upload_form_and_api_share_one_upload_budget(
    owner_client: APIClient, owner: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.test import Client

    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "uploads", "2/hour")
    bot = owner_client.post("/api/v1/bots/", {"name": "formy"}).json()
    api = owner_client.post(f"/api/v1/bots/{bot['id']}/versions/",
                            {"file": SimpleUploadedFile("a.py", b"# a\n")}, format="multipart")
    assert api.status_code == 201
    browser = Client()
    browser.force_login(owner)  # type: ignore[arg-type]
    url = f"/bots/{bot['id']}/upload/"
    first = browser.post(url, {"file": SimpleUploadedFile("b.py", b"# b\n")})
    assert first.status_code == 302
    second = browser.post(url, {"file": SimpleUploadedFile("c.py", b"# c\n")})
    assert second.status_code == 429
    assert "Too many uploads: try again in" in second.content.decode()


def test_schema_says_which_operations_need_no_credentials(anon_client: APIClient) -> None:
    paths = anon_client.get("/api/schema/?format=json").json()["paths"]
    assert {} in paths["/api/v1/bots/"]["get"]["security"]
    assert {} not in paths["/api/v1/bots/"]["post"]["security"]
    assert {} not in paths["/api/v1/auth/me/"]["get"]["security"]
    assert paths["/api/v1/health/"]["get"]["security"] == [{}]
