"""Escape 6: the warm per-user server and `$CODEX_HOME`.

With `network_access = true` a sandboxed script connected to the user's
`app-server --attach` socket (same uid) and could have started a thread with
`danger-full-access`: a full escape. It also printed `auth.json`. The server must be out
of reach in every mode, network on or off, and `$CODEX_HOME` unreadable.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_lsp.appserver import attach, daemon, daemon_session
from tests.sandbox.helpers import PY, policy_for, run

FAKE_KEY = "sk-test-do-not-leak-0123456789"
PROBE = r"""
import os, socket, sys
sock_path, auth = sys.argv[1], sys.argv[2]
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    print("connected to the server")
except OSError as exc:
    print("connect refused:", exc)
try:
    print("auth:", open(auth).read())
except OSError as exc:
    print("read refused:", exc)
try:
    print("home lists:", os.listdir(os.path.dirname(auth)))
except OSError as exc:
    print("list refused:", exc)
"""


def _connectable(path: str) -> bool:
    with socket.socket(socket.AF_UNIX) as probe:
        try:
            probe.connect(path)
        except OSError:
            return False
    return True


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str]]:
    """A real per-user server for a `$CODEX_HOME` holding an `auth.json`; its socket path."""
    home, runtime = tmp_path / "home", tmp_path / "run"
    home.mkdir()
    runtime.mkdir(mode=0o700)
    (home / "auth.json").write_text(f'{{"OPENAI_API_KEY": "{FAKE_KEY}"}}\n')
    (home / "auth.json").chmod(0o600)
    monkeypatch.setenv("CODEX_HOME", str(home))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv(daemon.IDLE_ENV, "60")
    path = attach.socket_path(os.environ)
    assert attach.private_dir(os.path.dirname(path))
    attach._start_server(path)
    deadline = time.monotonic() + 60
    while not _connectable(path):
        assert time.monotonic() < deadline, "the per-user server did not start"
        time.sleep(0.05)
    yield home, path
    log = Path(path).with_suffix(".log")
    for line in log.read_text().splitlines() if log.exists() else []:
        if "serving" in line:
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(line.split()[2]), signal.SIGTERM)


def test_the_server_and_codex_home_are_out_of_reach(
    ws: Path, server: tuple[Path, str], mode: str, network: bool
) -> None:
    home, path = server
    result = run([PY, "-c", PROBE, path, str(home / "auth.json")], ws, mode, policy_for(network))
    assert "connect refused" in result.output, result.output
    assert "connected to the server" not in result.output
    assert FAKE_KEY not in result.output
    assert "read refused" in result.output
    listings = [line for line in result.output.splitlines() if line.startswith("home lists:")]
    assert all("auth.json" not in line for line in listings), result.output
    assert _connectable(path)  # the server itself is fine, for the user's own editors


def test_the_server_refuses_a_peer_that_runs_confined() -> None:
    # The second lock: were a sandboxed process to reach the socket anyway, the server
    # would not start a session for it.
    code = (
        "import ctypes, sys, time; ctypes.CDLL(None).prctl(38, 1, 0, 0, 0); "
        "print('ready', flush=True); time.sleep(60)"
    )
    confined = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    plain = subprocess.Popen(
        [sys.executable, "-c", code.replace("ctypes.CDLL(None).prctl(38, 1, 0, 0, 0); ", "")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        for proc in (confined, plain):
            assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        assert daemon_session.sandboxed_peer(confined.pid) == "it runs with no_new_privs"
        assert daemon_session.sandboxed_peer(plain.pid) is None
    finally:
        for proc in (confined, plain):
            proc.kill()
            proc.wait()


def test_a_codex_cli_home_in_use_is_out_of_reach(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, network: bool
) -> None:
    # Without CODEX_HOME and without a ~/.codex-lsp in use, the engine uses the Codex CLI's
    # ~/.codex: its sign-in must be hidden exactly as $CODEX_HOME's is.
    from codex_lsp.store.home import codex_home

    user = tmp_path / "user"
    auth = user / ".codex" / "auth.json"
    auth.parent.mkdir(parents=True)
    auth.write_text(f'{{"OPENAI_API_KEY": "{FAKE_KEY}"}}\n')
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    assert codex_home() == user / ".codex"
    result = run(
        [PY, "-c", PROBE, str(user / "none.sock"), str(auth)], ws, mode, policy_for(network)
    )
    assert FAKE_KEY not in result.output
    assert "read refused" in result.output, result.output
    listings = [line for line in result.output.splitlines() if line.startswith("home lists:")]
    assert all("auth.json" not in line for line in listings), result.output
