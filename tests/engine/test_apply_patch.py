"""apply_patch end to end on real files: operations, matching, atomicity, and derived views."""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_lsp.engine.patch import (
    DiskFiles,
    PatchApplyError,
    PatchParseError,
    apply_patch_to_disk,
    apply_plan,
    plan_patch,
)


def wrap(body: str) -> str:
    return f"*** Begin Patch\n{body}\n*** End Patch\n"


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    return path


def read(root: Path, rel: str) -> str:
    return (root / rel).read_bytes().decode()


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_add_file_creates_parents(tmp_path: Path) -> None:
    out = apply_patch_to_disk(wrap("*** Add File: deep/er/new.txt\n+hello\n+world"), tmp_path)
    assert read(tmp_path, "deep/er/new.txt") == "hello\nworld\n"
    assert out == "Success. Updated the following files:\nA deep/er/new.txt\n"


def test_delete_file(tmp_path: Path) -> None:
    write(tmp_path, "old.txt", "bye\n")
    out = apply_patch_to_disk(wrap("*** Delete File: old.txt"), tmp_path)
    assert not (tmp_path / "old.txt").exists()
    assert out == "Success. Updated the following files:\nD old.txt\n"


def test_update_file(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "one\ntwo\nthree\n")
    out = apply_patch_to_disk(wrap("*** Update File: a.py\n@@\n one\n-two\n+2\n three"), tmp_path)
    assert read(tmp_path, "a.py") == "one\n2\nthree\n"
    assert out == "Success. Updated the following files:\nM a.py\n"


def test_move_file_with_edit(tmp_path: Path) -> None:
    write(tmp_path, "src/app.py", "x = 1\ny = 2\n")
    out = apply_patch_to_disk(
        wrap("*** Update File: src/app.py\n*** Move to: lib/main.py\n@@\n-x = 1\n+x = 10"),
        tmp_path,
    )
    assert not (tmp_path / "src/app.py").exists()
    assert read(tmp_path, "lib/main.py") == "x = 10\ny = 2\n"
    assert out == "Success. Updated the following files:\nM lib/main.py\n"


def test_multiple_chunks(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "".join(f"line{i}\n" for i in range(1, 11)))
    patch = wrap(
        "*** Update File: f.txt\n"
        "@@\n line1\n-line2\n+LINE2\n line3\n"
        "@@\n line8\n-line9\n+LINE9\n line10"
    )
    apply_patch_to_disk(patch, tmp_path)
    expected = [f"line{i}" for i in range(1, 11)]
    expected[1], expected[8] = "LINE2", "LINE9"
    assert read(tmp_path, "f.txt") == "\n".join(expected) + "\n"


def test_chunks_that_change_line_counts(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "a\nb\nc\nd\ne\n")
    patch = wrap(
        "*** Update File: f.txt\n"
        "@@\n+tail\n"  # pure insertion: lands at the end although it comes first
        "@@\n-a\n+a1\n+a2\n+a3\n"  # one line becomes three
        "@@\n c\n-d\n e"  # a later chunk whose position must not shift
    )
    apply_patch_to_disk(patch, tmp_path)
    assert read(tmp_path, "f.txt") == "a1\na2\na3\nb\nc\ne\ntail\n"


def test_repeated_lines_match_in_chunk_order(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "x\nx\nx\n")
    apply_patch_to_disk(wrap("*** Update File: f.txt\n@@\n-x\n+1\n@@\n-x\n+2"), tmp_path)
    assert read(tmp_path, "f.txt") == "1\n2\nx\n"


def test_context_marker_disambiguates(tmp_path: Path) -> None:
    write(
        tmp_path,
        "m.py",
        "def a():\n    return 0\n\ndef b():\n    return 0\n",
    )
    apply_patch_to_disk(
        wrap("*** Update File: m.py\n@@ def b():\n-    return 0\n+    return 1"), tmp_path
    )
    assert read(tmp_path, "m.py") == "def a():\n    return 0\n\ndef b():\n    return 1\n"


