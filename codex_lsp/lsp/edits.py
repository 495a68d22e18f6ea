"""A `PatchPlan` as one LSP `WorkspaceEdit`.

The plan is first folded into each file's net change (a patch may touch a file twice, and
editors apply all text edits of one document against its original text), then written as:

* open documents: a `TextDocumentEdit` carrying the buffer's version, so the editor refuses the
  edit if the user typed after we checked, and the agent's change lands on the undo stack;
* new files: `CreateFile` then a `TextDocumentEdit` inserting the content;
* deleted files: `DeleteFile`;
* moves: `RenameFile` (the editor keeps the buffer) then the content edit at the new uri.

Each text edit replaces only the changed run of lines, so cursors and folds elsewhere survive.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from lsprotocol import types
from pygls.uris import from_fs_path

if TYPE_CHECKING:
    from codex_lsp.engine.patch import PatchPlan

# LSP lines end at \r\n, \r or \n only (str.splitlines knows more separators than the editor).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


class StaleDocumentError(Exception):
    """A file changed between computing the patch and applying it."""


@dataclass(frozen=True)
class OpenDocument:
    uri: str
    version: int | None
    text: str


class DocumentView(Protocol):
    """The workspace as the editor sees it right now."""

    def open_document(self, path: Path) -> OpenDocument | None: ...

    def current_text(self, path: Path) -> str | None:
        """Buffer or disk text; None when absent. May raise OSError or UnicodeDecodeError."""
        ...


class _Unreadable:
    """An existing file whose text is unknown (not UTF-8): replaced whole, never diffed."""


UNREADABLE = _Unreadable()
State = str | None | _Unreadable


@dataclass
class NetChange:
    """One path's state before and after the whole patch."""

    path: Path
    before: State
    after: str | None
    # Set on a move destination when the move can be shown as a rename of this source.
    renamed_from: Path | None = None


@dataclass
class BuiltEdit:
    edit: types.WorkspaceEdit
    # Resource operations the edit uses, to check against the client's capabilities.
    operations: set[types.ResourceOperationKind] = field(default_factory=set)
    # Paths the edit touches that are open in the editor.
    open_paths: list[Path] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.edit.document_changes


def _read_state(view: DocumentView, path: Path) -> State:
    try:
        return view.current_text(path)
    except (OSError, UnicodeDecodeError):
        return UNREADABLE


def net_changes(plan: PatchPlan, view: DocumentView) -> list[NetChange]:
    """Fold the plan's operations into one change per path, in order of first touch.

    Raises `StaleDocumentError` when a file no longer holds the text the plan was computed from.
    """
    before: dict[Path, State] = {}
    after: dict[Path, str | None] = {}
    moves: dict[Path, Path] = {}

    def touch(path: Path, planned: str | None, known: bool) -> None:
        if path in before:
            return
        current = _read_state(view, path)
        if known and not isinstance(current, _Unreadable) and current != planned:
            raise StaleDocumentError(
                f"{path} changed after the patch was computed; read it again and retry"
            )
        before[path] = planned if known and isinstance(current, _Unreadable) else current

    for op in plan.operations:
        if op.kind == "add":
            touch(op.path, None, known=False)
            after[op.path] = op.new_content
        elif op.kind == "delete":
            touch(op.path, op.old_content, known=True)
            after[op.path] = None
        else:
            touch(op.path, op.old_content, known=True)
            if op.move_path is None:
                after[op.path] = op.new_content
            else:
                touch(op.move_path, None, known=False)
                after[op.path] = None
                after[op.move_path] = op.new_content
                moves[op.move_path] = op.path

    changes = {path: NetChange(path, before[path], after[path]) for path in before}
    for dest, source in moves.items():
        src, dst = changes[source], changes[dest]
        # Only a plain move is a rename: the source existed and is gone, the destination is new.
        if (
            isinstance(src.before, str)
            and src.after is None
            and dst.before is None
            and dst.after is not None
        ):
            dst.renamed_from = source
    return list(changes.values())


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split where an LSP client splits them."""
    return _LINE.findall(text)


def _units(text: str, encoding: str) -> int:
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8"))
    if encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def end_of(lines: list[str], encoding: str) -> types.Position:
    if not lines:
        return types.Position(line=0, character=0)
    last = lines[-1]
    if last.endswith(("\n", "\r")):
        return types.Position(line=len(lines), character=0)
    return types.Position(line=len(lines) - 1, character=_units(last, encoding))


def line_edit(old: str, new: str, encoding: str) -> types.TextEdit | None:
    """The smallest whole-line replacement turning `old` into `new`; None if they are equal."""
    if old == new:
        return None
    a, b = split_lines(old), split_lines(new)
    prefix = 0
    while prefix < min(len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < min(len(a), len(b)) - prefix and a[len(a) - 1 - suffix] == b[len(b) - 1 - suffix]
    ):
        suffix += 1
    start = types.Position(line=prefix, character=0)
    end = types.Position(line=len(a) - suffix, character=0) if suffix else end_of(a, encoding)
    text = "".join(b[prefix : len(b) - suffix])
    return types.TextEdit(range=types.Range(start=start, end=end), new_text=text)


def _uri(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()


def _text_edit(
    uri: str, version: int | None, edits: Iterable[types.TextEdit]
) -> types.TextDocumentEdit:
    return types.TextDocumentEdit(
        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
        edits=list(edits),
    )


def build_workspace_edit(plan: PatchPlan, view: DocumentView, encoding: str) -> BuiltEdit:
    """The plan as one WorkspaceEdit against what the editor shows now."""
    changes = net_changes(plan, view)
    rename_dest = {c.renamed_from: c for c in changes if c.renamed_from is not None}
    built = BuiltEdit(types.WorkspaceEdit(document_changes=[]))
    out = built.edit.document_changes
    assert isinstance(out, list)

    for change in changes:
        doc = view.open_document(change.path)
        if doc is not None:
            built.open_paths.append(change.path)
        if change.renamed_from is not None:
            continue  # written together with its source
        dest = rename_dest.get(change.path)
        if dest is not None:
            old_uri, new_uri = _uri(change.path), _uri(dest.path)
            out.append(types.RenameFile(old_uri=old_uri, new_uri=new_uri))
            built.operations.add(types.ResourceOperationKind.Rename)
            assert isinstance(change.before, str) and dest.after is not None
            edit = line_edit(change.before, dest.after, encoding)
            if edit is not None:
                # After a rename the editor has a new document; its version is not ours to know.
                out.append(_text_edit(new_uri, None, [edit]))
            continue
        uri = doc.uri if doc is not None else _uri(change.path)
        if change.after is None:
            if change.before is not None:
                out.append(types.DeleteFile(uri=uri))
                built.operations.add(types.ResourceOperationKind.Delete)
            continue
        if change.before is None or isinstance(change.before, _Unreadable):
            overwrite = isinstance(change.before, _Unreadable)
            options = types.CreateFileOptions(overwrite=True) if overwrite else None
            out.append(types.CreateFile(uri=uri, options=options))
            built.operations.add(types.ResourceOperationKind.Create)
            if change.after:
                insert = types.TextEdit(
                    range=types.Range(start=types.Position(0, 0), end=types.Position(0, 0)),
                    new_text=change.after,
                )
                out.append(_text_edit(uri, None, [insert]))
            continue
        edit = line_edit(change.before, change.after, encoding)
        if edit is not None:
            out.append(_text_edit(uri, doc.version if doc is not None else None, [edit]))
    return built
