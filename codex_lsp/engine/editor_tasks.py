"""Editor requests in the model's words: attached context and tasks as developer instructions.

A turn's visible input is what the user said (or, for a request made with a click, the short
request that `request_text` words); what the engine knows the model needs besides, the selected
code, the finding, the way to make the change, goes into one developer message recorded right
after the user's message. The transcript (`user_message` events, and so every client's
`userMessage` item) never shows it; the model reads both, now and after a resume.
"""

from __future__ import annotations

import os
from pathlib import Path

from codex_lsp.engine.prompts import render
from codex_lsp.engine.workspace import Workspace
from codex_lsp.protocol.core.editor_tasks import (
    ApplyCodeTask,
    Attachment,
    EditorTask,
    EditTask,
    FileAttachment,
    FindingTask,
    LineSpan,
    ProblemsAttachment,
)
from codex_lsp.protocol.core.inputs import ReviewFinding
from codex_lsp.protocol.core.response_items import MessageItem

# Attached files are context, not a corpus: past this a file is cut, and says so.
MAX_ATTACHED_CHARS = 64 * 1024


def shown_path(path: str, cwd: Path) -> str:
    """`path` relative to `cwd` when it lies under it, else as given."""
    base = str(cwd).rstrip(os.sep) + os.sep
    return path[len(base) :] if path.startswith(base) else path


def fenced(code: str, language: str | None = None) -> str:
    """`code` in a Markdown fence no line of it can close early."""
    fence = "```"
    while fence in code:
        fence += "`"
    body = code if code.endswith("\n") or not code else code + "\n"
    return f"{fence}{language or ''}\n{body}{fence}"


def language_of(path: str) -> str:
    return Path(path).suffix.lstrip(".")


def span_text(lines: LineSpan) -> str:
    return f"line {lines.start}" if lines.start == lines.end else f"lines {lines.start}-{lines.end}"


def request_text(task: EditorTask, cwd: Path) -> str | None:
    """What the user asked, in a few words, for tasks started with a click rather than typed."""
    if isinstance(task, FindingTask):
        location = _finding_location(task.finding, cwd)
        name = "fix_finding_request" if task.type == "fix_finding" else "explain_finding_request"
        return render(name, title=task.finding.title, location=location)
    if isinstance(task, ApplyCodeTask):
        return render("apply_code_request", path=shown_path(task.path, cwd))
    return None


def attachment_label(item: Attachment, cwd: Path) -> str:
    """How an attachment is named in the user's message: a label, not its content."""
    if isinstance(item, ProblemsAttachment):
        paths = {problem.path for problem in item.problems}
        count = len(item.problems)
        if len(paths) == 1:
            what = f"problems in {shown_path(paths.pop(), cwd)}"
        else:
            what = f"{count} problem{'' if count == 1 else 's'}"
        return render("attachment_label", what=what)
    path = shown_path(item.path, cwd)
    what = path if item.lines is None else f"{path}, {span_text(item.lines)}"
    return render("attachment_label", what=what)


def turn_instructions(
    task: EditorTask | None, attachments: list[Attachment], workspace: Workspace, cwd: Path
) -> str | None:
    """The developer instructions for a turn's task and attachments, or None without either."""
    sections: list[str] = []
    if task is not None:
        sections.append(_task_section(task, workspace, cwd))
    items = [_attachment(item, workspace, cwd) for item in attachments]
    if items:
        sections.append(render("attached_context", items="\n\n".join(items)))
    return "\n\n".join(sections) if sections else None


def developer_note(text: str) -> MessageItem:
    """A developer message holding `text` (the shape the Responses API takes)."""
    return {
        "type": "message",
        "role": "developer",
        "content": [{"type": "input_text", "text": text}],
    }


# -- tasks ------------------------------------------------------------------------------------


