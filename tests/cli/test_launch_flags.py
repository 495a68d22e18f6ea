"""The launch flags editors and Codex's own clients pass: `app-server --analytics-default-enabled`
(the VS Code extension), `app-server --stdio`, `serve --stdio` (many LSP clients)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import CLI, cli_env


def _talk(home: Path, args: list[str], payload: bytes) -> bytes:
    home.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [*CLI, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(home),
        start_new_session=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(payload)
    proc.stdin.flush()
    try:
        first = proc.stdout.readline()
        if not first.startswith(b"Content-Length:"):
            return first
        # An LSP message: its headers up to the blank line, then the body they announce.
        headers = first
        while not headers.endswith(b"\r\n\r\n"):
            headers += proc.stdout.readline()
        return headers + proc.stdout.read(int(first.split(b":")[1]))
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize(
    "flags",
    [["--analytics-default-enabled"], ["--stdio"], ["--listen", "stdio://", "--enable", "skills"]],
)
def test_app_server_starts_with_the_flags_clients_pass(tmp_path, flags):
    request = {
        "id": 1,
        "method": "initialize",
        "params": {"clientInfo": {"name": "t", "version": "1"}},
    }
    answer = _talk(tmp_path / "home", ["app-server", *flags], json.dumps(request).encode() + b"\n")

    reply = json.loads(answer.splitlines()[0])
    assert reply["id"] == 1 and "result" in reply, reply


def test_serve_accepts_stdio(tmp_path):
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
    ).encode()
    answer = _talk(
        tmp_path / "home",
        ["serve", "--stdio"],
        b"Content-Length: %d\r\n\r\n" % len(body) + body,
    )

    assert answer.startswith(b"Content-Length:"), answer
    assert b'"capabilities"' in answer
