"""The turn diff in git's format: what `git apply` takes and what the reference server sends
(`diff --git` with repository-relative paths, modes, blob ids), and when it is sent."""

from __future__ import annotations

import subprocess
from pathlib import Path

from codex_lsp.engine.git_diff import blob_oid, git_file_diff
from codex_lsp.engine.turn_diff import TurnDiffTracker
from tests.support.appserver import app_server, make_home, text_input
from tests.support.engine import make_git_repo
from tests.support.scripted_builders import custom_tool_call_response, text_response


def git(repo: Path, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, input=stdin, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_blob_ids_are_gits(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "r")
    for text in ("", "a new file\n", "ünïcode\nno newline at the end"):
        assert blob_oid(text) == git(repo, "hash-object", "--stdin", stdin=text).strip()


def test_the_turn_diff_applies_with_git_apply_and_names_paths_from_the_repository(
    tmp_path: Path,
) -> None:
    repo = make_git_repo(tmp_path / "r", {"src/app.py": "a\nb\n", "gone.txt": "bye\n"})
    tool = repo / "run.sh"
    tracker = TurnDiffTracker()
    tracker.on_change(repo / "src/app.py", "a\nb\n", "a\nB\n")
    tracker.on_change(repo / "gone.txt", "bye\n", None)
    tool.write_text("#!/bin/sh\necho hi\n")
    tool.chmod(0o755)
    tracker.on_change(tool, None, "#!/bin/sh\necho hi\n")
    diff = tracker.unified_diff()
    assert "diff --git a/src/app.py b/src/app.py\n" in diff
    assert "new file mode 100755\n" in diff and "deleted file mode 100644\n" in diff
    old, new = blob_oid("a\nb\n"), blob_oid("a\nB\n")
    assert f"index {old}..{new}\n--- a/src/app.py\n" in diff
    assert str(repo) not in diff
    # The repository as it was before the turn takes the diff and ends up as the turn left it.
    tool.unlink()
    git(repo, "apply", "--check", "-", stdin=diff)
    git(repo, "apply", "-", stdin=diff)
    assert (repo / "src/app.py").read_text() == "a\nB\n" and not (repo / "gone.txt").exists()


def test_a_file_outside_any_repository_keeps_its_absolute_path() -> None:
    # A directory no repository can hold (the temp dir may sit inside one).
    path = Path("/codex-lsp-nowhere/loose.txt")
    diff = git_file_diff(path, "x\n", "y\n")
    assert diff.startswith(f"diff --git a/{path.as_posix()} b/{path.as_posix()}\n")


PATCH = """*** Begin Patch
*** Update File: notes.txt
@@
 first line
-second line
+second line, patched
*** Add File: docs/new.txt
+a new file
*** End Patch"""


def test_the_diff_follows_the_patch_and_every_usage_report_after_it(scripted_model, tmp_path):
    home, _ = make_home(tmp_path, scripted_model.base_url)
    repo = make_git_repo(tmp_path / "repo", {"notes.txt": "first line\nsecond line\n"})
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="call_p"))
    scripted_model.enqueue(text_response("Patched.", response_id="resp_2"))
    with app_server(home, repo) as client:
        thread = client.start_thread(approvalPolicy="never")
        client.result("turn/start", {"threadId": thread["id"], "input": [text_input("Patch")]})
        client.wait_method("turn/completed", threadId=thread["id"])
        watched = ("item/completed", "turn/diff/updated", "thread/tokenUsage/updated")
        patched = next(
            m
            for m in client.received
            if m.get("method") == "item/completed" and m["params"]["item"]["type"] == "fileChange"
        )
        after = [m["method"] for m in client.since(patched) if m.get("method") in watched]
        diffs = client.notifications("turn/diff/updated", threadId=thread["id"])
    # Sent after the patch, then again after each response's usage report.
    assert after == [
        "turn/diff/updated",
        "thread/tokenUsage/updated",
        "turn/diff/updated",
        "item/completed",  # the answer
        "thread/tokenUsage/updated",
        "turn/diff/updated",
    ]
    assert len(diffs) == 3
    diff = diffs[-1]["params"]["diff"]
    assert diff.startswith("diff --git a/docs/new.txt b/docs/new.txt\nnew file mode 100644\n")
    assert "--- a/notes.txt\n+++ b/notes.txt\n" in diff and str(repo) not in diff
