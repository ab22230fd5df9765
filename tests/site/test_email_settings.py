"""The mail backend comes from the environment (kaiser_site/settings.py): each case starts a
fresh Python with that environment, loads the settings and sends one mail through Django,
then looks where it went: a file under var/mail/ by default, the process's output for
"console", and a real SMTP conversation (a small server here, with AUTH PLAIN) for "smtp"."""

from __future__ import annotations

import base64
import os
import socketserver
import subprocess
import sys
import threading
from collections.abc import Iterator
from email import message_from_bytes
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEND = """
import django
django.setup()
from django.conf import settings
from django.core.mail import send_mail
print("BACKEND", settings.EMAIL_BACKEND)
send_mail("Hello from the arena", "The body of the mail.", None, ["ada@example.com"])
"""


def _send(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run SEND with the test's environment minus every mail variable, plus `env`."""
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("EMAIL_", "KAISER_EMAIL_", "DEFAULT_FROM_EMAIL"))}
    full = {**base, "DJANGO_SETTINGS_MODULE": "kaiser_site.settings",
            "KAISER_VAR_DIR": str(tmp_path / "var"), **env}
    return subprocess.run([sys.executable, "-c", SEND], cwd=ROOT, env=full, text=True,
                          capture_output=True, timeout=60)


def test_the_default_is_a_file_under_var_mail(tmp_path: Path) -> None:
    result = _send(tmp_path, DEFAULT_FROM_EMAIL="Kaiser Arena <arena@example.org>")
    assert result.returncode == 0, result.stderr
    assert "BACKEND django.core.mail.backends.filebased.EmailBackend" in result.stdout
    files = list((tmp_path / "var" / "mail").iterdir())
    assert len(files) == 1
    message = message_from_bytes(files[0].read_bytes())
    assert message["Subject"] == "Hello from the arena"
    assert message["From"] == "Kaiser Arena <arena@example.org>"
    assert message["To"] == "ada@example.com"


def test_the_file_backend_writes_to_kaiser_email_dir(tmp_path: Path) -> None:
    result = _send(tmp_path, KAISER_EMAIL_BACKEND="file", KAISER_EMAIL_DIR=str(tmp_path / "m"))
    assert result.returncode == 0, result.stderr
    [written] = list((tmp_path / "m").iterdir())
    assert b"Subject: Hello from the arena" in written.read_bytes()
    assert not (tmp_path / "var" / "mail").exists()


def test_console_prints_the_mail(tmp_path: Path) -> None:
    result = _send(tmp_path, KAISER_EMAIL_BACKEND="Console")
    assert result.returncode == 0, result.stderr
    assert "Subject: Hello from the arena" in result.stdout
    assert "The body of the mail." in result.stdout
    assert not (tmp_path / "var" / "mail").exists()


class SMTPServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _SMTPConversation)
        self.commands: list[str] = []
        self.messages: list[bytes] = []


class _SMTPConversation(socketserver.StreamRequestHandler):
    """Just enough SMTP for smtplib: EHLO with AUTH PLAIN, MAIL, RCPT, DATA, QUIT."""

    server: SMTPServer

    def handle(self) -> None:
        self._reply("220 test.invalid ESMTP")
        while line := self.rfile.readline():
            command = line.decode().strip()
            self.server.commands.append(command)
            verb = command.split(" ", 1)[0].upper()
            if verb == "EHLO":
                self._reply("250-test.invalid", "250 AUTH PLAIN")
            elif verb == "AUTH":
                self._reply("235 2.7.0 Authentication successful")
            elif verb == "DATA":
                self._reply("354 End data with <CR><LF>.<CR><LF>")
                self.server.messages.append(self._data())
                self._reply("250 2.0.0 queued")
            elif verb == "QUIT":
                self._reply("221 2.0.0 bye")
                return
            else:
                self._reply("250 2.0.0 OK")

    def _data(self) -> bytes:
        lines = []
        while (line := self.rfile.readline()) not in (b".\r\n", b""):
            lines.append(line)
        return b"".join(lines)

    def _reply(self, *lines: str) -> None:
        self.wfile.write("".join(f"{line}\r\n" for line in lines).encode())


@pytest.fixture
def smtp_server() -> Iterator[SMTPServer]:
    server = SMTPServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_smtp_sends_to_the_configured_server(tmp_path: Path, smtp_server: SMTPServer) -> None:
    result = _send(
        tmp_path,
        KAISER_EMAIL_BACKEND="smtp",
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(smtp_server.server_address[1]),
        EMAIL_HOST_USER="arena",
        EMAIL_HOST_PASSWORD="s3cret",
        DEFAULT_FROM_EMAIL="arena@example.org",
    )
    assert result.returncode == 0, result.stderr
    assert "BACKEND django.core.mail.backends.smtp.EmailBackend" in result.stdout
    auth = next(c for c in smtp_server.commands if c.upper().startswith("AUTH PLAIN"))
    assert base64.b64decode(auth.split()[-1]) == b"\0arena\0s3cret"
    assert "mail FROM:<arena@example.org>" in smtp_server.commands
    assert "rcpt TO:<ada@example.com>" in smtp_server.commands
    [message] = smtp_server.messages
    assert message_from_bytes(message)["Subject"] == "Hello from the arena"
    assert not (tmp_path / "var" / "mail").exists()


@pytest.mark.parametrize(("env", "error"), [
    ({"KAISER_EMAIL_BACKEND": "carrier-pigeon"}, "KAISER_EMAIL_BACKEND='carrier-pigeon' is not"),
    ({"EMAIL_USE_TLS": "1", "EMAIL_USE_SSL": "1"}, "EMAIL_USE_TLS and EMAIL_USE_SSL"),
    ({"EMAIL_PORT": "smtp"}, "EMAIL_PORT='smtp' is not an integer"),
])
def test_a_wrong_setting_stops_the_start(tmp_path: Path, env: dict[str, str], error: str) -> None:
    result = _send(tmp_path, **env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and error in result.stderr
