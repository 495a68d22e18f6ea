"""The `editor_*` tools: the model reads what the user's editor holds.

Offered only to a session whose front door gave it an `EditorContext`:

* `editor_open_buffers`: the open files, which have unsaved changes, their language;
* `editor_read_buffer`: a file's text as the editor has it (unsaved changes included), whole
  or a range of lines;
* `editor_selection`: the focused file, its selected text and the cursor;
* `editor_diagnostics`: every language server's diagnostics, for one file or all of them.

Lines and columns are shown 1-based, paths relative to the thread's directory when inside it.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from codex_lsp.engine.editor_context import EditorContext, EditorContextError, uri_path
from codex_lsp.engine.extensions import Extension, ToolHandler
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput, object_arguments
from codex_lsp.protocol.editor import Diagnostic, FileDiagnostics, Position, Range

if TYPE_CHECKING:
    from codex_lsp.engine.session import Session
    from codex_lsp.engine.turn_context import TurnContext

OPEN_BUFFERS = "editor_open_buffers"
READ_BUFFER = "editor_read_buffer"
SELECTION = "editor_selection"
DIAGNOSTICS = "editor_diagnostics"

T = TypeVar("T")

# A whole buffer past this many lines is cut; the model can ask for a range.
MAX_LINES = 2000
SEVERITIES = {1: "error", 2: "warning", 3: "info", 4: "hint"}

_NO_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


def _function(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "name": name,
        "description": description,
        "strict": False,
        "parameters": parameters,
    }


TOOL_SPECS: list[dict[str, Any]] = [
    _function(
        OPEN_BUFFERS,
        "List the files open in the user's editor: which have unsaved changes, and their "
        "language. Start here to see what the user is working on.",
        _NO_PARAMETERS,
    ),
    _function(
        READ_BUFFER,
        "Read a file as the user's editor holds it, unsaved changes included; this can differ "
        "from the file on disk. Only for files open in the editor.",
        {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "The file, absolute or relative."},
                "start_line": {
                    "type": "integer",
                    "description": "First line to read, 1-based (default: 1).",
                },
                "end_line": {
                    "type": "integer",
                    "description": "Last line to read, inclusive (default: the last line).",
                },
            },
            "required": ["path"],
            "additionalProperties": False,
        },
    ),
    _function(
        SELECTION,
        "The file that has the focus in the user's editor, the text the user selected in it "
        'and where the cursor is. Use it when the user says "this", "here" or "the selection".',
        _NO_PARAMETERS,
    ),
    _function(
        DIAGNOSTICS,
        "Errors and warnings every language server in the user's editor reports (compilers, "
        "type checkers, linters), for one file or, without a path, for every file.",
        {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "The file; leave out for all files."},
            },
            "additionalProperties": False,
        },
    ),
]


def _editor(call: ToolCall) -> EditorContext:
    editor = call.session.editor
    if editor is None:
        raise ToolError(f"{call.name} is not available: no editor is connected")
    return editor


def _shown(uri: str, cwd: Path) -> str:
    path = uri_path(uri)
    if path is None:
        return uri
    try:
        relative = os.path.relpath(path, cwd)
    except ValueError:
        return str(path)
    return str(path) if relative.startswith("..") else relative


def _where(position: Position) -> str:
    return f"line {position.line + 1}, column {position.character + 1}"


def _span(span: Range) -> str:
    return f"from {_where(span.start)} to {_where(span.end)}"


async def open_buffers(call: ToolCall) -> ToolOutput:
    result = await _ask(call, _editor(call).open_buffers())
    if not result.buffers:
        return ToolOutput("No files are open in the editor.")
    lines = [f"Open in the editor ({len(result.buffers)}):"]
    for buffer in result.buffers:
        notes = [buffer.language_id] if buffer.language_id else []
        if buffer.modified:
            notes.append("unsaved changes")
        suffix = f"  [{', '.join(notes)}]" if notes else ""
        lines.append(f"{_shown(buffer.uri, call.ctx.cwd)}{suffix}")
    return ToolOutput("\n".join(lines))


def _line_number(args: dict[str, Any], key: str) -> int | None:
    value = args.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ToolError(f"`{key}` must be a line number from 1")
    return value


async def read_buffer(call: ToolCall) -> ToolOutput:
    args = object_arguments(call.payload)
    raw = args.get("path")
    if not isinstance(raw, str) or not raw:
        raise ToolError("`path` must name a file")
    start, end = _line_number(args, "start_line"), _line_number(args, "end_line")
    path = Path(os.path.normpath(call.ctx.cwd / raw))
    result = await _ask(call, _editor(call).read_buffer(path))
    if result is None:
        return ToolOutput(
            f"{raw} is not open in the editor; read it from disk instead.", success=False
        )
    lines = result.text.splitlines()
    first = start or 1
    last = min(end or len(lines), len(lines))
    if first > max(len(lines), 1):
        raise ToolError(f"{raw} has {len(lines)} lines; start_line {first} is past its end")
    cut = end is None and last - first + 1 > MAX_LINES
    if cut:
        last = first + MAX_LINES - 1
    notes = [result.language_id] if result.language_id else []
    notes.append("unsaved changes" if result.modified else "saved")
    header = (
        f"{_shown(result.uri, call.ctx.cwd)} ({', '.join(notes)}), "
        f"lines {first}-{last} of {len(lines)}:"
    )
    body = [f"L{number}: {lines[number - 1]}" for number in range(first, last + 1)]
    if cut:
        body.append(f"... {len(lines) - last} more lines; ask for a range with start_line")
    return ToolOutput("\n".join([header, *body]))


async def selection(call: ToolCall) -> ToolOutput:
    result = await _ask(call, _editor(call).selection())
    if result is None:
        return ToolOutput("No file has the focus in the editor.")
    language = f" ({result.language_id})" if result.language_id else ""
    lines = [f"Focused file: {_shown(result.uri, call.ctx.cwd)}{language}"]
    if result.cursor is not None:
        lines.append(f"Cursor: {_where(result.cursor)}")
    chosen = [s for s in result.selections if s.range.start != s.range.end]
    if not chosen:
        lines.append("No text is selected.")
    for number, selected in enumerate(chosen, start=1):
        label = "Selection" if len(chosen) == 1 else f"Selection {number}"
        lines.append(f"{label}, {_span(selected.range)}:")
        lines.append(selected.text)
    return ToolOutput("\n".join(lines))


def _diagnostic_line(shown: str, diagnostic: Diagnostic) -> str:
    start = diagnostic.range.start
    severity = SEVERITIES.get(diagnostic.severity or 0, "problem")
    source = f" [{diagnostic.source}]" if diagnostic.source else ""
    code = f" ({diagnostic.code})" if diagnostic.code is not None else ""
    message = diagnostic.message.replace("\n", " ")
    return f"{shown}:{start.line + 1}:{start.character + 1}: {severity}{source} {message}{code}"


async def diagnostics(call: ToolCall) -> ToolOutput:
    args = object_arguments(call.payload)
    raw = args.get("path")
    if raw is not None and (not isinstance(raw, str) or not raw):
        raise ToolError("`path` must name a file, or be left out")
    path = Path(os.path.normpath(call.ctx.cwd / raw)) if raw else None
    result = await _ask(call, _editor(call).diagnostics(path))
    files: list[FileDiagnostics] = [f for f in result.files if f.diagnostics]
    count = sum(len(f.diagnostics) for f in files)
    where = raw or "any open file"
    if not count:
        return ToolOutput(f"The editor reports no diagnostics for {where}.")
    noun = "file" if len(files) == 1 else "files"
    lines = [f"Diagnostics in the editor ({count} in {len(files)} {noun}):"]
    for file in files:
        shown = _shown(file.uri, call.ctx.cwd)
        ordered = sorted(file.diagnostics, key=lambda d: (d.range.start.line, d.severity or 9))
        lines.extend(_diagnostic_line(shown, d) for d in ordered)
    return ToolOutput("\n".join(lines))


async def _ask(call: ToolCall, request: Awaitable[T]) -> T:
    try:
        return await request
    except EditorContextError as err:
        raise ToolError(f"the editor could not answer {call.name}: {err}") from None


class EditorToolsExtension(Extension):
    name = "editor tools"

    def tool_specs(self, session: Session, ctx: TurnContext) -> list[dict[str, Any]]:
        return list(TOOL_SPECS) if session.editor is not None else []

    def tool_handlers(self) -> dict[str, ToolHandler]:
        return {
            OPEN_BUFFERS: open_buffers,
            READ_BUFFER: read_buffer,
            SELECTION: selection,
            DIAGNOSTICS: diagnostics,
        }
