"""The engine's `Workspace` port inside an editor: unsaved buffers in, `workspace/applyEdit` out.

Reads prefer the text of open documents, so the agent sees what the user sees, saved or not.

The disk is the truth for commands: once a patch is applied, every file it touched holds the
new text on disk before the next tool call runs. The part of a patch that touches documents
open in the editor goes out as one `workspace/applyEdit` (one undo step there); once the
editor has applied it, whatever the editor did not save itself is written to disk through the
same confined writer as any other patch. The buffer then holds what the disk holds: the user's
own unsaved text in that buffer, which the agent read and patched, is saved with the change.
Files no editor buffer shows are written to disk only, so no hidden modified buffer is left
behind. A refusal by the editor raises `WorkspaceEditError`, which the model sees as a failed
patch, and nothing is written.

The server's copy of a document follows its own edits (`OwnEdits`): an editor may send the
`didChange` for an applied edit well after answering, and the next patch in the same turn is
computed against the text the edit left, not the stale copy.

A client with change annotations reviews a patch that needs approval itself: the edit goes out
with one annotation per hunk, each needing confirmation, and the hunks the user unticked are
reported back (`hunk_edits`). Clients that render approvals themselves keep their own prompt
unless they ask for this too (`experimental.codex.hunkReview`).
"""

from __future__ import annotations

import dataclasses
import errno
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import to_fs_path

