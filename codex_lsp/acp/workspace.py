"""The engine's `Workspace` port inside an ACP client: its buffers in, `fs/write_text_file` out.

When the client declares `fs.readTextFile`, the engine reads files through it, so the agent
sees unsaved editor text. Reads happen on a worker thread (patches are planned off the event
loop); one asked for on the loop itself, or one the client cannot answer, is read from disk.

When the client declares `fs.writeTextFile`, each file a patch adds or updates goes to the
client (which shows the change, and lets the user review it, as its own edit). The disk is the
truth for commands: once the client has answered, the whole patch is written to disk through
the same confined writer as any other patch, so the files hold the change before the next
tool call runs, whatever the client did with it. Deletes and moves have no ACP request; a patch
with any goes to disk only, as does a path that leads through a symbolic link (the client
would follow it where the confined writer will not). A refusal by the client fails the patch
before anything is written to disk.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import threading
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

from codex_lsp.engine.patch import DiskFiles, PatchPlan
from codex_lsp.engine.workspace import AppliedPatch, DiskWorkspace, WorkspaceEditError

log = logging.getLogger(__name__)

READ_TIMEOUT_S = 30.0

ReadFile = Callable[[str, str], Coroutine[Any, Any, str]]
WriteFile = Callable[[str, str, str], Awaitable[None]]


class AcpWorkspace:
    """Files as the ACP client shows them, for the session `session_id` names."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        read_file: ReadFile | None,
        write_file: WriteFile | None,
    ) -> None:
        self._loop = loop
        self._loop_thread = threading.get_ident()
        self._read_file = read_file
        self._write_file = write_file
        self._disk = DiskFiles()
        self._disk_writer = DiskWorkspace()
        # Set once the thread's id is known (the thread reads nothing before its first turn).
        self.session_id: str | None = None
        # The text each file last had when read through the client: what a patch's diff was
        # computed against, and so the `oldText` the client is shown.
        self.client_texts: dict[str, str] = {}

    # -- reading -------------------------------------------------------------------------

    def read_text(self, path: Path) -> str:
        text = self._client_text(path)
        return text if text is not None else self._disk.read_text(path)

    def _client_text(self, path: Path) -> str | None:
        if (
            self._read_file is None
            or self.session_id is None
            or threading.get_ident() == self._loop_thread
            or not self._disk.exists(path)
        ):
            return None
        future = asyncio.run_coroutine_threadsafe(
            self._read_file(self.session_id, str(path)), self._loop
        )
        try:
            text = str(future.result(READ_TIMEOUT_S))
            self.client_texts[str(path)] = text
            return text
        except concurrent.futures.TimeoutError:
            future.cancel()
            log.warning("the client did not answer fs/read_text_file for %s; reading disk", path)
        except Exception as err:  # the client's failure to read is not the patch's
            log.info("fs/read_text_file %s failed (%s); reading disk", path, err)
        return None

    def exists(self, path: Path) -> bool:
        return self._disk.exists(path)

    # -- writing -------------------------------------------------------------------------

    def reviews_hunks(self, plan: PatchPlan) -> bool:
        return False

    async def apply(self, plan: PatchPlan, *, review: bool = False) -> AppliedPatch:
        if self._write_file is not None and self.session_id is not None:
            for path, text in _client_writes(plan):
                try:
                    await self._write_file(self.session_id, str(path), text)
                except Exception as err:
                    raise WorkspaceEditError(f"the editor refused to write {path}: {err}") from err
        return await self._disk_writer.apply(plan)


def _client_writes(plan: PatchPlan) -> list[tuple[Path, str]]:
    """The final text of each file the plan adds or updates in place; none when the plan
    deletes or moves a file, or writes through a symbolic link."""
    texts: dict[Path, str] = {}
    for op in plan.operations:
        if op.kind == "delete" or op.move_path is not None or op.new_content is None:
            return []
        if os.path.realpath(op.path) != os.path.normpath(op.path):
            return []
        texts[op.path] = op.new_content
    return list(texts.items())
