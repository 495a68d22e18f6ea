"""`codex-lsp proto --listen tcp://HOST:PORT`: the raw protocol over TCP, for one client that
shows the token, run as a real process against the scripted model server.

(The refusals every door shares, from another user and from inside the sandbox, are in
`tests/robustness/test_listening_doors.py` and `tests/sandbox/test_listening_doors.py`.)
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

from tests.support.doors import door_env, listening, token_path
from tests.support.engine import make_git_repo, write_config
from tests.support.scripted_builders import text_response


class _Client:
    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.buffer = b""

    def send(self, line: str) -> None:
        self.sock.sendall(line.encode() + b"\n")

    def submit(self, sub_id: str, op: dict) -> None:
        self.send(json.dumps({"id": sub_id, "op": op}))

    def event(self) -> dict | None:
        """The next event line; None once the server closed the connection."""
        while b"\n" not in self.buffer:
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                return None
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return dict(json.loads(line))

    def until(self, kind: str, sub_id: str) -> dict:
        while (event := self.event()) is not None:
            if event["msg"]["type"] == kind and event["id"] == sub_id:
                return event
        raise AssertionError(f"the connection closed before {kind} for {sub_id}")


def test_a_client_with_the_token_runs_a_turn_and_one_without_is_refused(
    scripted_model, tmp_path: Path
) -> None:
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(text_response("hello over tcp"))
    with listening("proto", home, ws) as door:
        token = token_path(home).read_text().strip()
        for first_line in ("", "Authorization: Bearer not-the-token", f"Bearer {token}"):
            intruder = _Client(door.port)
            # What an unproven client sends is never run.
            intruder.send(first_line)
            intruder.submit("c", {"type": "configure_session", "cwd": str(ws)})
            refusal = intruder.event()
            assert refusal is not None and "Unauthorized" in refusal["msg"]["message"]
            assert intruder.event() is None, "the connection stays open"
        client = _Client(door.port)
        client.send(f"Authorization: Bearer {token}")
        client.submit("c", {"type": "configure_session", "cwd": str(ws)})
        client.until("session_configured", "c")
        client.submit("t", {"type": "user_input", "items": [{"type": "text", "text": "hi"}]})
        done = client.until("task_complete", "t")
        assert done["msg"]["last_agent_message"] == "hello over tcp"
        # One client per process, as on stdio: a second one, even with the token, is closed.
        second = _Client(door.port)
        second.send(f"Authorization: Bearer {token}")
        assert second.event() is None
    assert len(scripted_model.requests) == 1
    assert token not in json.dumps(scripted_model.requests[0].body)


def test_a_non_loopback_address_needs_a_token_file_asked_for(tmp_path: Path) -> None:
    home = tmp_path / "home"
    refused = subprocess.run(
        [sys.executable, "-m", "codex_lsp", "proto", "--listen", "tcp://0.0.0.0:0"],
        env=door_env(home),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert refused.returncode == 2, refused.stderr
    assert "refusing to listen on 0.0.0.0:0 without a token" in refused.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "codex_lsp", "proto", "--listen", "udp://127.0.0.1:1"],
        env=door_env(home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "tcp://HOST:PORT" in bad.stderr
    # Asked for explicitly, with a private token file, it opens.
    chosen = tmp_path / "chosen-token"
    chosen.write_text("a-token-of-my-choosing\n")
    chosen.chmod(0o600)
    with listening("proto", home, tmp_path, "--token-file", str(chosen)) as door:
        client = _Client(door.port)
        client.send("Authorization: Bearer a-token-of-my-choosing")
        client.send("not json")
        answer = client.event()
        assert answer is not None and "invalid JSON" in answer["msg"]["message"]
