"""A checkpoint per turn, and "undo this turn": every file the turn's patches changed, back.

Patches land on disk at once (`editor_workspace`); review comes after. Before a patch of a turn
writes a file for the first time in that turn, the file's text in its editor buffer (if one
shows it) or on disk is kept; undoing the turn puts it back in both: the buffers through one
`workspace/applyEdit` (one undo step in the editor), the disk through the confined writer the
patch used. Unsaved text of the user's in such a buffer was saved with the turn's first change
and stays saved: buffer and disk agree after an undo as after a patch. A file changed again
since the turn (on disk it no longer holds what the turn left) is left alone and named, so
later work is never lost.

Served as the request `codex/turn/undo` `{threadId?}`, the command `codex.undoTurn`
`[{threadId?}]` and, for clients without `experimental.codex`, the code action "Undo the last
Codex turn"; without a thread id, the last turn that changed files is undone. The answer is
`{turnId, restored: [path], skipped: [{path, reason}]}`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from codex_lsp.lsp.protocol import plain_handler
from codex_lsp.protocol.jsonrpc import INVALID_PARAMS
from codex_lsp.protocol.threads.notifications import (
    TurnCompletedNotification,
    TurnStartedNotification,
)

if TYPE_CHECKING:
    from codex_lsp.engine.patch.workspace import FileWriter
    from codex_lsp.lsp.editor_workspace import EditorWorkspace
    from codex_lsp.lsp.engine_host import EngineHost
    from codex_lsp.lsp.observers import NotificationObservers
    from codex_lsp.lsp.server import CodexLanguageServer

UNDO_TURN = "codex.undoTurn"
UNDO_TITLE = "Undo the last Codex turn"


@dataclass
class FileCheckpoint:
    path: Path
    # The file on disk before the turn (None: it did not exist) and in its buffer, if open.
    disk: str | None
    buffer: str | None
    writer: FileWriter
    # What the turn left on disk, so a file changed since is not put back over newer work.
    after: str | None = None


@dataclass
class TurnCheckpoint:
    thread_id: str
    turn_id: str
    files: dict[Path, FileCheckpoint] = field(default_factory=dict)


def read_disk(path: Path) -> str | None:
    """A file's text on disk; None when absent. Raises for unreadable text."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


class TurnCheckpoints:
    """The checkpoints of the running turns and the last finished one of each thread."""

    def __init__(self) -> None:
        self._running: dict[str, TurnCheckpoint] = {}
        self._finished: dict[str, TurnCheckpoint] = {}
        self._last_thread: str | None = None

    def subscribe(self, observers: NotificationObservers) -> None:
        observers.on(TurnStartedNotification, self._started)
        observers.on(TurnCompletedNotification, self._completed)

    def _started(self, notice: TurnStartedNotification) -> None:
        self._running[notice.thread_id] = TurnCheckpoint(notice.thread_id, notice.turn.id)

    def _completed(self, notice: TurnCompletedNotification) -> None:
        checkpoint = self._running.pop(notice.thread_id, None)
        if checkpoint is not None and checkpoint.files:
            self._finished[notice.thread_id] = checkpoint
            self._last_thread = notice.thread_id

    def _current(self) -> TurnCheckpoint | None:
        # Patches do not say which thread wrote them; with one turn running it is that one.
        return next(reversed(self._running.values()), None) if self._running else None

    def before_write(
        self, path: Path, buffer: str | None, writer: FileWriter, *, after: str | None
    ) -> None:
        """Called before a patch changes `path`, with what it will hold afterwards."""
        checkpoint = self._current()
        if checkpoint is None:
            return
        kept = checkpoint.files.get(path)
        if kept is None:
            try:
                disk = read_disk(path)
            except (OSError, UnicodeDecodeError):
                return  # not text: undo cannot put it back, and leaves it alone
            kept = checkpoint.files[path] = FileCheckpoint(path, disk, buffer, writer)
        kept.after = after

    def last(self, thread_id: str | None) -> TurnCheckpoint | None:
        key = thread_id if thread_id is not None else self._last_thread
        return self._finished.get(key) if key is not None else None

    def forget(self, checkpoint: TurnCheckpoint) -> None:
        if self._finished.get(checkpoint.thread_id) is checkpoint:
            del self._finished[checkpoint.thread_id]


