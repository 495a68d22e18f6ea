"""An ACP client for `codex-lsp acp` run as a real subprocess (no tests here).

`RecordingClient` is the client side of the `agent-client-protocol` package: it keeps every
`session/update` in order, answers permission requests with the option a test chose (and
keeps the requests), and, when the test declares the file system capabilities, serves
`fs/read_text_file` from its own "buffers" and `fs/write_text_file` into them (an editor that
does not save), recording each write with what the disk held at that moment, or refusing
every write (`refuse_writes`).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import acp
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)

REPO = Path(__file__).resolve().parents[2]
WAIT_S = 60.0


class RecordingClient:
    def __init__(self) -> None:
        self.updates: list[tuple[str, dict[str, Any]]] = []
        self.permission_requests: list[dict[str, Any]] = []
        self.answers: list[str | None] = []  # option ids to pick, in order; None: cancelled
        self.buffers: dict[str, str] = {}
        self.reads: list[str] = []
        self.writes: list[tuple[str, str, str | None]] = []  # path, content, disk at the time
        self.refuse_writes = False
        self.changed = asyncio.Event()

    # -- the client methods -----------------------------------------------------------------

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(
            (session_id, update.model_dump(mode="json", by_alias=True, exclude_none=True))
        )
        self.changed.set()

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **_: Any
    ) -> RequestPermissionResponse:
        self.permission_requests.append(
            {
                "sessionId": session_id,
                "toolCall": tool_call.model_dump(mode="json", by_alias=True, exclude_none=True),
                "options": [o.model_dump(mode="json", by_alias=True) for o in options],
            }
        )
        self.changed.set()
        choice = self.answers.pop(0) if self.answers else None
        if choice is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=choice)
        )

    async def read_text_file(self, session_id: str, path: str, **_: Any) -> ReadTextFileResponse:
        self.reads.append(path)
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        return ReadTextFileResponse(content=Path(path).read_text())

    async def write_text_file(
        self, session_id: str, path: str, content: str, **_: Any
    ) -> WriteTextFileResponse:
        if self.refuse_writes:
            raise acp.RequestError(-32000, "the user declined the edit")
        disk = Path(path).read_text() if os.path.exists(path) else None
        self.writes.append((path, content, disk))
        self.buffers[path] = content
        return WriteTextFileResponse()

    def on_connect(self, conn: Any) -> None:
        pass

    # -- reading what came -------------------------------------------------------------------

    def kinds(self, session_id: str | None = None) -> list[str]:
        return [
            u["sessionUpdate"] for s, u in self.updates if session_id is None or s == session_id
        ]

    def of_kind(self, kind: str, session_id: str | None = None) -> list[dict[str, Any]]:
        return [
            u
            for s, u in self.updates
            if u["sessionUpdate"] == kind and (session_id is None or s == session_id)
        ]

    def text(self, kind: str, session_id: str | None = None) -> str:
        return "".join(u["content"]["text"] for u in self.of_kind(kind, session_id))

    async def wait_for(self, predicate: Any, timeout: float = WAIT_S) -> None:
        async def loop() -> None:
            while not predicate():
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(loop(), timeout)


def agent_env(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, CODEX_HOME=str(home), PYTHONPATH=str(REPO))
    env.pop("OPENAI_API_KEY", None)
    env.update(extra)
    return env


@asynccontextmanager
async def acp_agent(
    home: Path,
    cwd: Path,
    client: RecordingClient,
    *,
    fs: bool = False,
    command: list[str] | None = None,
    env: dict[str, str] | None = None,
) -> AsyncIterator[Any]:
    """`codex-lsp acp` (or `command`) as a subprocess, initialized; its client connection."""
    argv = command or [sys.executable, "-m", "codex_lsp", "acp"]
    async with acp.spawn_agent_process(
        client,
        argv[0],
        *argv[1:],
        env=env or agent_env(home),
        cwd=str(cwd),
        use_unstable_protocol=True,
    ) as (conn, process):
        capabilities = ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs)
        )
        conn.initialize_response = await asyncio.wait_for(
            conn.initialize(protocol_version=1, client_capabilities=capabilities), WAIT_S
        )
        conn.process = process
        try:
            yield conn
        finally:
            if process.returncode is None:
                process.terminate()
