"""Bad input gets JSON-RPC errors and the server stays up; a bad config is reported, not crashed on.

Raw bytes on the pipe are sent by a plain subprocess client (pytest-lsp only sends valid JSON);
everything else goes through pytest-lsp.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.support.engine import write_config
from tests.support.lsp_client import EditorSession, server_command
from tests.support.scripted_builders import text_response

READ_TIMEOUT_S = 30.0


def _frame(body: bytes | dict) -> bytes:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


class RawClient:
    """Bytes in, parsed messages out: the server as a process on the other end of a pipe."""

    def __init__(self, home: Path) -> None:
        self.process = subprocess.Popen(
            server_command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "CODEX_HOME": str(home)},
        )
        self._buffer = b""

    def send(self, body: bytes | dict, *, raw: bool = False) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(body if raw else _frame(body))
        self.process.stdin.flush()

    def _fill(self) -> None:
        """Read more bytes, failing (not hanging) if the server says nothing for a while."""
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], READ_TIMEOUT_S)
        assert ready, f"no answer from the server within {READ_TIMEOUT_S}s"
        chunk = os.read(self.process.stdout.fileno(), 65536)
        assert chunk, "the server closed its output"
        self._buffer += chunk

    def read(self) -> dict:
        while b"\r\n\r\n" not in self._buffer:
            self._fill()
        header, _, self._buffer = self._buffer.partition(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in header.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        while len(self._buffer) < length:
            self._fill()
        body, self._buffer = self._buffer[:length], self._buffer[length:]
        return json.loads(body)

    def response(self, msg_id: object = None) -> dict:
        """The next response (skipping notifications) — with this id, or the next error."""
        while True:
            message = self.read()
            if "method" in message:
                continue
            if msg_id is None or message.get("id") == msg_id:
                return message

    def close(self) -> int:
        with contextlib.suppress(BrokenPipeError):
            self.send({"jsonrpc": "2.0", "method": "exit"})
        try:
            return self.process.wait(timeout=30)
        finally:
            if self.process.returncode is None:
                self.process.kill()


@pytest.fixture
def raw(home):
    client = RawClient(home)
    client.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}}})
    assert "result" in client.response(0)
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    yield client
    client.close()


def _still_serves(raw: RawClient, msg_id: int) -> None:
    raw.send({"jsonrpc": "2.0", "id": msg_id, "method": "codex/model/list", "params": {}})
    answer = raw.response(msg_id)
    assert "result" in answer, answer
    assert answer["result"]["data"], "model/list answers with models"


@pytest.mark.parametrize(
    ("body", "code", "msg_id"),
    [
        (b'{"jsonrpc": "2.0", "id": 5, "method": ', -32700, None),  # truncated JSON
        (b"\xff\xfe not even utf-8", -32700, None),
        (b"[1, 2, 3]", -32600, None),  # JSON, but not a request
        (b'"just a string"', -32600, None),
        (b'{"id": 6, "method": "codex/model/list"}', -32600, 6),  # no jsonrpc member
        (b'{"jsonrpc": "2.0", "id": 7, "method": 12}', -32600, 7),
    ],
)
def test_malformed_messages_get_errors_and_the_server_stays_up(raw, body, code, msg_id):
    raw.send(body)
    error = raw.response()
    assert error["error"]["code"] == code
    assert error["id"] == msg_id
    _still_serves(raw, 100)


def test_a_header_without_content_length_is_a_parse_error(raw):
    raw.send(b"Content-Type: application/vscode-jsonrpc\r\n\r\n", raw=True)
    assert raw.response()["error"]["code"] == -32700
    _still_serves(raw, 101)


def test_invalid_params_of_an_lsp_request_are_reported_with_the_request_id(raw):
    raw.send({"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": {"x": 1}})
    answer = raw.response(7)
    assert answer["error"]["code"] == -32602
    assert "textDocument/hover" in answer["error"]["message"]
    _still_serves(raw, 102)


def test_a_malformed_notification_is_dropped(raw):
    raw.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": 3}})
    raw.send({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {}})
    _still_serves(raw, 103)


def test_requests_after_shutdown_are_refused_not_ignored(raw):
    raw.send({"jsonrpc": "2.0", "id": 8, "method": "shutdown"})
    assert raw.response(8)["result"] is None
    raw.send({"jsonrpc": "2.0", "id": 9, "method": "codex/model/list", "params": {}})
    assert raw.response(9)["error"]["code"] == -32600
    assert raw.close() == 0


async def test_unknown_methods_and_invalid_params_through_an_lsp_client(home, ws, scripted_model):
    async with EditorSession(home, ws) as client:
        for method in ("foo/bar", "codex/no/such/method"):
            with pytest.raises(JsonRpcException) as unknown:
                await client.protocol.send_request_async(method, {})
            assert unknown.value.code == -32601, method

        with pytest.raises(JsonRpcException) as invalid:
            await client.codex("thread/read", {"threadId": 5})
        assert invalid.value.code == -32602

        with pytest.raises(JsonRpcException) as not_object:
            await client.codex("thread/list", [1, 2])
        assert not_object.value.code == -32602

        with pytest.raises(JsonRpcException) as bad_command:
            await client.command("codex.ask", {"uri": "file:///nowhere.py"})
        assert bad_command.value.code == -32602
        assert "prompt" in bad_command.value.message

        with pytest.raises(JsonRpcException) as unknown_thread:
            await client.codex("turn/start", {"threadId": "nope", "input": []})
        assert unknown_thread.value.code == -32600

        scripted_model.enqueue(text_response("still here"))
        thread_id = await client.start_thread(ws)
        done = await client.run_turn(thread_id, "are you there?")
        assert done["turn"]["status"] == "completed"


async def test_a_bad_config_is_warned_about_and_the_server_stays_up(tmp_path, ws, scripted_model):
    home = tmp_path / "home"
    config = write_config(home, scripted_model.base_url, approval_policy="sometimes")
    async with EditorSession(home, ws) as client:
        # As from the app-server: `codex/configWarning` says where the file is wrong.
        warning = await client.wait_for("configWarning")
        assert warning["summary"] == "Invalid configuration; using defaults."
        assert warning["path"] == str(config)
        assert warning["range"] == {
            "start": {"line": 3, "column": 19},
            "end": {"line": 3, "column": 29},
        }
        assert warning["details"].startswith(f"{config}:3:19: approval_policy:")
        assert "sometimes" in warning["details"]
        # A plain editor shows it too.
        shown = await client.wait_until(
            lambda: [m for m in client.messages if m.type == types.MessageType.Warning]
        )
        assert shown[0].message.startswith("Codex: Invalid configuration; using defaults.")
        assert f"{config}:3:19" in shown[0].message and "Traceback" not in shown[0].message
        # The v2 handshake is answered.
        answered = await client.codex("initialize", {"clientInfo": {"name": "t", "version": "1"}})
        assert answered["codexHome"] == str(home)

        with pytest.raises(JsonRpcException) as refused:
            await client.start_thread(ws)
        assert refused.value.code == -32600
        assert refused.value.message.startswith(f"failed to load configuration: {config}:3:19:")
        with pytest.raises(JsonRpcException) as unread:
            await client.codex("config/read", {})
        assert unread.value.code == -32603
        assert unread.value.message.endswith("in `approval_policy`\n")

        # Fixing the file is enough: the next request loads it.
        write_config(home, scripted_model.base_url)
        scripted_model.enqueue(text_response("configured"))
        thread_id = await client.start_thread(ws)
        done = await client.run_turn(thread_id, "hello")
        assert done["turn"]["status"] == "completed"


async def test_a_secret_in_a_bad_config_line_is_not_repeated(tmp_path, ws, scripted_model):
    home = tmp_path / "home"
    secret = "sk-live-0123456789abcdef"
    config = write_config(home, scripted_model.base_url)
    # A header's value where the table of headers belongs.
    config.write_text(config.read_text() + f'http_headers = "Bearer {secret}"\n')
    async with EditorSession(home, ws) as client:
        warning = await client.wait_for("configWarning")
        assert "model_providers.scripted.http_headers: expected a table" in warning["details"]
        assert "not shown" in warning["details"]
        with pytest.raises(JsonRpcException) as refused:
            await client.start_thread(ws)
        seen = [json.dumps(warning), refused.value.message]
        seen += [m.message for m in client.messages] + [m.message for m in client.log_messages]
        assert not [text for text in seen if secret in text]


def test_the_engine_is_not_imported_until_the_editor_is_answered():
    probe = (
        "import sys, codex_lsp.cli.serve_cmd, codex_lsp.lsp.server as s; s.build_server();"
        "print(sorted(m for m in sys.modules if m.startswith(('codex_lsp.engine', 'httpx'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
