"""The Workspace port: how the engine reads files and lands patches.

On disk for the CLI and the app-server; the language server supplies one that reads unsaved
editor buffers and applies a patch as a single `workspace/applyEdit`. One writer per change.

A workspace may also put a change before the user hunk by hunk as it applies it (an editor's
refactor preview): `reviews_hunks(plan)` says whether it can for that plan, and
`apply(plan, review=True)` then reports the hunks the user declined, which were not applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import anyio

from codex_lsp.engine.patch import DiskFiles, PatchPlan, PatchWriteError, apply_plan
from codex_lsp.engine.patch.confined import ConfinedFiles
from codex_lsp.engine.patch.hunks import ChangeHunk


class WorkspaceEditError(Exception):
    """The workspace refused or failed to apply a change; the message goes to the model."""


@dataclass(frozen=True)
class AppliedPatch:
    """What became of a plan: the hunks the user declined while it was applied (not applied)."""

    declined: tuple[ChangeHunk, ...] = ()


class Workspace(Protocol):
    def read_text(self, path: Path) -> str: ...

    def exists(self, path: Path) -> bool: ...

    def reviews_hunks(self, plan: PatchPlan) -> bool: ...

    async def apply(self, plan: PatchPlan, *, review: bool = False) -> AppliedPatch: ...


class DiskWorkspace:
    """Files straight from and to the filesystem."""

    def __init__(self) -> None:
        self._files = DiskFiles()

    def read_text(self, path: Path) -> str:
        return self._files.read_text(path)

    def exists(self, path: Path) -> bool:
        return self._files.exists(path)

    def reviews_hunks(self, plan: PatchPlan) -> bool:
        return False

    async def apply(self, plan: PatchPlan, *, review: bool = False) -> AppliedPatch:
        # A confined plan is written through handles on its roots, never via a symlink.
        writer = ConfinedFiles(plan.confinement) if plan.confinement is not None else self._files
        try:
            await anyio.to_thread.run_sync(apply_plan, plan, writer)
        except (OSError, PatchWriteError) as err:
            raise WorkspaceEditError(f"failed to write files: {err}") from err
        return AppliedPatch()