from codex_lsp.engine.patch import DiskFiles, PatchPlan, PatchWriteError
from codex_lsp.engine.patch.confined import ConfinedFiles
from codex_lsp.engine.patch.workspace import FileWriter
from codex_lsp.engine.workspace import AppliedPatch, DiskWorkspace, WorkspaceEditError
from codex_lsp.lsp.edits import (
    BuiltEdit,
    NetChange,
    OpenDocument,
    StaleDocumentError,
    build_workspace_edit,
    net_changes,
)
from codex_lsp.lsp.hunk_edits import build_annotated_edit, declined_after_edit
from codex_lsp.lsp.turn_undo import TurnCheckpoints

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
        self.own_edits = OwnEdits()
        self.checkpoints = TurnCheckpoints()

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
                return self.own_edits.view(doc.uri, doc.version, doc.source)
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
        self._checkpoint(plan)
        if review:
            return await self._review(plan)
        capabilities = self._server.client_capabilities.workspace
        if capabilities is None or not capabilities.apply_edit:
            return await self._disk_writer.apply(plan)
        in_editor, on_disk = self._split(plan)
        if in_editor is not None:
            await self._apply_in_editor(in_editor, capabilities.workspace_edit)
        if on_disk is not None:
            return await self._disk_writer.apply(on_disk)
        return AppliedPatch()

    def _checkpoint(self, plan: PatchPlan) -> None:
        """Keep what the plan's files hold before it, for undoing the turn."""
        try:
            changes = net_changes(plan, self)
        except StaleDocumentError as err:
            raise WorkspaceEditError(str(err)) from None
        writer = _writer(plan)
        for change in changes:
            doc = self.open_document(change.path)
            buffer = doc.text if doc is not None else None
            self.checkpoints.before_write(change.path, buffer, writer, after=change.after)

    def _split(self, plan: PatchPlan) -> tuple[PatchPlan | None, PatchPlan | None]:
        """The operations touching open documents (and whatever else touches their paths),
        and the rest, which go to disk only."""
        shown = {p for p in plan.touched_paths() if self.open_document(p) is not None}
        if not shown:
            return None, plan
        grown = True
        while grown:
            grown = False
            for op in plan.operations:
                paths = {op.path, op.destination}
                if paths & shown and not paths <= shown:
                    shown |= paths
                    grown = True
        editor_ops = tuple(op for op in plan.operations if {op.path, op.destination} & shown)
        disk_ops = tuple(op for op in plan.operations if op not in editor_ops)
        in_editor = dataclasses.replace(plan, operations=editor_ops)
        on_disk = dataclasses.replace(plan, operations=disk_ops) if disk_ops else None
        return in_editor, on_disk

    async def _apply_in_editor(
        self, plan: PatchPlan, caps: types.WorkspaceEditClientCapabilities | None
    ) -> None:
        try:
            changes = net_changes(plan, self)
            built = build_workspace_edit(plan, self, self.position_encoding())
        except StaleDocumentError as err:
            raise WorkspaceEditError(str(err)) from None
        if built.empty:
            return
        edit = self._fit_to_client(built, caps)
        if edit is None:
            await self._disk_writer.apply(plan)
            return
        await self.send_edit(edit)
        for change in changes:
            doc = self.open_document(change.path)
            if doc is not None and change.after is not None:
                self.own_edits.applied(doc.uri, self.server_copy(doc.uri), change.after)
        await self.sync_disk(changes, _writer(plan))

    def client_edit_capabilities(self) -> types.WorkspaceEditClientCapabilities | None:
        """How the client takes `workspace/applyEdit`; None when it takes none."""
        workspace = self._server.client_capabilities.workspace
        if workspace is None or not workspace.apply_edit:
            return None
        return workspace.workspace_edit or types.WorkspaceEditClientCapabilities()

    def server_copy(self, uri: str) -> tuple[int | None, str]:
        doc = self._server.workspace.get_text_document(uri)
        return doc.version, doc.source

    async def sync_disk(self, changes: list[NetChange], writer: FileWriter) -> None:
        """Write to disk what the editor holds now and did not save itself."""

        def sync() -> None:
            for change in changes:
                if change.after is None:
                    if os.path.lexists(change.path):
                        writer.remove(change.path)
                    continue
                try:
                    if self._disk.read_text(change.path) == change.after:
                        continue  # the editor saved it
                except (OSError, UnicodeDecodeError):
                    pass
                writer.write_text(change.path, change.after)

        try:
            await anyio.to_thread.run_sync(sync)
        except (OSError, PatchWriteError) as err:
            raise WorkspaceEditError(
                f"the editor applied the change but writing it to disk failed: {err}"
            ) from err

    async def _review(self, plan: PatchPlan) -> AppliedPatch:
        """Send the plan hunk by hunk for confirmation; report the hunks left out."""
        try:
            built = build_annotated_edit(plan, self, self.position_encoding(), confirm=True)
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
        declined = tuple(declined_after_edit(built, self))
        await self._save_open_documents([f.path for f in built.files], _writer(plan))
        return AppliedPatch(declined=declined)

    async def _save_open_documents(self, paths: list[Path], writer: FileWriter) -> None:
        """After a reviewed edit: what the editor's buffers now hold, on disk too."""
        changes = []
        for path in paths:
            doc = self.open_document(path)
            if doc is not None:
                changes.append(NetChange(path, None, doc.text))
        await self.sync_disk(changes, writer)
        for path in paths:
            try:
                after = self._disk.read_text(path)
            except FileNotFoundError:
                after = None
            except (OSError, UnicodeDecodeError):
                continue
            # What the user kept is what undoing the turn takes back.
            self.checkpoints.before_write(path, None, writer, after=after)

    def position_encoding(self) -> str:
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

    async def send_edit(self, edit: types.WorkspaceEdit) -> None:
        result = await self._request(edit)
        if not result.applied:
            reason = result.failure_reason or "no reason given"
            raise WorkspaceEditError(f"the editor refused the edit: {reason}")


def _writer(plan: PatchPlan) -> FileWriter:
    # A confined plan is written through handles on its roots, never via a symlink.
    return ConfinedFiles(plan.confinement) if plan.confinement is not None else DiskFiles()


class OwnEdits:
    """The text the server's own applied edits left in each document, until the editor's
    `didChange` for them arrives.

    An edit is recorded against the server's copy as it stood when the editor answered; any
    change the editor sends after that carries the edit (and possibly the user's typing on
    top), so the record is dropped then. While it stands, the document is offered without a
    version: the editor counts its own versions for the edit, and the text is known.
    """

    def __init__(self) -> None:
        self._texts: dict[str, tuple[int | None, str]] = {}

    def applied(self, uri: str, copy: tuple[int | None, str], text: str) -> None:
        version, current = copy
        if current == text:
            self._texts.pop(uri, None)  # the editor's didChange came before its answer
        else:
            self._texts[uri] = (version, text)

    def view(self, uri: str, version: int | None, text: str) -> OpenDocument:
        own = self._texts.get(uri)
        if own is None:
            return OpenDocument(uri=uri, version=version, text=text)
        if own[0] != version:
            del self._texts[uri]  # the editor caught up
            return OpenDocument(uri=uri, version=version, text=text)
        return OpenDocument(uri=uri, version=None, text=own[1])
