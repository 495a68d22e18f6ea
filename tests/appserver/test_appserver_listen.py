"""`codex-lsp app-server --listen`: stdio:// as third-party SDKs launch it, and WebSocket
clients (one JSON-RPC message a frame) with health probes and token authentication (the token
in `$CODEX_HOME/listen-token` unless another is given)."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

from tests.support.appserver import REPO, app_server, make_home, text_input
from tests.support.doors import bearer
from tests.support.scripted_builders import slow_text_response, text_response

WAIT_S = 30.0


@contextmanager
def ws_server(home: Path, cwd: Path, *args: str) -> Iterator[str]:
    """A `--listen ws://127.0.0.1:0` server; yields the URL it says it listens on."""
    env = dict(os.environ, CODEX_HOME=str(home), PYTHONPATH=str(REPO))
    env.pop("OPENAI_API_KEY", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "codex_lsp", "app-server", "--listen", "ws://127.0.0.1:0", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        seen = []  # what it logs first (a warning about config.toml), then where it listens
        while "listening on " not in (line := process.stderr.readline()):
            assert line, "".join(seen)
            seen.append(line)
        assert "listening on ws://127.0.0.1:" in line, line
        yield line.split("listening on ", 1)[1].split()[0]
    finally:
        process.terminate()
        assert process.wait(WAIT_S) == 0, "the server stops cleanly on SIGTERM"


class Client:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.received: list[dict[str, Any]] = []
        self._ids = iter(range(1, 1000))

    def call(self, method: str, params: Any) -> dict[str, Any]:
        request_id = next(self._ids)
        self.ws.send(json.dumps({"id": request_id, "method": method, "params": params}))
        return self.until(lambda m: m.get("id") == request_id and "method" not in m)

    def until(self, pred: Any) -> dict[str, Any]:
        while True:
            message = json.loads(self.ws.recv(timeout=WAIT_S))
            self.received.append(message)
            if pred(message):
                return message


def initialized(ws: ClientConnection) -> Client:
    client = Client(ws)
    answer = client.call("initialize", {"clientInfo": {"name": "ws-test", "version": "1"}})
    assert answer["result"]["platformFamily"] == "unix"
    ws.send(json.dumps({"method": "initialized"}))
    return client


def test_stdio_url_is_the_default_transport(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("Over stdio."))
    with app_server(home, ws, args=("--listen", "stdio://")) as client:
        thread = client.start_thread()
        _, done = client.run_turn(thread["id"], "hi")
        assert done["params"]["turn"]["items"][0]["text"] == "Over stdio."


def test_websocket_clients_each_get_their_own_session(scripted_model, tmp_path):
    home, ws_dir = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("Hello over a WebSocket."))
    with (
        ws_server(home, ws_dir) as url,
        connect(url, additional_headers=bearer(home)) as first,
        connect(url, additional_headers=bearer(home)) as second,
    ):
        one = initialized(first)
        # Each connection has its own handshake: the second is not initialized yet.
        second.send(json.dumps({"id": 7, "method": "thread/list", "params": {}}))
        assert json.loads(second.recv(timeout=WAIT_S))["error"]["message"] == ("Not initialized")
        thread = one.call("thread/start", {"cwd": str(ws_dir)})["result"]["thread"]
        turn = {"threadId": thread["id"], "input": [text_input("hi")]}
        assert "result" in one.call("turn/start", turn)
        done = one.until(lambda m: m.get("method") == "turn/completed")
        assert done["params"]["turn"]["items"][0]["text"] == "Hello over a WebSocket."
        deltas = [m for m in one.received if m.get("method") == "item/agentMessage/delta"]
        assert "".join(m["params"]["delta"] for m in deltas) == "Hello over a WebSocket."
        # Malformed input is answered, and the connection goes on.
        first.send("{not json")
        assert json.loads(first.recv(timeout=WAIT_S))["error"]["code"] == -32700
        assert "result" in one.call("thread/list", {})


def test_each_websocket_client_hears_of_a_broken_config_toml(scripted_model, tmp_path):
    home, ws_dir = make_home(tmp_path, scripted_model.base_url)
    config = home / "config.toml"
    good = config.read_text()
    config.write_text(good + "\nthis is = = broken\n")
    with ws_server(home, ws_dir) as url:
        with connect(url, additional_headers=bearer(home)) as first:
            one = initialized(first)
            warning = one.until(lambda m: m.get("method") == "configWarning")["params"]
            assert warning["summary"] == "Invalid configuration; using defaults."
            assert warning["path"] == str(config)
            refused = one.call("thread/start", {"cwd": str(ws_dir)})
            assert refused["error"]["message"].startswith("failed to load configuration: ")
        # Fixed before the next client connects: it hears nothing of the old mistake.
        config.write_text(good)
        with connect(url, additional_headers=bearer(home)) as second:
            two = initialized(second)
            assert "result" in two.call("thread/start", {"cwd": str(ws_dir)})
            assert not [m for m in two.received if m.get("method") == "configWarning"]


def test_a_client_that_vanishes_mid_turn_frees_its_thread(scripted_model, tmp_path):
    home, ws_dir = make_home(tmp_path, scripted_model.base_url)
    with ws_server(home, ws_dir) as url:
        with connect(url, additional_headers=bearer(home)) as first:
            one = initialized(first)
            thread = one.call("thread/start", {"cwd": str(ws_dir)})["result"]["thread"]
            scripted_model.enqueue(slow_text_response())
            turn = {"threadId": thread["id"], "input": [text_input("go")]}
            assert "result" in one.call("turn/start", turn)
            one.until(lambda m: m.get("method") == "item/agentMessage/delta")
            # Gone without a closing handshake, as when the client's process is killed.
            first.socket.shutdown(socket.SHUT_RDWR)
            first.socket.close()
        with connect(url, additional_headers=bearer(home)) as second:
            two = initialized(second)
            deadline = time.monotonic() + 10
            while "error" in (answer := two.call("thread/resume", {"threadId": thread["id"]})):
                # Freed at once; the wait only allows for a loaded machine.
                assert time.monotonic() < deadline, answer
                time.sleep(0.2)
            assert answer["result"]["thread"]["id"] == thread["id"]


def _http(url: str, headers: dict[str, str] | None = None) -> int:
    request = urllib.request.Request(url.replace("ws://", "http://"), headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=WAIT_S) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as err:
        return err.code


def test_health_probes_answer_and_web_pages_are_refused(scripted_model, tmp_path):
    home, ws_dir = make_home(tmp_path, scripted_model.base_url)
    with ws_server(home, ws_dir) as url:
        assert _http(url + "/readyz") == 200
        assert _http(url + "/healthz") == 200
        assert _http(url + "/healthz", {"Origin": "https://evil.example"}) == 403
        with pytest.raises(InvalidStatus) as refused:
            connect(url, origin="https://evil.example")  # type: ignore[arg-type]
        assert refused.value.response.status_code == 403


def test_a_token_is_required_when_configured(scripted_model, tmp_path):
    home, ws_dir = make_home(tmp_path, scripted_model.base_url)
    token = "s3cret-capability"
    token_file = tmp_path / "token"
    token_file.write_text(token + "\n")
    token_file.chmod(0o600)
    digest = hashlib.sha256(token.encode()).hexdigest()
    for args in (
        ("--ws-auth", "capability-token", "--ws-token-file", str(token_file)),
        ("--ws-token-sha256", digest),
    ):
        with ws_server(home, ws_dir, *args) as url:
            for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": token}):
                with pytest.raises(InvalidStatus) as refused:
                    connect(url, additional_headers=headers)
                assert refused.value.response.status_code == 401
                assert token.encode() not in refused.value.response.body
            with connect(url, additional_headers={"Authorization": f"Bearer {token}"}) as ws:
                assert "result" in initialized(ws).call("thread/list", {})


def test_a_non_loopback_listener_needs_a_token_and_bad_settings_are_named(tmp_path):
    def start(*args: str) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ, CODEX_HOME=str(tmp_path / "home"), PYTHONPATH=str(REPO))
        return subprocess.run(
            [sys.executable, "-m", "codex_lsp", "app-server", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=WAIT_S,
            stdin=subprocess.DEVNULL,
        )

    open_to_all = start("--listen", "ws://0.0.0.0:0")
    assert open_to_all.returncode == 2 and "without a token" in open_to_all.stderr
    assert "--ws-token-file" in open_to_all.stderr
    assert "--ws-auth capability-token" in open_to_all.stderr
    for args, says in [
        (("--listen", "tcp://127.0.0.1:1"), "unix:///PATH or ws://HOST:PORT"),
        (("--listen", "unix:///tmp/x.sock"), "/tmp is open to other users"),
        (("--listen", "ws://127.0.0.1"), "needs a host and a port"),
        (("--listen", "ws://0.0.0.0:0", "--ws-token-file", "relative"), "absolute path"),
        (("--listen", "ws://127.0.0.1:0", "--ws-token-sha256", "abc"), "64 hexadecimal"),
        (("--ws-token-sha256", "ab" * 32), "need --listen ws://"),
    ]:
        refused = start(*args)
        assert refused.returncode == 2 and says in refused.stderr, (args, refused.stderr)