def test_nested_context_markers(tmp_path: Path) -> None:
    source = (
        "class A:\n    def run(self):\n        return 0\n\n"
        "class B:\n    def run(self):\n        return 0\n"
    )
    write(tmp_path, "m.py", source)
    patch = wrap(
        "*** Update File: m.py\n@@ class B:\n@@     def run(self):\n"
        "-        return 0\n+        return 2"
    )
    apply_patch_to_disk(patch, tmp_path)
    assert read(tmp_path, "m.py") == source[: source.rindex("0")] + "2\n"


def test_successive_chunk_contexts_search_forward(tmp_path: Path) -> None:
    write(tmp_path, "m.py", "def a():\n    x = 0\ndef b():\n    x = 0\ndef c():\n    x = 0\n")
    apply_patch_to_disk(
        wrap(
            "*** Update File: m.py\n@@ def a():\n-    x = 0\n+    x = 1\n"
            "@@ def c():\n-    x = 0\n+    x = 3"
        ),
        tmp_path,
    )
    assert (
        read(tmp_path, "m.py") == "def a():\n    x = 1\ndef b():\n    x = 0\ndef c():\n    x = 3\n"
    )


@pytest.mark.parametrize(
    ("file_line", "patch_line"),
    [
        ("value = 1   ", "value = 1"),  # trailing whitespace
        ("\t\tvalue = 1", "value = 1"),  # leading whitespace
        ("label = \u201cA \u2013 B\u201d", 'label = "A - B"'),  # curly quotes, en dash
        ("it\u2019s\u00a0fine", "it's fine"),  # curly apostrophe, NBSP
    ],
)
def test_fuzzy_matching(tmp_path: Path, file_line: str, patch_line: str) -> None:
    write(tmp_path, "f.txt", f"before\n{file_line}\nafter\n")
    apply_patch_to_disk(
        wrap(f"*** Update File: f.txt\n@@\n before\n-{patch_line}\n+replaced\n after"), tmp_path
    )
    assert read(tmp_path, "f.txt") == "before\nreplaced\nafter\n"


def test_fuzzy_context_marker(tmp_path: Path) -> None:
    write(tmp_path, "f.py", "def f():  \n    return \u2018x\u2019\n")
    apply_patch_to_disk(
        wrap("*** Update File: f.py\n@@ def f():\n-    return 'x'\n+    return 'y'"), tmp_path
    )
    assert read(tmp_path, "f.py") == "def f():  \n    return 'y'\n"


def test_end_of_file_anchor_picks_the_last_occurrence(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "end\nmiddle\nend\n")
    apply_patch_to_disk(wrap("*** Update File: f.txt\n@@\n-end\n+END\n*** End of File"), tmp_path)
    assert read(tmp_path, "f.txt") == "end\nmiddle\nEND\n"


def test_pure_insertion_appends_at_end(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "a\nb\n")
    apply_patch_to_disk(wrap("*** Update File: f.txt\n@@\n+c\n+d"), tmp_path)
    assert read(tmp_path, "f.txt") == "a\nb\nc\nd\n"


def test_pure_insertion_below_anchor(tmp_path: Path) -> None:
    write(tmp_path, "f.py", "import os\n\ndef f():\n    pass\n")
    apply_patch_to_disk(wrap("*** Update File: f.py\n@@ import os\n+import sys"), tmp_path)
    assert read(tmp_path, "f.py") == "import os\nimport sys\n\ndef f():\n    pass\n"


def test_missing_trailing_newline_is_added(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "a\nb")
    apply_patch_to_disk(wrap("*** Update File: f.txt\n-a\n+A"), tmp_path)
    assert read(tmp_path, "f.txt") == "A\nb\n"


