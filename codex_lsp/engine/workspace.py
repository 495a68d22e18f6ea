"""The Workspace port: how the engine reads files and lands patches.

On disk for the CLI and the app-server; the language server supplies one that reads unsaved
editor buffers and applies a patch as a single `workspace/applyEdit`. One writer per change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import anyio

from codex_lsp.engine.patch import DiskFiles, PatchPlan, PatchWriteError, apply_plan
from codex_lsp.engine.patch.confined import ConfinedFiles


class WorkspaceEditError(Exception):
    """The workspace refused or failed to apply a change; the message goes to the model."""


class Workspace(Protocol):
    def read_text(self, path: Path) -> str: ...

    def exists(self, path: Path) -> bool: ...

    async def apply(self, plan: PatchPlan) -> None: ...


class DiskWorkspace:
    """Files straight from and to the filesystem."""

    def __init__(self) -> None:
        self._files = DiskFiles()

    def read_text(self, path: Path) -> str:
        return self._files.read_text(path)

    def exists(self, path: Path) -> bool:
        return self._files.exists(path)

    async def apply(self, plan: PatchPlan) -> None:
        # A confined plan is written through handles on its roots, never via a symlink.
        writer = ConfinedFiles(plan.confinement) if plan.confinement is not None else self._files
        try:
            await anyio.to_thread.run_sync(apply_plan, plan, writer)
        except (OSError, PatchWriteError) as err:
            raise WorkspaceEditError(f"failed to write files: {err}") from err
