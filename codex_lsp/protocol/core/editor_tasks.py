"""What an editor asks of a turn beyond the user's words: context it attached, and a task.

A `user_turn` may carry attachments (files or parts of them, the editor's problems) and one
editor task (change a selection, fix or explain a review finding, apply a code block). The
user's own words stay the turn's visible input; the engine turns the attachments and the task
into instructions the model reads and the transcript does not show.

Lines are 1-based and inclusive. `text` is what the editor holds for those lines (its unsaved
buffer); without it the engine reads the file through the session's workspace.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from codex_lsp.protocol.core.inputs import ReviewFinding, WireModel


class LineSpan(WireModel):
    start: int = Field(ge=1)
    end: int = Field(ge=1)


class FileAttachment(WireModel):
    """A file, or some of its lines (a selection)."""

    type: Literal["file"] = "file"
    path: str
    lines: LineSpan | None = None
    text: str | None = None


class Problem(WireModel):
    """One diagnostic the editor shows (from any language server or linter)."""

    path: str
    line: int = Field(ge=1)
    severity: Literal["error", "warning", "information", "hint"] = "error"
    message: str
    source: str | None = None


class ProblemsAttachment(WireModel):
    type: Literal["problems"] = "problems"
    problems: list[Problem]


Attachment = Annotated[FileAttachment | ProblemsAttachment, Field(discriminator="type")]


class EditTask(WireModel):
    """Change these lines in place, following the user's instruction (the turn's text)."""

    type: Literal["edit"] = "edit"
    path: str
    lines: LineSpan
    text: str | None = None


class FindingTask(WireModel):
    """Fix a review finding, or explain it; `text` is the finding's lines as they read now."""

    type: Literal["fix_finding", "explain_finding"]
    finding: ReviewFinding
    text: str | None = None


class ApplyCodeTask(WireModel):
    """Work a code block from the conversation into a file."""

    type: Literal["apply_code"] = "apply_code"
    path: str
    code: str
    language: str | None = None


EditorTask = Annotated[EditTask | FindingTask | ApplyCodeTask, Field(discriminator="type")]