def test_crlf_file_keeps_crlf(tmp_path: Path) -> None:
    write(tmp_path, "w.txt", "one\r\ntwo\r\nthree\r\n")
    apply_patch_to_disk(wrap("*** Update File: w.txt\n one\n-two\n+TWO\n+2.5"), tmp_path)
    assert read(tmp_path, "w.txt") == "one\r\nTWO\r\n2.5\r\nthree\r\n"


def test_blank_line_between_chunks_not_in_file(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "a\nb\nc\nd\n")
    apply_patch_to_disk(wrap("*** Update File: f.txt\n@@\n-a\n+A\n\n@@\n-c\n+C"), tmp_path)
    assert read(tmp_path, "f.txt") == "A\nb\nC\nd\n"


def test_heredoc_wrapped_patch(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "x\n")
    text = "<<'EOF'\n*** Begin Patch\n*** Update File: f.txt\n-x\n+y\n*** End Patch\nEOF\n"
    apply_patch_to_disk(text, tmp_path)
    assert read(tmp_path, "f.txt") == "y\n"


def test_absolute_and_dotdot_paths(tmp_path: Path) -> None:
    cwd = tmp_path / "proj"
    cwd.mkdir()
    other = write(tmp_path, "other.txt", "o\n")
    patch = wrap(f"*** Update File: {other}\n-o\n+O\n*** Add File: sub/../added.txt\n+a")
    plan = plan_patch(patch, cwd)
    assert plan.touched_paths() == [other, cwd / "added.txt"]
    apply_plan(plan)
    assert read(tmp_path, "other.txt") == "O\n"
    assert read(cwd, "added.txt") == "a\n"


def test_same_file_touched_twice_applies_in_order(tmp_path: Path) -> None:
    patch = wrap(
        "*** Add File: n.txt\n+one\n+two\n"
        "*** Update File: n.txt\n-two\n+2\n"
        "*** Update File: n.txt\n-one\n+1"
    )
    apply_patch_to_disk(patch, tmp_path)
    assert read(tmp_path, "n.txt") == "1\n2\n"


def test_summary_orders_added_modified_deleted(tmp_path: Path) -> None:
    write(tmp_path, "d.txt", "d\n")
    write(tmp_path, "m.txt", "m\n")
    write(tmp_path, "mv.txt", "v\n")
    patch = wrap(
        "*** Delete File: d.txt\n"
        "*** Update File: m.txt\n-m\n+M\n"
        "*** Add File: a.txt\n+a\n"
        "*** Update File: mv.txt\n*** Move to: moved/mv.txt\n-v\n+V"
    )
    assert apply_patch_to_disk(patch, tmp_path) == (
        "Success. Updated the following files:\nA a.txt\nM m.txt\nM moved/mv.txt\nD d.txt\n"
    )


# --- failures ----------------------------------------------------------------------------


def test_failing_second_hunk_changes_no_file(tmp_path: Path) -> None:
    write(tmp_path, "first.txt", "alpha\nbeta\n")
    write(tmp_path, "second.txt", "gamma\n")
    write(tmp_path, "doomed.txt", "keep me\n")
    before = snapshot(tmp_path)
    patch = wrap(
        "*** Update File: first.txt\n-alpha\n+ALPHA\n"  # would succeed
        "*** Add File: brand/new.txt\n+x\n"  # would succeed
        "*** Delete File: doomed.txt\n"  # would succeed
        "*** Update File: second.txt\n-no such line\n+boom\n"  # fails
        "*** Update File: first.txt\n-beta\n+BETA"
    )
    with pytest.raises(PatchApplyError) as caught:
        apply_patch_to_disk(patch, tmp_path)
    assert snapshot(tmp_path) == before
    assert not (tmp_path / "brand").exists()
    error = caught.value
    assert (error.hunk, error.chunk, error.path) == (4, 1, "second.txt")
    assert error.reason == "Failed to find expected lines in second.txt:\nno such line"
    assert str(error) == (
        "hunk 4 (Update File: second.txt), chunk 1: "
        "Failed to find expected lines in second.txt:\nno such line"
    )
    assert error.model_message.startswith("apply_patch verification failed: hunk 4 ")


