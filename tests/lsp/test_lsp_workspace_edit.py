"""Building one `WorkspaceEdit` from a `PatchPlan`, checked by applying it as an editor would."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.uris import to_fs_path

from codex_lsp.engine.patch import plan_patch
from codex_lsp.lsp.edits import (
    OpenDocument,
    StaleDocumentError,
    build_workspace_edit,
    line_edit,
    split_lines,
)
from tests.support.lsp_client import apply_text_edits, uri

ROOT = Path("/project")


def _path(file_uri: str) -> Path:
    return Path(to_fs_path(file_uri) or "")


class Workspace:
    """Files on a pretend disk plus editor buffers (uri -> version, text)."""

    def __init__(self, files: dict[str, str], open_docs: dict[str, tuple[int, str]] | None = None):
        self.files = {ROOT / name: text for name, text in files.items()}
        self.buffers = {uri(ROOT / name): doc for name, doc in (open_docs or {}).items()}

    # FileReader, for planning
    def read_text(self, path: Path) -> str:
        text = self.current_text(path)
        if text is None:
            raise FileNotFoundError(path)
        return text

    def exists(self, path: Path) -> bool:
        return self.current_text(path) is not None

    # DocumentView, for building the edit
    def open_document(self, path: Path) -> OpenDocument | None:
        doc = self.buffers.get(uri(path))
        return OpenDocument(uri(path), doc[0], doc[1]) if doc else None

    def current_text(self, path: Path) -> str | None:
        doc = self.buffers.get(uri(path))
        return doc[1] if doc else self.files.get(path)

    def apply(self, edit: types.WorkspaceEdit) -> None:
        """Apply as an editor: versions checked, buffers edited, other files on disk."""
        for change in edit.document_changes or []:
            if isinstance(change, types.TextDocumentEdit):
                key = change.text_document.uri
                if key in self.buffers:
                    version, text = self.buffers[key]
                    if change.text_document.version is not None:
                        assert change.text_document.version == version
                    self.buffers[key] = (version + 1, apply_text_edits(text, list(change.edits)))
                else:
                    path = _path(key)
                    self.files[path] = apply_text_edits(self.files[path], list(change.edits))
            elif isinstance(change, types.CreateFile):
                path = _path(change.uri)
                assert path not in self.files or (change.options and change.options.overwrite)
                self.files[path] = ""
            elif isinstance(change, types.DeleteFile):
                del self.files[_path(change.uri)]
            elif isinstance(change, types.RenameFile):
                old = _path(change.old_uri)
                self.files[_path(change.new_uri)] = self.files.pop(old)

    def text(self, name: str) -> str | None:
        return self.current_text(ROOT / name)


def _build(ws: Workspace, patch: str, encoding: str = "utf-16"):
    plan = plan_patch(patch, ROOT, ws)
    return plan, build_workspace_edit(plan, ws, encoding)


def _patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


def test_open_buffer_gets_a_versioned_edit_of_the_changed_lines_only():
    ws = Workspace({"a.py": "one\ntwo\n"}, {"a.py": (5, "zero\none\ntwo\nthree\n")})
    _, built = _build(ws, _patch("*** Update File: a.py", "@@", "-two", "+TWO"))

    [change] = built.edit.document_changes
    assert change.text_document.version == 5
    [edit] = change.edits
    assert (edit.range.start.line, edit.range.end.line, edit.new_text) == (2, 3, "TWO\n")
    assert built.operations == set() and built.open_paths == [ROOT / "a.py"]
    ws.apply(built.edit)
    assert ws.buffers[uri(ROOT / "a.py")] == (6, "zero\none\nTWO\nthree\n")
    assert ws.files[ROOT / "a.py"] == "one\ntwo\n", "disk is the editor's to write"


def test_add_delete_and_move_become_resource_operations():
    ws = Workspace({"old.py": "x = 1\n", "gone.py": "bye\n"})
    patch = _patch(
        "*** Add File: new/added.py",
        "+hello",
        "*** Delete File: gone.py",
        "*** Update File: old.py",
        "*** Move to: moved.py",
        "@@",
        "-x = 1",
        "+x = 2",
    )
    _, built = _build(ws, patch)
    kinds = [type(c).__name__ for c in built.edit.document_changes]
    assert kinds == [
        "CreateFile",
        "TextDocumentEdit",
        "DeleteFile",
        "RenameFile",
        "TextDocumentEdit",
    ]
    assert built.operations == {
        types.ResourceOperationKind.Create,
        types.ResourceOperationKind.Delete,
        types.ResourceOperationKind.Rename,
    }
    ws.apply(built.edit)
    assert ws.text("new/added.py") == "hello\n"
    assert ws.text("gone.py") is None and ws.text("old.py") is None
    assert ws.text("moved.py") == "x = 2\n"


def test_a_file_touched_twice_is_one_net_edit():
    ws = Workspace({"a.py": "a\nb\nc\n"})
    patch = _patch(
        "*** Update File: a.py", "@@", "-a", "+A", "*** Update File: a.py", "@@", "-c", "+C"
    )
    plan, built = _build(ws, patch)
    assert len(plan.operations) == 2
    [change] = built.edit.document_changes
    ws.apply(built.edit)
    assert ws.text("a.py") == "A\nb\nC\n"
    assert change.text_document.version is None


def test_added_then_deleted_file_is_no_change_at_all():
    ws = Workspace({"keep.py": "k\n"})
    _, built = _build(ws, _patch("*** Add File: tmp.py", "+t", "*** Delete File: tmp.py"))
    assert built.empty


def test_a_buffer_edited_since_planning_is_refused():
    ws = Workspace({"a.py": "one\n"}, {"a.py": (1, "one\n")})
    plan = plan_patch(_patch("*** Update File: a.py", "@@", "-one", "+ONE"), ROOT, ws)
    ws.buffers[uri(ROOT / "a.py")] = (2, "one\nmore typing\n")
    with pytest.raises(StaleDocumentError, match="changed after the patch was computed"):
        build_workspace_edit(plan, ws, "utf-16")


def test_add_over_an_existing_file_replaces_its_text():
    ws = Workspace({"a.py": "old\n"})
    _, built = _build(ws, _patch("*** Add File: a.py", "+new"))
    [change] = built.edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)
    ws.apply(built.edit)
    assert ws.text("a.py") == "new\n"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("a\nb\nc\n", "a\nB\nc\n"),
        ("a\nb", "a\nb\n"),  # gains a final newline
        ("a\nb\n", "a\nb"),  # loses it
        ("", "x\n"),
        ("x\n", ""),
        ("a\r\nb\r\n", "a\r\nB\r\n"),
        ("héllo 😀\nend", "héllo 😀\nEND"),  # the end position counts UTF-16 units
        ("same\n", "same\n"),
        ("a\nb\na\nb\n", "a\nb\n"),
    ],
)
def test_line_edit_turns_old_into_new(old, new):
    edit = line_edit(old, new, "utf-16")
    if old == new:
        assert edit is None
        return
    assert apply_text_edits(old, [edit]) == new


def test_end_position_is_in_the_negotiated_encoding():
    text = "x😀"  # no final newline: the edit ends inside the last line
    for encoding, units in (("utf-16", 3), ("utf-8", 5), ("utf-32", 2)):
        edit = line_edit(text, "y\n", encoding)
        assert edit.range.end == types.Position(line=0, character=units)


def test_split_lines_knows_only_lsp_line_endings():
    assert split_lines("a\u2028b\x0cc\r\nd\re\nf") == ["a\u2028b\x0cc\r\n", "d\r", "e\n", "f"]
    assert split_lines("") == []


def test_uris_are_what_the_editor_uses():
    ws = Workspace({"dir with space/a.py": "1\n"})
    _, built = _build(ws, _patch("*** Update File: dir with space/a.py", "@@", "-1", "+2"))
    [change] = built.edit.document_changes
    assert change.text_document.uri == uri(ROOT / "dir with space" / "a.py")
    assert "%20" in change.text_document.uri
    ws.apply(built.edit)
    assert ws.text("dir with space/a.py") == "2\n"
