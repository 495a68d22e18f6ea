"""`codex-lsp app-server --listen unix:///PATH`: the protocol on a unix socket that only its
owner may use (0600 socket in a 0700 directory, and the peer's uid checked)."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.appserver import REPO, make_home, text_input
from tests.support.scripted_builders import text_response

WAIT_S = 30.0

UID_PROBE = r"""
import json, socket, sys
sock = socket.socket(socket.AF_UNIX)
sock.settimeout(20)
sock.connect(sys.argv[1])
try:
    sock.sendall(json.dumps({"id": 1, "method": "initialize",
        "params": {"clientInfo": {"name": "other", "version": "1"}}}).encode() + b"\n")
    print("CLOSED" if sock.recv(65536) == b"" else "ANSWERED")
except ConnectionError:
    print("CLOSED")
"""


@contextmanager
def unix_server(home: Path, cwd: Path, path: Path) -> Iterator[subprocess.Popen[str]]:
    env = dict(os.environ, CODEX_HOME=str(home), PYTHONPATH=str(REPO))
    env.pop("OPENAI_API_KEY", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "codex_lsp", "app-server", "--listen", f"unix://{path}"],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        seen = []
        while "listening on " not in (line := process.stderr.readline()):
            assert line, "".join(seen)
            seen.append(line)
        assert f"listening on unix://{path}" in line, line
        yield process
    finally:
        process.terminate()
        assert process.wait(WAIT_S) == 0, "the server stops cleanly on SIGTERM"


class Client:
    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(WAIT_S)
        self.sock.connect(str(path))
        self.file = self.sock.makefile("rb")
        self.received: list[dict[str, Any]] = []
        self._ids = iter(range(1, 1000))

    def send(self, message: Any) -> None:
        self.sock.sendall(json.dumps(message).encode() + b"\n")

    def call(self, method: str, params: Any) -> dict[str, Any]:
        request_id = next(self._ids)
        self.send({"id": request_id, "method": method, "params": params})
        return self.until(lambda m: m.get("id") == request_id and "method" not in m)

    def until(self, pred: Any) -> dict[str, Any]:
        while True:
            line = self.file.readline()
            assert line, "the server closed the connection"
            message = json.loads(line)
            self.received.append(message)
            if pred(message):
                return message

    def close(self) -> None:
        self.file.close()
        self.sock.close()


def test_a_client_on_the_socket_runs_a_thread(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    path = tmp_path / "run" / "app.sock"
    scripted_model.enqueue(text_response("Over a unix socket."))
    with unix_server(home, ws, path):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        client, other = Client(path), Client(path)
        try:
            answer = client.call("initialize", {"clientInfo": {"name": "unix", "version": "1"}})
            assert answer["result"]["platformFamily"] == "unix"
            client.send({"method": "initialized"})
            # Each connection has its own handshake.
            refused = other.call("thread/list", {})
            assert refused["error"]["message"] == "Not initialized"
            thread = client.call("thread/start", {"cwd": str(ws)})["result"]["thread"]
            turn = {"threadId": thread["id"], "input": [text_input("hi")]}
            assert "result" in client.call("turn/start", turn)
            done = client.until(lambda m: m.get("method") == "turn/completed")
            assert done["params"]["turn"]["items"][0]["text"] == "Over a unix socket."
        finally:
            client.close()
            other.close()
    assert not path.exists(), "the socket is removed when the server stops"


def test_a_socket_directory_open_to_others_is_refused(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    env = dict(os.environ, CODEX_HOME=str(tmp_path / "home"), PYTHONPATH=str(REPO))
    for url in (f"unix://{shared}/app.sock", "unix://relative/app.sock"):
        done = subprocess.run(
            [sys.executable, "-m", "codex_lsp", "app-server", "--listen", url],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2, done.stderr
        assert "error:" in done.stderr
    assert not (shared / "app.sock").exists()


@pytest.mark.skipif(os.getuid() != 0, reason="switching to another user needs root")
def test_another_user_that_reaches_the_socket_is_refused(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    path = tmp_path / "run" / "app.sock"
    with unix_server(home, ws, path) as server:
        # Open the first lock (the private directory and the socket's mode) on purpose.
        for folder in path.parents:
            if folder in (Path("/tmp"), Path("/")):
                break
            folder.chmod(folder.stat().st_mode | 0o011)
        path.chmod(0o666)
        probe = ["/usr/bin/python3", "-I", "-c", UID_PROBE, str(path)]
        seen = subprocess.run(
            probe, capture_output=True, text=True, timeout=60, cwd="/", user=65534
        )
        assert "CLOSED" in seen.stdout, seen.stdout + seen.stderr
        # The same probe as the owner is answered: the door itself works.
        mine = subprocess.run(probe, capture_output=True, text=True, timeout=60, cwd="/")
        assert "ANSWERED" in mine.stdout, mine.stdout + mine.stderr
        server.terminate()
        assert server.stderr is not None
        assert "refused a connection: uid 65534 is not this user" in server.stderr.read()