class TurnUndo:
    """The request, command and code action that undo a turn."""

    def __init__(self, server: CodexLanguageServer, host: EngineHost) -> None:
        self._server = server
        self._host = host

    def register(self, server: CodexLanguageServer) -> None:
        self._host.local_methods["turn/undo"] = self.undo
        server.command(UNDO_TURN)(plain_handler(self._command))

    async def _command(self, *arguments: Any) -> Any:
        first = arguments[0] if arguments else None
        return await self.undo(first if isinstance(first, dict) else None)

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        if self._server.codex_client:
            return []  # its own command undoes a turn
        if self._workspace() is None or self._checkpoints().last(None) is None:
            return []
        command = types.Command(title=UNDO_TITLE, command=UNDO_TURN, arguments=[{}])
        return [
            types.CodeAction(title=UNDO_TITLE, kind=types.CodeActionKind.Empty, command=command)
        ]

    def _workspace(self) -> EditorWorkspace | None:
        return self._host.workspace

    def _checkpoints(self) -> TurnCheckpoints:
        workspace = self._workspace()
        return workspace.checkpoints if workspace is not None else TurnCheckpoints()

    async def undo(self, params: Any) -> dict[str, Any]:
        thread_id = params.get("threadId") if isinstance(params, dict) else None
        if thread_id is not None and not isinstance(thread_id, str):
            raise JsonRpcException(code=INVALID_PARAMS, message="threadId must be a string")
        workspace = self._workspace()
        checkpoint = self._checkpoints().last(thread_id)
        if workspace is None or checkpoint is None:
            raise JsonRpcException(
                code=INVALID_PARAMS, message="no finished Codex turn changed files to undo"
            )
        restored, skipped = await restore(workspace, list(checkpoint.files.values()))
        self._checkpoints().forget(checkpoint)
        message = f"Codex: undid the turn in {len(restored)} file(s)"
        if skipped:
            names = ", ".join(f"{os.path.basename(s['path'])} ({s['reason']})" for s in skipped)
            message += f"; left alone: {names}"
        self._server.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning if skipped else types.MessageType.Info,
                message=message,
            )
        )
        return {"turnId": checkpoint.turn_id, "restored": restored, "skipped": skipped}


async def restore(
    workspace: EditorWorkspace, files: list[FileCheckpoint]
) -> tuple[list[str], list[dict[str, str]]]:
    """Put `files` back as the checkpoint has them: buffers in one edit, then the disk."""
    from codex_lsp.lsp.edits import NetChange, line_edit

    skipped: list[dict[str, str]] = []
    back: list[FileCheckpoint] = []
    for kept in files:
        try:
            now = read_disk(kept.path)
        except (OSError, UnicodeDecodeError):
            now = None
        if now != kept.after:
            skipped.append({"path": str(kept.path), "reason": "changed since the turn"})
        else:
            back.append(kept)
    document_changes: list[types.TextDocumentEdit | types.DeleteFile] = []
    caps = workspace.client_edit_capabilities()
    for kept in back:
        doc = workspace.open_document(kept.path)
        if doc is None or caps is None:
            continue
        wanted = kept.buffer if kept.buffer is not None else kept.disk
        if wanted is None:
            if types.ResourceOperationKind.Delete in (caps.resource_operations or []):
                document_changes.append(types.DeleteFile(uri=doc.uri))
            continue
        edit = line_edit(doc.text, wanted, workspace.position_encoding())
        if edit is not None:
            identifier = types.OptionalVersionedTextDocumentIdentifier(
                uri=doc.uri, version=doc.version
            )
            document_changes.append(types.TextDocumentEdit(text_document=identifier, edits=[edit]))
    if document_changes:
        await workspace.send_edit(types.WorkspaceEdit(document_changes=document_changes))
        for kept in back:
            doc = workspace.open_document(kept.path)
            wanted = kept.buffer if kept.buffer is not None else kept.disk
            if doc is not None and wanted is not None:
                copy = workspace.server_copy(doc.uri)
                workspace.own_edits.applied(doc.uri, copy, wanted)
    for kept in back:
        wanted = kept.buffer if kept.buffer is not None else kept.disk
        await workspace.sync_disk([NetChange(kept.path, None, wanted)], kept.writer)
    return [str(kept.path) for kept in back], skipped