def test_context_not_found(tmp_path: Path) -> None:
    write(tmp_path, "f.py", "def a():\n    pass\n")
    with pytest.raises(PatchApplyError) as caught:
        plan_patch(wrap("*** Update File: f.py\n@@ def zzz():\n-    pass\n+    return"), tmp_path)
    assert caught.value.reason == "Failed to find context 'def zzz():' in f.py"
    assert caught.value.hunk == 1


def test_second_chunk_failure_names_the_chunk(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "a\nb\n")
    with pytest.raises(PatchApplyError) as caught:
        apply_patch_to_disk(wrap("*** Update File: f.txt\n@@\n-a\n+A\n@@\n-zzz\n+Z"), tmp_path)
    assert caught.value.chunk == 2
    assert read(tmp_path, "f.txt") == "a\nb\n"


def test_update_of_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PatchApplyError) as caught:
        plan_patch(wrap("*** Update File: nope.txt\n-a\n+b"), tmp_path)
    assert (
        caught.value.reason == "Failed to read file to update nope.txt: No such file or directory"
    )


def test_delete_of_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PatchApplyError) as caught:
        plan_patch(wrap("*** Delete File: nope.txt"), tmp_path)
    assert caught.value.reason == "Failed to delete file nope.txt: No such file or directory"


def test_delete_of_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    with pytest.raises(PatchApplyError) as caught:
        apply_patch_to_disk(wrap("*** Delete File: dir"), tmp_path)
    assert caught.value.reason == "Failed to delete file dir: it is a directory"
    assert (tmp_path / "dir").is_dir()


def test_add_over_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    with pytest.raises(PatchApplyError) as caught:
        apply_patch_to_disk(wrap("*** Add File: dir\n+x"), tmp_path)
    assert "a directory exists at that path" in caught.value.reason


def test_update_after_delete_in_same_patch_fails(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "a\n")
    with pytest.raises(PatchApplyError) as caught:
        apply_patch_to_disk(
            wrap("*** Delete File: f.txt\n*** Update File: f.txt\n-a\n+b"), tmp_path
        )
    assert caught.value.hunk == 2
    assert read(tmp_path, "f.txt") == "a\n"


def test_empty_patch(tmp_path: Path) -> None:
    with pytest.raises(PatchApplyError) as caught:
        apply_patch_to_disk("*** Begin Patch\n*** End Patch", tmp_path)
    assert str(caught.value) == "No files were modified."


def test_parse_error_surfaces_from_plan(tmp_path: Path) -> None:
    with pytest.raises(PatchParseError):
        plan_patch("not a patch", tmp_path)


# --- derived views -----------------------------------------------------------------------


def test_unified_diff_for_update(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "".join(f"{i}\n" for i in range(1, 11)))
    plan = plan_patch(wrap("*** Update File: f.txt\n@@\n 4\n-5\n+five\n 6"), tmp_path)
    expected = "--- f.txt\n+++ f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
    assert plan.unified_diff("f.txt") == expected
    assert plan.unified_diff(tmp_path / "f.txt") == expected
    assert plan.operations[0].unified_diff() == expected
    with pytest.raises(KeyError):
        plan.unified_diff("other.txt")


def test_unified_diff_for_add_delete_and_move(tmp_path: Path) -> None:
    write(tmp_path, "gone.txt", "g\n")
    write(tmp_path, "src.txt", "s\n")
    plan = plan_patch(
        wrap(
            "*** Add File: new.txt\n+n\n*** Delete File: gone.txt\n"
            "*** Update File: src.txt\n*** Move to: dst.txt\n-s\n+S"
        ),
        tmp_path,
    )
    assert plan.unified_diff("new.txt") == "--- /dev/null\n+++ new.txt\n@@ -0,0 +1 @@\n+n\n"
    assert plan.unified_diff("gone.txt") == "--- gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-g\n"
    moved = "--- src.txt\n+++ dst.txt\n@@ -1 +1 @@\n-s\n+S\n"
    assert plan.unified_diff("src.txt") == moved
    assert plan.unified_diff("dst.txt") == moved


