"""Every door that listens refuses a client running inside the sandbox, and the warm server's
unix socket refuses another user even when it can reach the socket.

A sandboxed command allowed the network reaches 127.0.0.1 like any local process: what keeps
it out of `serve --tcp` and `app-server --listen ws://` is the token in `$CODEX_HOME`, which
the sandbox cannot read. The warm per-user server is out of the sandbox's reach altogether
(`test_daemon_and_home.py`); its check of the peer's uid is the second lock, tried here with
the first one opened on purpose.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_lsp.appserver import attach, daemon
from tests.sandbox.helpers import PY, policy_for, run
from tests.support.doors import PROBE, listening, token_path
from tests.support.engine import write_config
from tests.support.scripted_model import ScriptedModelServer
from tests.support.warm import warm_runtime

UID_PROBE = r"""
import socket, sys
sock = socket.socket(socket.AF_UNIX)
sock.settimeout(20)
sock.connect(sys.argv[1])
print("CLOSED" if sock.recv(1) == b"" else "ANSWERED")
"""


@pytest.fixture
def home(tmp_path: Path, scripted_model: ScriptedModelServer) -> Path:
    home = tmp_path / "home"
    write_config(home, scripted_model.base_url, approval_policy="never")
    return home


@pytest.mark.parametrize("kind", ["tcp", "ws", "proto"])
def test_a_client_inside_the_sandbox_is_refused_by_every_door(
    kind: str, home: Path, ws: Path, mode: str, network: bool
) -> None:
    with listening(kind, home, ws) as door:
        probe = [PY, "-I", "-c", PROBE, kind, str(door.port), str(token_path(home))]
        inside = run(probe, ws, mode, policy_for(network), env={"CODEX_HOME": str(home)})
        assert "REFUSED" in inside.output and "ACCEPTED" not in inside.output, inside.output
        assert "token unreadable" in inside.output, inside.output
        # The same probe outside the sandbox is served: the door itself works.
        outside = subprocess.run(probe, capture_output=True, text=True, timeout=60)
        assert "ACCEPTED" in outside.stdout, outside.stdout + outside.stderr


@pytest.fixture
def warm_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A real per-user server; its socket path."""
    with warm_runtime() as runtime:
        monkeypatch.setenv("CODEX_HOME", str(tmp_path / "home"))
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
        monkeypatch.setenv(daemon.IDLE_ENV, "60")
        path = attach.socket_path(os.environ)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        attach._start_server(path)
        deadline = time.monotonic() + 60
        while not os.path.exists(path):
            assert time.monotonic() < deadline, "the per-user server did not start"
            time.sleep(0.05)
        yield path


@pytest.mark.skipif(os.getuid() != 0, reason="switching to another user needs root")
def test_the_warm_server_refuses_another_user_that_reaches_its_socket(warm_server: str) -> None:
    # Open the first lock (the private directory and the socket's mode) on purpose.
    for folder in Path(warm_server).parents:
        if folder in (Path("/tmp"), Path("/")):
            break
        folder.chmod(folder.stat().st_mode | 0o011)
    os.chmod(warm_server, 0o666)
    seen = subprocess.run(
        ["/usr/bin/python3", "-I", "-c", UID_PROBE, warm_server],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
        user=65534,
    )
    assert "CLOSED" in seen.stdout, seen.stdout + seen.stderr
    log = Path(warm_server).with_suffix(".log")
    deadline = time.monotonic() + 10
    while "refused a connection from uid 65534" not in log.read_text():
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.05)


SOCKET_PROBE = r"""
import json, socket, sys
try:
    sock = socket.socket(socket.AF_UNIX)
    sock.settimeout(20)
    sock.connect(sys.argv[1])
    print("CONNECTED", flush=True)
    sock.sendall(json.dumps({"id": 1, "method": "initialize",
        "params": {"clientInfo": {"name": "probe", "version": "1"}}}).encode() + b"\n")
    print("ANSWERED" if sock.recv(65536) else "REFUSED closed")
except OSError as err:
    print("REFUSED", err)
"""


def test_a_client_inside_the_sandbox_is_refused_by_the_unix_socket_door(
    home: Path, ws: Path, mode: str, network: bool
) -> None:
    path = ws / "run" / "app.sock"  # inside the workspace: the sandbox can see the socket
    env = dict(os.environ, CODEX_HOME=str(home))
    server = subprocess.Popen(
        [PY, "-m", "codex_lsp", "app-server", "--listen", f"unix://{path}"],
        env=env,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        while "listening on " not in (line := server.stderr.readline()):
            assert line, "the server did not start"
        probe = [PY, "-I", "-c", SOCKET_PROBE, str(path)]
        inside = run(probe, ws, mode, policy_for(network))
        assert "REFUSED" in inside.output and "ANSWERED" not in inside.output, inside.output
        # The second lock alone: a confined process (no_new_privs) outside the sandbox.
        confined = subprocess.run(
            ["setpriv", "--no-new-privs", *probe], capture_output=True, text=True, timeout=60
        )
        seen = confined.stdout + confined.stderr
        assert "CONNECTED" in seen and "REFUSED" in seen and "ANSWERED" not in seen, seen
        outside = subprocess.run(probe, capture_output=True, text=True, timeout=60)
        assert "ANSWERED" in outside.stdout, outside.stdout + outside.stderr
    finally:
        server.terminate()
        server.wait(30)
