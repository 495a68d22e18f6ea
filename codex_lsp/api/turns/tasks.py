"""`turn/startTask`: a turn on an editor request, its visible input the request as made: the
user's words (or the engine's few words for a click), then a label naming each attachment.

The v2 request (LSP ranges, camelCase) becomes the engine's attachments and task (1-based
lines); the words the model needs besides are the engine's (`engine.editor_tasks`). Relative
paths are read against the thread's working directory.
"""

from __future__ import annotations

import os
from pathlib import Path

from codex_lsp.api.convert import invalid
from codex_lsp.api.threads.loaded import LoadedThread
from codex_lsp.api.turns.lifecycle import TurnOverrides, submit_turn
from codex_lsp.engine.editor_tasks import attachment_label, request_text
from codex_lsp.protocol.core import editor_tasks as core
from codex_lsp.protocol.core.inputs import ByteRange, ReviewCodeLocation, ReviewFinding
from codex_lsp.protocol.turns.items import LocalImageUserInput, TextUserInput, UserInput
from codex_lsp.protocol.turns.models import TurnStartResponse
from codex_lsp.protocol.turns.tasks import (
    ApplyCodeTask,
    AskTask,
    EditTask,
    FileContextItem,
    FixFindingTask,
    ImageContextItem,
    LspRange,
    ProblemsContextItem,
    TaskFinding,
    TurnStartTaskParams,
    TurnTask,
)


async def start_task(thread: LoadedThread, params: TurnStartTaskParams) -> TurnStartResponse:
    session = thread.codex.session
    if session is None:
        raise invalid("threadId", f"thread {params.thread_id} has no running session")
    cwd = Path(params.cwd) if params.cwd else session.ctx.cwd
    said, task = _task(params.task, cwd)
    attachments: list[core.Attachment] = []
    images: list[UserInput] = []
    for n, item in enumerate(params.context):
        if isinstance(item, ImageContextItem):
            path = _absolute(item.path, cwd, f"context[{n}].path")
            images.append(LocalImageUserInput(path=path))
        else:
            attachments.append(_attachment(item, cwd, f"context[{n}]"))
    said = said if said is not None else request_text(task, cwd) if task is not None else None
    assert said is not None  # every task without the user's words has a request text
    # What the user sent: their words, and a label (not the content) for each attachment.
    shown: list[UserInput] = [TextUserInput(text=said)]
    shown += [TextUserInput(text=attachment_label(item, cwd)) for item in attachments]
    shown += images  # the model sees an image itself, as with `turn/start`
    overrides = TurnOverrides(
        cwd=params.cwd,
        approval_policy=params.approval_policy,
        sandbox_policy=params.sandbox_policy,
        model=params.model,
        effort=params.effort,
        summary=params.summary,
    )
    return await submit_turn(thread, shown, overrides, attachments=attachments, task=task)


def lines_of(selection: LspRange) -> core.LineSpan:
    """The 1-based lines an LSP range covers; one ending at column 0 of a later line does not
    cover that line (that is how a whole-line selection ends)."""
    first, last = selection.start.line + 1, selection.end.line + 1
    if selection.end.character == 0 and last > first:
        last -= 1
    return core.LineSpan(start=first, end=max(first, last))


def _absolute(path: str, cwd: Path, field: str) -> str:
    if not path:
        raise invalid(field, "must name a file")
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))


def _task(task: TurnTask, cwd: Path) -> tuple[str | None, core.EditorTask | None]:
    """The user's own words (None when the task is a click) and the engine's task."""
    if isinstance(task, AskTask):
        return task.text, None
    if isinstance(task, EditTask):
        edit = core.EditTask(
            path=_absolute(task.path, cwd, "task.path"), lines=lines_of(task.range), text=task.text
        )
        return task.instruction, edit
    if isinstance(task, ApplyCodeTask):
        path = _absolute(task.path, cwd, "task.path")
        return None, core.ApplyCodeTask(path=path, code=task.code, language=task.language)
    finding = _finding(task.finding, cwd)
    if isinstance(task, FixFindingTask):
        return None, core.FindingTask(type="fix_finding", finding=finding, text=task.text)
    return None, core.FindingTask(type="explain_finding", finding=finding, text=task.text)


def _finding(finding: TaskFinding, cwd: Path) -> ReviewFinding:
    first, last = sorted((finding.line_range.start, finding.line_range.end))
    return ReviewFinding(
        title=finding.title,
        body=finding.body,
        priority=finding.priority if finding.priority is not None else 1,
        code_location=ReviewCodeLocation(
            absolute_file_path=_absolute(finding.path, cwd, "task.finding.path"),
            line_range=ByteRange(start=first, end=last),
        ),
    )


def _attachment(
    item: FileContextItem | ProblemsContextItem, cwd: Path, field: str
) -> core.Attachment:
    if isinstance(item, FileContextItem):
        return core.FileAttachment(
            path=_absolute(item.path, cwd, f"{field}.path"),
            lines=lines_of(item.range) if item.range is not None else None,
            text=item.text,
        )
    return core.ProblemsAttachment(
        problems=[
            core.Problem(
                path=_absolute(problem.path, cwd, f"{field}.problems.path"),
                line=problem.range.start.line + 1,
                severity=problem.severity,
                message=problem.message,
                source=problem.source,
            )
            for problem in item.problems
        ]
    )
