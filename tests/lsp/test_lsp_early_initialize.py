"""`codex-lsp serve` answers `initialize` before pygls loads, with exactly pygls's answer.

The early answer (`lsp/early_initialize.py`) must say what pygls would have said to the same
client, or an editor would be told of capabilities the server then does not have: it is compared
here with pygls's own answer, computed by the real server for the capabilities of Neovim 0.11
(as `vim.lsp.protocol.make_client_capabilities()` gives them), of a VS Code-like client with
everything pygls looks at, and of clients that prefer other position encodings.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codex_lsp.lsp.early_initialize import initialize_result, take_initialize
from codex_lsp.lsp.server import build_server
from codex_lsp.lsp.transport import dispatch
from tests.support.lsp_process import LspProcess

DATA = Path(__file__).parents[1] / "data"
NEOVIM = json.loads((DATA / "nvim_0.11_client_capabilities.json").read_text())
# What pygls reads from a client's capabilities, all switched on.
EVERYTHING = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {
        "synchronization": {"willSave": True, "willSaveWaitUntil": True, "didSave": True},
        "rename": {"prepareSupport": True},
    },
    "notebookDocument": {"synchronization": {"dynamicRegistration": True}},
    "workspace": {
        "applyEdit": True,
        "workspaceFolders": True,
        "fileOperations": {
            "didCreate": True,
            "willCreate": True,
            "didRename": True,
            "willRename": True,
            "didDelete": True,
            "willDelete": True,
        },
    },
    "window": {"workDoneProgress": True},
    "experimental": {"codex": {"richApprovals": True}},
}
CLIENTS = {
    "no capabilities": {},
    "Neovim 0.11": NEOVIM,
    "everything pygls reads": EVERYTHING,
    "utf-32 first": {"general": {"positionEncodings": ["utf-32", "utf-16"]}},
    "utf-8 only": {"general": {"positionEncodings": ["utf-8"]}},
    "unknown encodings": {"general": {"positionEncodings": ["utf-7", "ebcdic"]}},
}


class _Captured:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.messages.append(json.loads(data.partition(b"\r\n\r\n")[2]))


def _pygls_answer(params: dict[str, Any]) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        server = build_server()
        out = _Captured()
        server.protocol.set_writer(out)
        message = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
        dispatch(server.protocol, json.dumps(message).encode())
        await server.close()
        (answer,) = [m for m in out.messages if m.get("id") == 1]
        return answer["result"]  # type: ignore[no-any-return]

    return asyncio.run(run())


@pytest.mark.parametrize("client", CLIENTS)
def test_the_early_answer_is_the_one_pygls_gives(client: str) -> None:
    params = {"processId": 1, "rootUri": "file:///ws", "capabilities": CLIENTS[client]}
    assert initialize_result(params) == _pygls_answer(params)


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def test_only_the_first_message_is_read() -> None:
    first = _frame(
        {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"capabilities": {}}}
    )
    second = _frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    client_to_server, server_in = os.pipe()
    server_out, client_from_server = os.pipe()
    try:
        os.write(server_in, first + second)
        os.close(server_in)
        early = take_initialize(client_to_server, client_from_server)
        assert early.answered_id == 7
        # What the read loop will find next is the second message, whole.
        assert os.read(client_to_server, 65536) == second
        os.close(client_from_server)
        answer = os.read(server_out, 65536)
    finally:
        os.close(client_to_server)
        os.close(server_out)
    body = json.loads(answer.partition(b"\r\n\r\n")[2])
    assert body["id"] == 7 and body["result"]["serverInfo"]["name"] == "codex-lsp"


def test_the_answer_needs_none_of_the_language_server_libraries() -> None:
    probe = (
        "import sys\n"
        "from codex_lsp.lsp.early_initialize import take_initialize\n"
        "early = take_initialize()\n"
        "heavy = ('pygls', 'lsprotocol', 'cattrs', 'pydantic', 'asyncio', 'codex_lsp.engine')\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(heavy))\n"
        "sys.stderr.write(repr((early.answered_id, loaded)))\n"
    )
    request = _frame(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], input=request, capture_output=True, check=True
    )
    assert done.stderr.decode() == "(1, [])"
    assert b'"result": {"capabilities"' in done.stdout


def test_a_first_message_that_is_not_initialize_goes_to_the_read_loop(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    server = LspProcess(
        [sys.executable, "-m", "codex_lsp", "serve"],
        env={**os.environ, "CODEX_HOME": str(home)},
        cwd=tmp_path,
    )
    try:
        early = server.request("codex/thread/list", {})
        assert early["error"]["code"] == -32002  # not initialized: answered, not dropped
        server.initialize()
        assert server.result("codex/thread/list", {})["data"] == []
        assert server.shutdown() == 0
    finally:
        server.kill()


def test_a_garbled_first_message_is_answered_and_the_server_reads_on(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    server = LspProcess(
        [sys.executable, "-m", "codex_lsp", "serve"],
        env={**os.environ, "CODEX_HOME": str(home)},
        cwd=tmp_path,
    )
    try:
        assert server.process.stdin is not None
        server.process.stdin.write(b"Content-Length: 9\r\n\r\nnot json!")
        server.process.stdin.flush()
        parse_error = server.read()
        assert parse_error["error"]["code"] == -32700 and parse_error["id"] is None
        server.initialize()
        assert server.shutdown() == 0
    finally:
        server.kill()


def test_a_cold_serve_answers_before_loading_anything_heavy_then_serves_a_thread(
    tmp_path: Path,
) -> None:
    home, stderr = tmp_path / "home", tmp_path / "serve.stderr"
    home.mkdir()
    server = LspProcess(
        [sys.executable, "-m", "codex_lsp", "serve"],
        env={**os.environ, "CODEX_HOME": str(home), "CODEX_LSP_LOG": "debug"},
        cwd=tmp_path,
        stderr=stderr,
    )
    try:
        assert server.initialize()["serverInfo"]["name"] == "codex-lsp"
        # Sent at once: it waits for what it needs of what loads in the background.
        thread = server.result("codex/thread/start", {"cwd": str(tmp_path)})["thread"]
        assert thread["id"]
        assert server.shutdown() == 0
    finally:
        server.kill()
    assert "initialize answered; heavy modules loaded by then: none" in stderr.read_text()
