"""A patch as one `WorkspaceEdit` with a change annotation per hunk, for the user to confirm.

A client with `workspace.workspaceEdit.changeAnnotationSupport` shows edits whose annotation
`needsConfirmation` before applying them (VS Code's refactor preview) and lets the user untick
single ones. Each hunk of the patch (`engine.patch.hunks`) is one annotated text edit, with the
file and hunk as its label and the lines it takes out and puts in as its description; adding
or deleting a file is one annotated resource operation.

The answer to `workspace/applyEdit` says only whether the edit went through, so which hunks
the user kept is read from the files afterwards: the buffer text the editor synced (or the
disk) must be the original with some hunks applied whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from codex_lsp.engine.patch.hunks import ChangeHunk, FileHunks, applied_hunks, file_hunks
from codex_lsp.lsp.edits import DocumentView, end_of, net_changes, split_lines

if TYPE_CHECKING:
    from codex_lsp.engine.patch import PatchPlan

DESCRIPTION_LINES = 12


@dataclass
class AnnotatedEdit:
    edit: types.WorkspaceEdit
    files: list[FileHunks] = field(default_factory=list)
    # Files written as one replacement of their whole text: their hunks stand or fall together.
    whole_text: set[Path] = field(default_factory=set)
    operations: set[types.ResourceOperationKind] = field(default_factory=set)


def _uri(view: DocumentView, path: Path) -> tuple[str, int | None]:
    from pygls.uris import from_fs_path

    doc = view.open_document(path)
    if doc is not None:
        return doc.uri, doc.version
    return from_fs_path(str(path)) or path.as_uri(), None


def _lsp_lines_match(text: str) -> bool:
    """Whether the editor counts lines as the diff does (only a lone CR splits differently)."""
    return "\r" not in text.replace("\r\n", "")


def _position(lines: list[str], line: int, encoding: str) -> types.Position:
    """The start of `line`; past the last line, the end of the text."""
    if line < len(lines):
        return types.Position(line=line, character=0)
    return end_of(lines, encoding)


def annotation(hunk: ChangeHunk, total: int, *, confirm: bool) -> types.ChangeAnnotation:
    label = (
        f"{hunk.display_path}: hunk {hunk.index + 1} of {total}"
        if hunk.kind == "update"
        else f"{hunk.display_path}: {hunk.header}"
    )
    body = hunk.describe().splitlines()[1:]
    shown = body[:DESCRIPTION_LINES] + (["…"] if len(body) > DESCRIPTION_LINES else [])
    description = "\n".join([hunk.header, *shown])
    return types.ChangeAnnotation(label=label, needs_confirmation=confirm, description=description)


def build_annotated_edit(
    plan: PatchPlan, view: DocumentView, encoding: str, *, confirm: bool
) -> AnnotatedEdit:
    """The plan (without moves) as one edit, one annotation per hunk.

    Raises `StaleDocumentError` when a file no longer holds the text the plan was made from.
    """
    net_changes(plan, view)  # the staleness check, against what the editor shows now
    changes: list[types.TextDocumentEdit | types.CreateFile | types.DeleteFile] = []
    annotations: dict[str, types.ChangeAnnotation] = {}
    built = AnnotatedEdit(types.WorkspaceEdit(document_changes=[]))
    for file in file_hunks(plan):
        built.files.append(file)
        uri, version = _uri(view, file.path)
        total = len(file.hunks)
        ids = [f"hunk-{len(annotations) + n}" for n in range(total)]
        for hunk, annotation_id in zip(file.hunks, ids, strict=True):
            annotations[annotation_id] = annotation(hunk, total, confirm=confirm)
        if file.before is None:
            changes.append(types.CreateFile(uri=uri, annotation_id=ids[0]))
            built.operations.add(types.ResourceOperationKind.Create)
            if file.after:
                start = types.Position(line=0, character=0)
                insert = types.AnnotatedTextEdit(
                    range=types.Range(start=start, end=start),
                    new_text=file.after,
                    annotation_id=ids[0],
                )
                changes.append(_document_edit(uri, None, [insert]))
            continue
        if file.after is None:
            changes.append(types.DeleteFile(uri=uri, annotation_id=ids[0]))
            built.operations.add(types.ResourceOperationKind.Delete)
            continue
        lines = split_lines(file.before)
        if not _lsp_lines_match(file.before):
            built.whole_text.add(file.path)
            whole = types.AnnotatedTextEdit(
                range=types.Range(
                    start=_position(lines, 0, encoding), end=_position(lines, len(lines), encoding)
                ),
                new_text=file.after,
                annotation_id=ids[0],
            )
            changes.append(_document_edit(uri, version, [whole]))
            continue
        edits = [
            types.AnnotatedTextEdit(
                range=types.Range(
                    start=_position(lines, hunk.old_start, encoding),
                    end=_position(lines, hunk.old_end, encoding),
                ),
                new_text="".join(hunk.added),
                annotation_id=annotation_id,
            )
            for hunk, annotation_id in zip(file.hunks, ids, strict=True)
        ]
        changes.append(_document_edit(uri, version, edits))
    built.edit = types.WorkspaceEdit(document_changes=changes, change_annotations=annotations)
    return built


def _document_edit(
    uri: str, version: int | None, edits: list[types.AnnotatedTextEdit]
) -> types.TextDocumentEdit:
    return types.TextDocumentEdit(
        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
        edits=list(edits),
    )


def declined_after_edit(built: AnnotatedEdit, view: DocumentView) -> list[ChangeHunk]:
    """The hunks the files do not hold now that the editor has applied what the user kept.

    A file whose text fits no choice of hunks (the user also typed in it) counts as applied:
    the editor said it applied the edit, and nothing shows a hunk was left out.
    """
    declined: list[ChangeHunk] = []
    for file in built.files:
        try:
            current = view.current_text(file.path)
        except (OSError, UnicodeDecodeError):
            continue
        if file.before is None:
            if current is None:
                declined.extend(file.hunks)
            continue
        if file.after is None:
            if current is not None:
                declined.extend(file.hunks)
            continue
        if current is None:
            continue
        if file.path in built.whole_text:
            if current == file.before:
                declined.extend(file.hunks)
            continue
        taken = applied_hunks(file.before, current, file.hunks)
        if taken is not None:
            declined.extend(h for h, take in zip(file.hunks, taken, strict=True) if not take)
    return declined
