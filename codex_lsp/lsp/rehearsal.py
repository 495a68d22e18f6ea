"""One `initialize` and `shutdown` through a language server nobody listens to, in the warm server.

pygls, lsprotocol and cattrs do much of their work on first use rather than on import: the LSP
types' forward references are resolved when the converter is built, and a structure or
unstructure hook is generated for each message type the first time one is seen. Done once in
the per-user server before it forks (`appserver/daemon.py`), every session inherits the result
and answers its editor's first messages as fast as its later ones.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from typing import Any

_CAPABILITIES = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {"synchronization": {"dynamicRegistration": False, "didSave": True}},
    "window": {"workDoneProgress": True, "showMessage": {}},
    "workspace": {"applyEdit": True, "workspaceFolders": True, "configuration": True},
    "experimental": {"codex": {"richApprovals": True}},
}


class _Discard:
    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        pass


def rehearse() -> None:
    """Build a server and run an editor's first and last requests through it; nothing is kept
    but the hooks and caches they filled."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    pygls = logging.getLogger("pygls")
    pygls_level = pygls.level
    pygls.setLevel(logging.WARNING)  # it logs every message at info: not news here
    try:
        asyncio.run(_rehearse())
    finally:
        # The rehearsal's `initialize` hands log records to its editor: forget that handler.
        root.handlers[:] = handlers
        root.setLevel(level)
        pygls.setLevel(pygls_level)


async def _rehearse() -> None:
    from codex_lsp.lsp.server import build_server
    from codex_lsp.lsp.transport import dispatch

    server = build_server()
    server.protocol.set_writer(_Discard())
    messages = [
        {
            "id": 1,
            "method": "initialize",
            "params": {
                "processId": os.getpid(),
                "rootUri": "file:///",
                "capabilities": _CAPABILITIES,
                "workspaceFolders": [{"uri": "file:///", "name": "/"}],
            },
        },
        {"id": 2, "method": "codex/thread/list", "params": {}},  # refused: not initialized
        {"id": 3, "method": "shutdown"},
    ]
    for message in messages:
        dispatch(server.protocol, json.dumps({"jsonrpc": "2.0", **message}).encode())
        await asyncio.sleep(0)
    # Messages an editor sends next, only decoded; and a notification of every JSON type.
    for decoded in _DECODED:
        server.protocol.structure_message({"jsonrpc": "2.0", **decoded})
    server.protocol.notify("$/rehearsal", _EVERY_JSON_TYPE)
    await server.close()


_URI = "file:///rehearsal.txt"
_DECODED: list[dict[str, Any]] = [
    {"method": "initialized", "params": {}},
    {"id": 4, "method": "codex/thread/start", "params": {"cwd": "/"}},
    {"id": 4, "result": None},
    {"method": "$/cancelRequest", "params": {"id": 4}},
    {
        "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": _URI, "languageId": "text", "version": 1, "text": ""}},
    },
    {
        "method": "textDocument/didChange",
        "params": {
            "textDocument": {"uri": _URI, "version": 2},
            "contentChanges": [
                {
                    "range": {
                        "start": {"line": 0, "character": 0},
                        "end": {"line": 0, "character": 0},
                    },
                    "text": "x",
                }
            ],
        },
    },
    {"method": "textDocument/didClose", "params": {"textDocument": {"uri": _URI}}},
    {
        "id": 5,
        "method": "workspace/executeCommand",
        "params": {"command": "codex.newThread", "arguments": [{}]},
    },
]
_EVERY_JSON_TYPE = {"s": "", "i": 1, "f": 0.5, "b": True, "n": None, "l": [1], "d": {"k": "v"}}
