"""What every bench's tiny run in the suite shares."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture
def bench_env(tmp_path: Path) -> dict[str, str]:
    var = tmp_path / "var"
    var.mkdir()
    var.chmod(0o755)  # the sandboxed bots run as another user and read their programs here
    return {**os.environ, "KAISER_VAR_DIR": str(var), "PYTHONUNBUFFERED": "1"}
