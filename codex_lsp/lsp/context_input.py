"""A chat message with editor context attached (`workspace/executeCommand`).

* `codex.message` `[{threadId, text, context?, model?}]`: start a turn on `threadId` (with
  `model` from then on, when given, and the other turn overrides `effort`, `approvalPolicy`,
  `sandboxPolicy`) on the user's text with the attached items as its context, through the v2
  `turn/startTask`: the thread shows the user's text as their message, and the engine words
  the context for the model. An editor sends what the user attached, as data; the server
  reads it:

  - `{type: "buffer", uri}`: the document's text as the editor holds it (unsaved edits too);
  - `{type: "selection", uri, range}`: the lines of `range` in that document;
  - `{type: "file", path}`: a file (absolute, or relative to the thread's folder), read like a
    buffer when one is open for it;
  - `{type: "diagnostics", uri, diagnostics}`: the editor's LSP `Diagnostic`s for the document,
    each with the line it points at.
  - `{type: "image", path}`: an image file (absolute, or relative to the thread's folder),
    sent to the model as the turn's `localImage` input.

  Returns `{threadId, turn}`. An item that cannot be read fails the request with a message
  naming it, and nothing is sent.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path, to_fs_path

from codex_lsp.lsp.commands import command_options, string_option, task_params, turn_overrides
from codex_lsp.lsp.line_tracking import split_lines
from codex_lsp.lsp.protocol import plain_handler
from codex_lsp.protocol.common import dump
from codex_lsp.store.bounded_read import IMAGE_MAX_BYTES, WORKSPACE_TEXT_MAX_BYTES, read_text

if TYPE_CHECKING:
    from codex_lsp.lsp.engine_host import EngineHost
    from codex_lsp.lsp.server import CodexLanguageServer

MESSAGE = "codex.message"
CONTEXT_COMMANDS = (MESSAGE,)

SEVERITY_WORDS = {1: "error", 2: "warning", 3: "information", 4: "hint"}


class _Position(BaseModel):
    line: int = Field(ge=0)
    character: int = Field(ge=0)


class _Range(BaseModel):
    start: _Position
    end: _Position


class _Diagnostic(BaseModel):
    model_config = ConfigDict(extra="ignore")

    range: _Range
    message: str
    severity: int | None = None
    source: str | None = None
    code: int | str | None = None


class ContextItem(BaseModel):
    """One attached item, as the editor sends it."""

    model_config = ConfigDict(extra="forbid")

    type: str
    uri: str | None = None
    path: str | None = None
    range: _Range | None = None
    diagnostics: list[_Diagnostic] | None = None


class ContextCommands:
    def __init__(self, server: CodexLanguageServer, host: EngineHost) -> None:
        self._server = server
        self._host = host

    def register(self, server: CodexLanguageServer) -> None:
        server.command(MESSAGE)(plain_handler(self.message))

    async def message(self, *arguments: object) -> Any:
        options = command_options(MESSAGE, arguments)
        thread_id = string_option(options, "threadId", MESSAGE, required=True)
        text = string_option(options, "text", MESSAGE, required=True)
        assert thread_id is not None and text is not None
        raw = options.get("context") or []
        if not isinstance(raw, list):
            raise JsonRpcInvalidParams(f"{MESSAGE}: 'context' must be a list")
        cwd = self._thread_cwd(thread_id)
        context: list[dict[str, Any]] = []
        for index, entry in enumerate(raw):
            try:
                item = ContextItem.model_validate(entry)
            except ValidationError as err:
                raise JsonRpcInvalidParams(
                    f"{MESSAGE}: context item {index + 1} is not valid: {err.errors()[0]['msg']}"
                ) from None
            context.append(self._context_item(item, index, cwd))
        params: dict[str, Any] = {
            "threadId": thread_id,
            "task": {"type": "ask", "text": text},
            "context": context,
        }
        params.update(turn_overrides(options))
        started = await self._host.start_task(task_params(params))
        return {"threadId": thread_id, "turn": dump(started.turn)}

    # -- reading the items ----------------------------------------------------------------

    def _context_item(self, item: ContextItem, index: int, cwd: str | None) -> dict[str, Any]:
        """The `turn/startTask` context item for `item`, with the text the editor holds."""
        where = f"{MESSAGE}: context item {index + 1} ({item.type})"
        if item.type == "file":
            if not item.path:
                raise JsonRpcInvalidParams(f"{where} needs a 'path'")
            path = item.path if os.path.isabs(item.path) else os.path.join(cwd or "", item.path)
            uri = from_fs_path(os.path.normpath(path)) or path
            return {"type": "file", "path": self._path(uri), "text": self._text(uri, where)}
        if item.type == "image":
            if not item.path:
                raise JsonRpcInvalidParams(f"{where} needs a 'path'")
            path = os.path.normpath(os.path.join(cwd or "", os.path.expanduser(item.path)))
            if not os.path.isfile(path):
                raise JsonRpcInvalidParams(f"{where}: {path} is not a file")
            size = os.path.getsize(path)
            if size > IMAGE_MAX_BYTES:
                raise JsonRpcInvalidParams(
                    f"{where}: {path} is too large ({size} bytes, limit {IMAGE_MAX_BYTES})"
                )
            return {"type": "image", "path": path}
        if not item.uri:
            raise JsonRpcInvalidParams(f"{where} needs a 'uri'")
        if item.type == "buffer":
            return {
                "type": "file",
                "path": self._path(item.uri),
                "text": self._text(item.uri, where),
            }
        if item.type == "selection":
            if item.range is None:
                raise JsonRpcInvalidParams(f"{where} needs a 'range'")
            return self._selection(item.uri, item.range, where)
        if item.type == "diagnostics":
            self._text(item.uri, where)  # the file must be there to point into
            path = self._path(item.uri)
            problems = [
                {
                    "path": path,
                    "range": d.range.model_dump(),
                    "severity": SEVERITY_WORDS.get(d.severity or 0, "information"),
                    "message": d.message if d.code is None else f"{d.message} [{d.code}]",
                    **({"source": d.source} if d.source else {}),
                }
                for d in item.diagnostics or []
            ]
            return {"type": "problems", "problems": problems}
        raise JsonRpcInvalidParams(
            f"{where}: the type must be buffer, selection, file, diagnostics or image"
        )

    def _text(self, uri: str, where: str) -> str:
        """The editor's text for `uri`, or the file on disk: a regular file, within the cap."""
        try:
            document = self._server.workspace.text_documents.get(unquote(uri))
            if document is not None:
                return str(document.source)
            return read_text(self._path(uri), WORKSPACE_TEXT_MAX_BYTES)
        except (OSError, UnicodeDecodeError) as err:
            reason = getattr(err, "strerror", None) or str(err)
            path = self._path(uri)
            raise JsonRpcInvalidParams(f"{where}: cannot read {path}: {reason}") from None

    def _selection(self, uri: str, selected: _Range, where: str) -> dict[str, Any]:
        lines = split_lines(self._text(uri, where))
        first, last = selected.start.line, selected.end.line
        if selected.end.character == 0 and last > first:
            last -= 1  # a selection ending at a line start does not include that line
        excerpt = "\n".join(lines[first : last + 1]) + "\n"
        return {
            "type": "file",
            "path": self._path(uri),
            "range": {
                "start": {"line": first, "character": 0},
                "end": {"line": last + 1, "character": 0},
            },
            "text": excerpt,
        }

    # -- naming things ------------------------------------------------------------------------

    @staticmethod
    def _path(uri: str) -> str:
        return to_fs_path(uri) or uri

    def _thread_cwd(self, thread_id: str) -> str | None:
        cwd = self._host.thread_cwd(thread_id)
        return str(cwd) if cwd is not None else None
