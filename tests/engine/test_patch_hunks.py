"""A patch's hunks: the ones a user sees in the diff, leaving some out, and reading back which
an editor applied."""

from __future__ import annotations

from pathlib import Path

from codex_lsp.engine.patch import apply_plan, plan_patch, unified_diff
from codex_lsp.engine.patch.hunks import applied_hunks, file_hunks, plan_hunks, without_hunks

TEXT = "".join(f"line {i}\n" for i in range(1, 21))
PATCH = """*** Begin Patch
*** Update File: a.txt
@@
-line 2
+line two
@@
-line 15
+line fifteen
+line fifteen and a half
*** Add File: new.txt
+fresh
*** Delete File: gone.txt
*** End Patch"""


def _plan(tmp_path: Path):
    (tmp_path / "a.txt").write_text(TEXT)
    (tmp_path / "gone.txt").write_text("bye\n")
    return plan_patch(PATCH, tmp_path)


def test_hunks_are_the_diffs_hunks_then_whole_files(tmp_path):
    plan = _plan(tmp_path)
    hunks = plan_hunks(plan)
    diff = plan.changes()[str(tmp_path / "a.txt")]["unified_diff"]
    assert diff.count("\n@@ ") + diff.startswith("@@ ") == 2
    assert [h.header for h in hunks[:2]] == ["@@ -2 +2 @@", "@@ -15 +15,2 @@"]
    assert [(h.display_path, h.index, h.kind) for h in hunks] == [
        ("a.txt", 0, "update"),
        ("a.txt", 1, "update"),
        ("new.txt", 0, "add"),
        ("gone.txt", 0, "delete"),
    ]
    assert hunks[1].removed == ("line 15\n",)
    assert hunks[1].added == ("line fifteen\n", "line fifteen and a half\n")


def test_without_hunks_applies_only_the_rest(tmp_path):
    plan = _plan(tmp_path)
    a = str(tmp_path / "a.txt")
    kept = without_hunks(plan, [(a, 1), (str(tmp_path / "gone.txt"), 0)])
    apply_plan(kept)
    assert (tmp_path / "a.txt").read_text() == TEXT.replace("line 2\n", "line two\n")
    assert (tmp_path / "new.txt").read_text() == "fresh\n"
    assert (tmp_path / "gone.txt").exists()
    assert "M a.txt" in kept.summary() and "D gone.txt" not in kept.summary()


def test_declining_every_hunk_of_a_file_leaves_it_out(tmp_path):
    plan = _plan(tmp_path)
    a = str(tmp_path / "a.txt")
    kept = without_hunks(plan, [(a, 0), (a, 1)])
    assert [op.display_path for op in kept.operations] == ["new.txt", "gone.txt"]
    assert without_hunks(plan, []) is plan


def test_applied_hunks_reads_back_the_editors_choice(tmp_path):
    plan = _plan(tmp_path)
    [a] = [f for f in file_hunks(plan) if f.display_path == "a.txt"]
    assert a.before is not None and a.after is not None
    second_only = TEXT.replace("line 15\n", "line fifteen\nline fifteen and a half\n")
    assert applied_hunks(a.before, second_only, a.hunks) == [False, True]
    assert applied_hunks(a.before, a.after, a.hunks) == [True, True]
    assert applied_hunks(a.before, a.before, a.hunks) == [False, False]
    assert applied_hunks(a.before, a.before + "typed\n", a.hunks) is None


def test_a_hunk_at_the_end_without_a_newline(tmp_path):
    before = "a\nb\nc"
    (tmp_path / "f.txt").write_text(before)
    patch = "*** Begin Patch\n*** Update File: f.txt\n@@\n-c\n+C\n*** End Patch"
    plan = plan_patch(patch, tmp_path)
    [file] = file_hunks(plan)
    assert file.after is not None and file.after.startswith("a\nb\nC")
    zero_context = unified_diff(before, file.after, "f", "f", context=0)
    assert zero_context.splitlines()[2] == file.hunks[0].header
    assert applied_hunks(before, file.after, file.hunks) == [True]
    assert applied_hunks(before, before, file.hunks) == [False]


def test_changes_a_few_lines_apart_are_hunks_of_their_own(tmp_path):
    # One `@@` hunk of the diff (three lines of context would join them), two decisions.
    (tmp_path / "a.txt").write_text(TEXT)
    patch = (
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-line 4\n+line four\n"
        " line 5\n line 6\n line 7\n-line 8\n+line eight\n*** End Patch"
    )
    plan = plan_patch(patch, tmp_path)
    diff = plan.changes()[str(tmp_path / "a.txt")]["unified_diff"]
    assert diff.count("\n@@ ") + diff.startswith("@@ ") == 1
    hunks = plan_hunks(plan)
    assert [(h.header, h.removed) for h in hunks] == [
        ("@@ -4 +4 @@", ("line 4\n",)),
        ("@@ -8 +8 @@", ("line 8\n",)),
    ]
    apply_plan(without_hunks(plan, [(str(tmp_path / "a.txt"), 0)]))
    assert (tmp_path / "a.txt").read_text() == TEXT.replace("line 8\n", "line eight\n")
