"""A chat message with editor context attached (`workspace/executeCommand`).

* `codex.message` `[{threadId, text, context?, model?}]`: start a turn on `threadId` (with
  `model` from then on, when given) whose input is the user's text followed by one text input
  per attached item. An editor sends what the user
  attached, as data; the server reads it and words it for the model:

  - `{type: "buffer", uri}`: the document's text as the editor holds it (unsaved edits too);
  - `{type: "selection", uri, range}`: the lines of `range` in that document;
  - `{type: "file", path}`: a file (absolute, or relative to the thread's folder), read like a
    buffer when one is open for it;
  - `{type: "diagnostics", uri, diagnostics}`: the editor's LSP `Diagnostic`s for the document,
    each with the line it points at.

  Returns `{threadId, turn}`. An item that cannot be read fails the request with a message
  naming it, and nothing is sent.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path, to_fs_path

from codex_lsp.lsp.commands import command_options, string_option
from codex_lsp.lsp.line_tracking import split_lines
from codex_lsp.lsp.protocol import plain_handler

if TYPE_CHECKING:
    from codex_lsp.lsp.engine_host import EngineHost
    from codex_lsp.lsp.server import CodexLanguageServer

MESSAGE = "codex.message"
CONTEXT_COMMANDS = (MESSAGE,)

# A file past this is named, not included: the agent can read what it needs of it.
MAX_CONTEXT_CHARS = 200_000
SEVERITY_WORDS = {1: "error", 2: "warning", 3: "info", 4: "hint"}


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


def _fence(text: str) -> str:
    fence = "```"
    while fence in text:  # code holding a fence must not close ours early
        fence += "`"
    return fence


def _block(title: str, text: str, language: str) -> str:
    fence = _fence(text)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{title}\n{fence}{language}\n{body}{fence}\n"


def _language(path: str) -> str:
    return Path(path).suffix.lstrip(".")


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
        inputs: list[dict[str, Any]] = [{"type": "text", "text": text}]
        for index, entry in enumerate(raw):
            try:
                item = ContextItem.model_validate(entry)
            except ValidationError as err:
                raise JsonRpcInvalidParams(
                    f"{MESSAGE}: context item {index + 1} is not valid: {err.errors()[0]['msg']}"
                ) from None
            inputs.append({"type": "text", "text": self._describe(item, index, cwd)})
        params: dict[str, Any] = {"threadId": thread_id, "input": inputs}
        model = string_option(options, "model", MESSAGE, required=False)
        if model:
            params["model"] = model
        result = await self._host.call("turn/start", params)
        return {"threadId": thread_id, "turn": result.get("turn")}

    # -- reading the items ----------------------------------------------------------------

    def _describe(self, item: ContextItem, index: int, cwd: str | None) -> str:
        where = f"{MESSAGE}: context item {index + 1} ({item.type})"
        if item.type == "file":
            if not item.path:
                raise JsonRpcInvalidParams(f"{where} needs a 'path'")
            path = item.path if os.path.isabs(item.path) else os.path.join(cwd or "", item.path)
            uri = from_fs_path(os.path.normpath(path)) or path
            return self._whole(uri, where, cwd, "file")
        if not item.uri:
            raise JsonRpcInvalidParams(f"{where} needs a 'uri'")
        if item.type == "buffer":
            return self._whole(item.uri, where, cwd, "buffer")
        if item.type == "selection":
            if item.range is None:
                raise JsonRpcInvalidParams(f"{where} needs a 'range'")
            return self._selection(item.uri, item.range, where, cwd)
        if item.type == "diagnostics":
            return self._diagnostics(item.uri, item.diagnostics or [], where, cwd)
        raise JsonRpcInvalidParams(
            f"{where}: the type must be buffer, selection, file or diagnostics"
        )

    def _text(self, uri: str, where: str) -> str:
        try:
            return str(self._server.workspace.get_text_document(uri).source)
        except (OSError, UnicodeDecodeError) as err:
            reason = getattr(err, "strerror", None) or str(err)
            path = self._path(uri)
            raise JsonRpcInvalidParams(f"{where}: cannot read {path}: {reason}") from None

    def _whole(self, uri: str, where: str, cwd: str | None, kind: str) -> str:
        text = self._text(uri, where)
        shown = self._shown(uri, cwd)
        if len(text) > MAX_CONTEXT_CHARS:
            return (
                f"Context: {shown} ({len(text)} characters, too large to include here; "
                "read the parts you need).\n"
            )
        what = "the editor's buffer, unsaved edits included" if kind == "buffer" else "file"
        return _block(f"Context: {shown} ({what}):", text, _language(shown))

    def _selection(self, uri: str, selected: _Range, where: str, cwd: str | None) -> str:
        lines = split_lines(self._text(uri, where))
        first, last = selected.start.line, selected.end.line
        if selected.end.character == 0 and last > first:
            last -= 1  # a selection ending at a line start does not include that line
        excerpt = "".join(lines[first : last + 1])
        shown = self._shown(uri, cwd)
        title = f"Context: lines {first + 1}-{last + 1} of {shown}:"
        return _block(title, excerpt, _language(shown))

    def _diagnostics(
        self, uri: str, diagnostics: list[_Diagnostic], where: str, cwd: str | None
    ) -> str:
        shown = self._shown(uri, cwd)
        if not diagnostics:
            return f"Context: {shown} has no diagnostics.\n"
        lines = split_lines(self._text(uri, where))
        out = [f"Context: diagnostics in {shown}:"]
        ordered = sorted(diagnostics, key=lambda d: (d.range.start.line, d.range.start.character))
        for diagnostic in ordered:
            line = diagnostic.range.start.line
            labels = [SEVERITY_WORDS.get(diagnostic.severity or 0, "note")]
            if diagnostic.source:
                labels.append(diagnostic.source)
            if diagnostic.code is not None:
                labels.append(str(diagnostic.code))
            out.append(f"- line {line + 1} ({', '.join(labels)}): {diagnostic.message}")
            if line < len(lines):
                out.append(f"    {lines[line].rstrip()}")
        return "\n".join(out) + "\n"

    # -- naming things ------------------------------------------------------------------------

    @staticmethod
    def _path(uri: str) -> str:
        return to_fs_path(uri) or uri

    def _shown(self, uri: str, cwd: str | None) -> str:
        path = self._path(uri)
        if cwd and path.startswith(cwd.rstrip(os.sep) + os.sep):
            return os.path.relpath(path, cwd)
        return path

    def _thread_cwd(self, thread_id: str) -> str | None:
        api = self._host.api
        try:
            cwd = api.thread_cwd(thread_id) if api is not None else None
        except Exception:
            return None
        return str(cwd) if cwd is not None else None