def test_unified_diff_marks_missing_final_newline(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "a\nb")
    plan = plan_patch(wrap("*** Update File: f.txt\n-a\n+A"), tmp_path)
    assert plan.unified_diff("f.txt") == (
        "--- f.txt\n+++ f.txt\n@@ -1,2 +1,2 @@\n-a\n-b\n\\ No newline at end of file\n+A\n+b\n"
    )


def test_changes_wire_map(tmp_path: Path) -> None:
    write(tmp_path, "gone.txt", "bye\n")
    write(tmp_path, "m.txt", "m\n")
    write(tmp_path, "src.txt", "s\n")
    plan = plan_patch(
        wrap(
            "*** Add File: new.txt\n+hi\n"
            "*** Delete File: gone.txt\n"
            "*** Update File: m.txt\n-m\n+M\n"
            "*** Update File: src.txt\n*** Move to: dir/dst.txt\n-s\n+S"
        ),
        tmp_path,
    )
    assert plan.changes() == {
        str(tmp_path / "new.txt"): {"type": "add", "content": "hi\n"},
        str(tmp_path / "gone.txt"): {"type": "delete", "content": "bye\n"},
        str(tmp_path / "m.txt"): {
            "type": "update",
            "unified_diff": "--- m.txt\n+++ m.txt\n@@ -1 +1 @@\n-m\n+M\n",
            "move_path": None,
        },
        str(tmp_path / "src.txt"): {
            "type": "update",
            "unified_diff": "--- src.txt\n+++ dir/dst.txt\n@@ -1 +1 @@\n-s\n+S\n",
            "move_path": str(tmp_path / "dir/dst.txt"),
        },
    }
    assert plan.touched_paths() == [
        tmp_path / "new.txt",
        tmp_path / "gone.txt",
        tmp_path / "m.txt",
        tmp_path / "src.txt",
        tmp_path / "dir/dst.txt",
    ]


def test_changes_fold_repeated_paths(tmp_path: Path) -> None:
    write(tmp_path, "f.txt", "a\nb\n")
    plan = plan_patch(
        wrap(
            "*** Update File: f.txt\n-a\n+A\n*** Update File: f.txt\n-b\n+B\n"
            "*** Add File: t.txt\n+1\n*** Update File: t.txt\n-1\n+2"
        ),
        tmp_path,
    )
    changes = plan.changes()
    assert changes[str(tmp_path / "f.txt")]["unified_diff"] == (
        "--- f.txt\n+++ f.txt\n@@ -1,2 +1,2 @@\n-a\n-b\n+A\n+B\n"
    )
    assert changes[str(tmp_path / "t.txt")] == {"type": "add", "content": "2\n"}
    assert plan.summary().count("M f.txt") == 2


def test_plan_writes_nothing_and_reads_unsaved_buffers(tmp_path: Path) -> None:
    write(tmp_path, "open.py", "on disk\n")

    class Buffers(DiskFiles):
        """An editor with unsaved text for open.py."""

        def read_text(self, path: Path) -> str:
            if path == tmp_path / "open.py":
                return "in the buffer\n"
            return super().read_text(path)

    plan = plan_patch(
        wrap("*** Update File: open.py\n-in the buffer\n+edited"), tmp_path, Buffers()
    )
    (op,) = plan.operations
    assert (op.kind, op.old_content, op.new_content) == ("update", "in the buffer\n", "edited\n")
    assert read(tmp_path, "open.py") == "on disk\n"
    # Against the disk itself the same patch does not match.
    with pytest.raises(PatchApplyError):
        plan_patch(wrap("*** Update File: open.py\n-in the buffer\n+edited"), tmp_path)
