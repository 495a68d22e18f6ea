"""Wire types an editor host adds to the v2 protocol: the editor's own state, and hunk decisions.

Editor context: a client that declares `capabilities.experimental.codex.editorContext = true`
answers four server requests (over LSP `codex/editor/<name>`), which back the model's
`editor_*` tools. Positions and ranges are LSP's, 0-based, in the position encoding the
connection agreed on.

* `editor/openBuffers` `{}` -> `{buffers: [{uri, languageId?, modified}]}`
* `editor/readBuffer` `{uri}` -> `{uri, text, languageId?, modified}`, or `null` when no
  buffer shows that file
* `editor/selection` `{}` -> `{uri, languageId?, selections: [{range, text}], cursor?}`, or
  `null` when no file has the focus
* `editor/diagnostics` `{uri?}` -> `{files: [{uri, diagnostics: [LSP Diagnostic]}]}`, every
  language server's diagnostics for one file or, without `uri`, for every file

Hunk decisions: an answer to `item/fileChange/requestApproval` may name hunks the user
declined (`declinedHunks`); the rest of the change is applied and the model is told.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from codex_lsp.protocol.approvals.models import FileChangeRequestApprovalResponse
from codex_lsp.protocol.common import Opt, V2Model

OPEN_BUFFERS = "editor/openBuffers"
READ_BUFFER = "editor/readBuffer"
SELECTION = "editor/selection"
DIAGNOSTICS = "editor/diagnostics"
EDITOR_REQUESTS = (OPEN_BUFFERS, READ_BUFFER, SELECTION, DIAGNOSTICS)


class Position(V2Model):
    line: int = Field(ge=0)
    character: int = Field(ge=0)


class Range(V2Model):
    start: Position
    end: Position


class OpenBuffer(V2Model):
    uri: str
    language_id: Opt[str] = None
    modified: bool = False


class OpenBuffersParams(V2Model):
    pass


class OpenBuffersResult(V2Model):
    buffers: list[OpenBuffer] = Field(default_factory=list)


class ReadBufferParams(V2Model):
    uri: str


class ReadBufferResult(V2Model):
    uri: str
    text: str
    language_id: Opt[str] = None
    modified: bool = False


class SelectionParams(V2Model):
    pass


class SelectedRange(V2Model):
    range: Range
    text: str = ""


class SelectionResult(V2Model):
    uri: str
    language_id: Opt[str] = None
    selections: list[SelectedRange] = Field(default_factory=list)
    cursor: Opt[Position] = None


class DiagnosticsParams(V2Model):
    uri: Opt[str] = None


class Diagnostic(V2Model):
    """An LSP Diagnostic, with the fields the model is shown."""

    range: Range
    message: str
    severity: Opt[int] = None
    source: Opt[str] = None
    code: Opt[int | str] = None


class FileDiagnostics(V2Model):
    uri: str
    diagnostics: list[Diagnostic] = Field(default_factory=list)


class DiagnosticsResult(V2Model):
    files: list[FileDiagnostics] = Field(default_factory=list)


class DeclinedHunk(V2Model):
    """A hunk of a proposed change: the file as the change's `path` names it, and the hunk's
    0-based place among the blocks of changed lines of that change's `diff` (its `@@` hunks,
    each cut wherever an unchanged line separates two changes; 0 for a whole-file change)."""

    path: str
    index: int = Field(ge=0)


class FileChangeApprovalAnswer(FileChangeRequestApprovalResponse):
    """An answer to `item/fileChange/requestApproval` with the hunks it declines, if any.

    `declinedHunks` in a form that cannot be read makes the whole answer unreadable, which
    must not be taken as "apply all of it".
    """

    declined_hunks: list[DeclinedHunk] = Field(default_factory=list)

    @field_validator("declined_hunks", mode="before")
    @classmethod
    def _none_declined(cls, value: object) -> object:
        # `null` names no hunk, like leaving the key out.
        return [] if value is None else value
