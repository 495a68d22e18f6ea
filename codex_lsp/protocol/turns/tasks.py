"""`turn/startTask` (our extension to v2): a turn on an editor request, with attached context.

An editor asks for a turn the way its user did: the words typed (`ask`, `edit`), or a click on
a finding (`fixFinding`, `explainFinding`) or a code block (`applyCode`), with what the user
attached (files, selections, the editor's problems). The thread's `userMessage` item carries
the request as the user made it; the engine words the instructions the model needs, which the
transcript never shows. Ranges are LSP ranges (0-based lines and characters); `text`, when an
editor sends it, is what its buffer holds there, unsaved changes included.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from codex_lsp.protocol.common import (
    AskForApproval,
    Opt,
    ReasoningEffort,
    ReasoningSummary,
    SandboxPolicy,
    V2Model,
)
from codex_lsp.protocol.methods import MethodTable
from codex_lsp.protocol.turns.models import TurnStartResponse


class LspPosition(V2Model):
    """0-based line and character, as LSP counts them."""

    line: int = Field(ge=0)
    character: int = Field(ge=0)


class LspRange(V2Model):
    start: LspPosition
    end: LspPosition


class FileContextItem(V2Model):
    """A file, or the part of it `range` covers (a selection)."""

    type: Literal["file"] = "file"
    path: str
    range: Opt[LspRange] = None
    text: Opt[str] = None


ProblemSeverity = TypeAliasType(
    "ProblemSeverity", Literal["error", "warning", "information", "hint"]
)


class EditorProblem(V2Model):
    path: str
    range: LspRange
    severity: ProblemSeverity = "error"
    message: str
    source: Opt[str] = None


class ProblemsContextItem(V2Model):
    type: Literal["problems"] = "problems"
    problems: list[EditorProblem]


class ImageContextItem(V2Model):
    """An image file, sent to the model as the turn's `localImage` input."""

    type: Literal["image"] = "image"
    path: str


ContextItem = TypeAliasType(
    "ContextItem",
    Annotated[
        FileContextItem | ProblemsContextItem | ImageContextItem, Field(discriminator="type")
    ],
)


class FindingLineRange(V2Model):
    """1-based, inclusive: how review findings count lines."""

    start: int = Field(ge=1)
    end: int = Field(ge=1)


class TaskFinding(V2Model):
    title: str
    body: str = ""
    priority: Opt[int] = None
    path: str
    line_range: FindingLineRange


class AskTask(V2Model):
    type: Literal["ask"] = "ask"
    text: str = Field(min_length=1)


class EditTask(V2Model):
    """Change the lines `range` covers in `path`, following `instruction`."""

    type: Literal["edit"] = "edit"
    instruction: str = Field(min_length=1)
    path: str
    range: LspRange
    text: Opt[str] = None


class FixFindingTask(V2Model):
    type: Literal["fixFinding"] = "fixFinding"
    finding: TaskFinding
    text: Opt[str] = None


class ExplainFindingTask(V2Model):
    type: Literal["explainFinding"] = "explainFinding"
    finding: TaskFinding
    text: Opt[str] = None


class ApplyCodeTask(V2Model):
    """Work `code` (a block from the conversation) into the file `path`."""

    type: Literal["applyCode"] = "applyCode"
    path: str
    code: str = Field(min_length=1)
    language: Opt[str] = None


TurnTask = TypeAliasType(
    "TurnTask",
    Annotated[
        AskTask | EditTask | FixFindingTask | ExplainFindingTask | ApplyCodeTask,
        Field(discriminator="type"),
    ],
)


class TurnStartTaskParams(V2Model):
    """Start a turn on `task`. The overrides stick for later turns, as with `turn/start`."""

    thread_id: str
    task: TurnTask
    context: list[ContextItem] = Field(default_factory=list)
    cwd: Opt[str] = None
    approval_policy: Opt[AskForApproval] = None
    sandbox_policy: Opt[SandboxPolicy] = None
    model: Opt[str] = None
    effort: Opt[ReasoningEffort] = None
    summary: Opt[ReasoningSummary] = None


METHODS = MethodTable()
TURN_START_TASK = METHODS.request(
    "turn/startTask", TurnStartTaskParams, TurnStartResponse, extension=True
)
