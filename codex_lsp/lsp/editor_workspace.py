"""The engine's `Workspace` port inside an editor: unsaved buffers in, `workspace/applyEdit` out.

Reads prefer the text of open documents, so the agent sees what the user sees, saved or not.
A patch is applied as one `workspace/applyEdit`; the editor is then the only writer of the
change (it writes the file on save, and its undo takes the edit back). When the client cannot
apply edits at all, the patch goes to disk instead, again with a single writer. A refusal by
the editor raises `WorkspaceEditError`, which the model sees as a failed patch.

A client with change annotations reviews a patch that needs approval itself: the edit goes out
with one annotation per hunk, each needing confirmation, and the hunks the user unticked are
reported back (`hunk_edits`). Clients that render approvals themselves keep their own prompt
unless they ask for this too (`experimental.codex.hunkReview`).
"""

from __future__ import annotations

import errno
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import to_fs_path

from codex_lsp.engine.patch import DiskFiles, PatchPlan
from codex_lsp.engine.workspace import AppliedPatch, DiskWorkspace, WorkspaceEditError
from codex_lsp.lsp.edits import BuiltEdit, OpenDocument, StaleDocumentError, build_workspace_edit
from codex_lsp.lsp.hunk_edits import build_annotated_edit, declined_after_edit

if TYPE_CHECKING:
    from codex_lsp.lsp.server import CodexLanguageServer

logger = logging.getLogger(__name__)

EDIT_LABEL = "Codex: apply patch"


class EditorWorkspace:
    """Files as the editor shows them; patches through the editor."""

    def __init__(self, server: CodexLanguageServer) -> None:
        self._server = server
        self._disk = DiskFiles()
        self._disk_writer = DiskWorkspace()

    # -- reading -------------------------------------------------------------------------

    def open_document(self, path: Path) -> OpenDocument | None:
        """The editor buffer showing `path`, if the client opened one."""
        try:
            documents = self._server.workspace.text_documents
        except RuntimeError:  # before initialize there is no workspace yet
            return None
        wanted = os.path.normpath(path)
        for uri, doc in list(documents.items()):
            fs_path = to_fs_path(uri)
            if fs_path is not None and os.path.normpath(fs_path) == wanted:
                return OpenDocument(uri=doc.uri, version=doc.version, text=doc.source)
        return None

    def current_text(self, path: Path) -> str | None:
        doc = self.open_document(path)
        if doc is not None:
            return doc.text
        try:
            return self._disk.read_text(path)
        except FileNotFoundError:
            return None

    def read_text(self, path: Path) -> str:
        text = self.current_text(path)
        if text is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
        return text

    def exists(self, path: Path) -> bool:
        return self.open_document(path) is not None or self._disk.exists(path)

    # -- writing -------------------------------------------------------------------------

    def reviews_hunks(self, plan: PatchPlan) -> bool:
        """Whether the editor can put this plan's hunks before the user for confirmation."""
        if self._server.rich_approvals and not self._server.hunk_review:
            return False
        workspace = self._server.client_capabilities.workspace
        caps = workspace.workspace_edit if workspace is not None else None
        if workspace is None or not workspace.apply_edit or caps is None:
            return False
        if not caps.document_changes or caps.change_annotation_support is None:
            return False
        # A move, or an add over an existing file, is asked about whole, with a prompt.
        if any(op.move_path is not None for op in plan.operations):
            return False
        if any(op.kind == "add" and self.exists(op.path) for op in plan.operations):
            return False
        kinds = {op.kind for op in plan.operations}
        needed = {types.ResourceOperationKind.Create} if "add" in kinds else set()
        if "delete" in kinds:
            needed.add(types.ResourceOperationKind.Delete)
        return needed <= set(caps.resource_operations or [])

    async def apply(self, plan: PatchPlan, *, review: bool = False) -> AppliedPatch:
        if review:
            return await self._review(plan)
        capabilities = self._server.client_capabilities.workspace
        if capabilities is None or not capabilities.apply_edit:
            return await self._disk_writer.apply(plan)
        try:
            built = build_workspace_edit(plan, self, self._position_encoding())
        except StaleDocumentError as err:
            raise WorkspaceEditError(str(err)) from None
        if built.empty:
            return AppliedPatch()
        edit = self._fit_to_client(built, capabilities.workspace_edit)
        if edit is None:
            return await self._disk_writer.apply(plan)
        await self._send(edit)
        return AppliedPatch()

    async def _review(self, plan: PatchPlan) -> AppliedPatch:
        """Send the plan hunk by hunk for confirmation; report the hunks left out."""
        try:
            built = build_annotated_edit(plan, self, self._position_encoding(), confirm=True)
        except StaleDocumentError as err:
            raise WorkspaceEditError(str(err)) from None
        if not built.files:
            return AppliedPatch()
        result = await self._request(built.edit)
        if not result.applied:
            if result.failure_reason:
                raise WorkspaceEditError(f"the editor refused the edit: {result.failure_reason}")
            # Cancelled in the preview: nothing was applied.
            return AppliedPatch(declined=tuple(h for f in built.files for h in f.hunks))
        return AppliedPatch(declined=tuple(declined_after_edit(built, self)))

    def _position_encoding(self) -> str:
        encoding = self._server.workspace.position_encoding
        return str(getattr(encoding, "value", encoding) or types.PositionEncodingKind.Utf16.value)

    def _fit_to_client(
        self, built: BuiltEdit, caps: types.WorkspaceEditClientCapabilities | None
    ) -> types.WorkspaceEdit | None:
        """The edit in a form the client accepts; None means "write to disk instead"."""
        document_changes = bool(caps and caps.document_changes)
        supported = set(caps.resource_operations or []) if caps else set()
        if document_changes and built.operations <= supported:
            return built.edit
        if not built.operations:
            # Only text edits: the older `changes` map carries them, without versions.
            changes: dict[str, list[types.TextEdit]] = {}
            for item in built.edit.document_changes or []:
                assert isinstance(item, types.TextDocumentEdit)
                # Typed as any kind of edit; an agent patch builds plain `TextEdit`s only.
                changes.setdefault(item.text_document.uri, []).extend(item.edits)  # type: ignore[arg-type]
            return types.WorkspaceEdit(changes=changes)
        if built.open_paths:
            # Writing these behind the editor's back would make two writers of one change.
            names = ", ".join(str(p) for p in built.open_paths)
            raise WorkspaceEditError(
                "the editor cannot create, rename or delete files through workspace/applyEdit, "
                f"and {names} is open in it; close it or make the change another way"
            )
        return None

    async def _request(self, edit: types.WorkspaceEdit) -> types.ApplyWorkspaceEditResult:
        params = types.ApplyWorkspaceEditParams(edit=edit, label=EDIT_LABEL)
        try:
            result = await self._server.workspace_apply_edit_async(params)
        except JsonRpcException as err:
            raise WorkspaceEditError(
                f"the editor failed to apply the edit: {err.message}"
            ) from None
        return result if result is not None else types.ApplyWorkspaceEditResult(applied=False)

    async def _send(self, edit: types.WorkspaceEdit) -> None:
        result = await self._request(edit)
        if not result.applied:
            reason = result.failure_reason or "no reason given"
            raise WorkspaceEditError(f"the editor refused the edit: {reason}")