def _task_section(task: EditorTask, workspace: Workspace, cwd: Path) -> str:
    if isinstance(task, EditTask):
        code = task.text if task.text is not None else _read_lines(workspace, task.path, task.lines)
        return render(
            "edit_selection",
            where=span_text(task.lines),
            path=shown_path(task.path, cwd),
            code=fenced(code, language_of(task.path)),
        )
    if isinstance(task, FindingTask):
        finding = task.finding
        where = finding.code_location
        lines = LineSpan(start=where.line_range.start, end=where.line_range.end)
        path = where.absolute_file_path
        code = task.text if task.text is not None else _read_lines(workspace, path, lines)
        return render(
            "fix_finding" if task.type == "fix_finding" else "explain_finding",
            title=finding.title,
            path=shown_path(path, cwd),
            where=span_text(lines),
            body=finding.body.strip(),
            code=fenced(code, language_of(path)),
        )
    return render(
        "apply_code",
        path=shown_path(task.path, cwd),
        code=fenced(task.code, task.language or language_of(task.path)),
    )


def _finding_location(finding: ReviewFinding, cwd: Path) -> str:
    where = finding.code_location
    first, last = where.line_range.start, where.line_range.end
    lines = str(first) if first == last else f"{first}-{last}"
    return f"{shown_path(where.absolute_file_path, cwd)}:{lines}"


# -- attachments ------------------------------------------------------------------------------


def _attachment(item: Attachment, workspace: Workspace, cwd: Path) -> str:
    if isinstance(item, ProblemsAttachment):
        return render("attached_problems", problems=_problem_lines(item, workspace, cwd))
    return _file(item, workspace, cwd)


def _file(item: FileAttachment, workspace: Workspace, cwd: Path) -> str:
    path = shown_path(item.path, cwd)
    language = language_of(item.path)
    if item.lines is None:
        text = item.text if item.text is not None else _read(workspace, item.path)
        return render("attached_file", path=path, code=fenced(_capped(text), language))
    text = item.text if item.text is not None else _read_lines(workspace, item.path, item.lines)
    return render(
        "attached_lines",
        where=span_text(item.lines),
        path=path,
        code=fenced(_capped(text), language),
    )


def _problem_lines(item: ProblemsAttachment, workspace: Workspace, cwd: Path) -> str:
    """One line per problem, with the code line it points at below it when the file reads."""
    texts: dict[str, list[str] | None] = {}
    lines = []
    for problem in sorted(item.problems, key=lambda p: (p.path, p.line)):
        source = f" ({problem.source})" if problem.source else ""
        where = f"{shown_path(problem.path, cwd)}:{problem.line}"
        lines.append(f"- {where} {problem.severity}: {problem.message}{source}")
        if problem.path not in texts:
            try:
                texts[problem.path] = _text_of(workspace, problem.path).splitlines()
            except _Unreadable:
                texts[problem.path] = None
        code = texts[problem.path]
        if code is not None and problem.line <= len(code) and code[problem.line - 1].strip():
            lines.append(f"    {code[problem.line - 1].rstrip()}")
    return "\n".join(lines)


def _capped(text: str) -> str:
    if len(text) <= MAX_ATTACHED_CHARS:
        return text
    return text[:MAX_ATTACHED_CHARS] + f"\n[… {len(text) - MAX_ATTACHED_CHARS} more characters]\n"


class _Unreadable(Exception):
    """A file the workspace could not give; its message stands in for the text."""


def _read(workspace: Workspace, path: str) -> str:
    try:
        return _text_of(workspace, path)
    except _Unreadable as err:
        return str(err)


def _read_lines(workspace: Workspace, path: str, lines: LineSpan) -> str:
    try:
        text = _text_of(workspace, path)
    except _Unreadable as err:
        return str(err)
    first, last = sorted((lines.start, lines.end))
    return "".join(text.splitlines(keepends=True)[first - 1 : last])


def _text_of(workspace: Workspace, path: str) -> str:
    try:
        return workspace.read_text(Path(path))
    except (OSError, UnicodeDecodeError) as err:
        reason = getattr(err, "strerror", None) or str(err)
        raise _Unreadable(f"[{path} could not be read: {reason}]") from None
