"""What a review looks at, collected from real git repositories with real history."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codex_lsp.engine.review import ReviewTargetError, collect_review_material, review_prompt
from codex_lsp.protocol.core.inputs import (
    BaseBranchTarget,
    CommitTarget,
    CustomTarget,
    UncommittedChangesTarget,
)
from tests.support.engine import make_git_repo

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@e",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@e",
    "PATH": "/usr/bin:/bin",
    "HOME": "/nonexistent",
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def commit_file(repo: Path, name: str, text: str, message: str) -> str:
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


def repo_with_history(root: Path) -> Path:
    """main: initial -> 'add helper'; branch `feature` off 'add helper' adds its own commit;
    main then moves on with a commit the feature branch does not have."""
    repo = make_git_repo(root, {"src/app.py": "def main():\n    return 1\n", "README.md": "hi\n"})
    commit_file(repo, "src/helper.py", "def helper(x):\n    return x\n", "add helper")
    git(repo, "checkout", "-qb", "feature")
    commit_file(repo, "src/feature.py", "FEATURE_FLAG = True\n", "feature work")
    git(repo, "checkout", "-q", "main")
    commit_file(repo, "src/mainline.py", "MAINLINE_ONLY = 1\n", "mainline moves on")
    git(repo, "checkout", "-q", "feature")
    return repo


def test_uncommitted_changes_include_staged_unstaged_and_untracked(tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    (repo / "src/app.py").write_text("def main():\n    return 2  # staged\n")
    git(repo, "add", "src/app.py")
    (repo / "README.md").write_text("hi\nunstaged line\n")
    (repo / "notes").mkdir()
    (repo / "notes/new.txt").write_text("untracked content\n")
    (repo / ".gitignore").write_text("*.log\n")
    (repo / "debug.log").write_text("ignored content\n")

    material = collect_review_material(UncommittedChangesTarget(), repo / "src")

    assert material.repo_root == repo
    assert "+    return 2  # staged" in material.diff
    assert "+unstaged line" in material.diff
    assert "diff --git a/notes/new.txt b/notes/new.txt" in material.diff
    assert "+untracked content" in material.diff
    assert "ignored content" not in material.diff
    assert "FEATURE_FLAG" not in material.diff, "committed work is not uncommitted"
    assert sorted(material.untracked) == [".gitignore", "notes/new.txt"]
    assert not material.truncated


def test_uncommitted_changes_in_a_repository_without_commits(tmp_path):
    repo = make_git_repo(tmp_path / "fresh")
    (repo / "staged.py").write_text("print('staged')\n")
    git(repo, "add", "staged.py")
    (repo / "loose.py").write_text("print('loose')\n")

    material = collect_review_material(UncommittedChangesTarget(), repo)

    assert material.head_sha is None
    assert "+print('staged')" in material.diff and "+print('loose')" in material.diff
    assert "no commits yet" in review_prompt(UncommittedChangesTarget(), material)


def test_no_uncommitted_changes_is_a_clear_error(tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    with pytest.raises(ReviewTargetError, match="no uncommitted changes"):
        collect_review_material(UncommittedChangesTarget(), repo)


def test_base_branch_diff_has_only_the_branch_changes(tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    fork_point = git(repo, "merge-base", "HEAD", "main")

    material = collect_review_material(BaseBranchTarget(branch="main"), repo)

    assert material.merge_base == fork_point and material.base_ref == "main"
    assert "+FEATURE_FLAG = True" in material.diff
    assert "MAINLINE_ONLY" not in material.diff, "main's own later commits are not the branch's"
    assert "helper" not in material.diff, "history before the fork point is not reviewed"
    prompt = review_prompt(BaseBranchTarget(branch="main"), material)
    assert f"git diff {fork_point}" in prompt and "'main'" in prompt


def test_base_branch_prefers_the_upstream_of_the_branch(tmp_path):
    upstream = repo_with_history(tmp_path / "upstream")
    git(upstream, "checkout", "-q", "main")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(upstream), str(clone)], env=GIT_ENV, check=True)
    # The remote's main moves on; the local main stays behind.
    commit_file(upstream, "src/remote_only.py", "REMOTE = 1\n", "remote work")
    git(clone, "fetch", "-q")
    git(clone, "checkout", "-qb", "topic", "origin/main")
    commit_file(clone, "src/topic.py", "TOPIC = 1\n", "topic work")

    material = collect_review_material(BaseBranchTarget(branch="main"), clone)

    assert material.base_ref == "origin/main"
    assert material.merge_base == git(clone, "rev-parse", "origin/main")
    assert "+TOPIC = 1" in material.diff
    assert "REMOTE" not in material.diff, "the upstream's commits are the base, not the change"


def test_missing_branch_and_unrelated_history_are_clear_errors(tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    with pytest.raises(ReviewTargetError, match="Branch 'nope' was not found"):
        collect_review_material(BaseBranchTarget(branch="nope"), repo)
    with pytest.raises(ReviewTargetError, match="not a valid branch"):
        collect_review_material(BaseBranchTarget(branch="--output=/tmp/x"), repo)
    fresh = make_git_repo(tmp_path / "fresh")
    with pytest.raises(ReviewTargetError, match="no commits yet"):
        collect_review_material(BaseBranchTarget(branch="main"), fresh)


def test_commit_target_shows_only_that_commit(tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    sha = git(repo, "rev-parse", "main~1")  # "add helper"

    material = collect_review_material(CommitTarget(sha=sha[:8], title="add helper"), repo)

    assert material.commit_sha == sha
    assert "add helper" in material.diff
    assert "+def helper(x):" in material.diff
    assert "FEATURE_FLAG" not in material.diff and "MAINLINE_ONLY" not in material.diff
    assert "def main" not in material.diff
    prompt = review_prompt(CommitTarget(sha=sha[:8], title="add helper"), material)
    assert sha in prompt and '"add helper"' in prompt


def test_missing_commit_is_a_clear_error(tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    with pytest.raises(ReviewTargetError, match="Commit 'deadbeef' was not found"):
        collect_review_material(CommitTarget(sha="deadbeef"), repo)


def test_custom_target_needs_instructions_but_no_repository(tmp_path):
    with pytest.raises(ReviewTargetError, match=r"^Review prompt cannot be empty$"):
        collect_review_material(CustomTarget(instructions="  \n "), tmp_path)
    material = collect_review_material(CustomTarget(instructions=" check the parser "), tmp_path)
    assert material.diff == "" and material.repo_root == tmp_path
    prompt = review_prompt(CustomTarget(instructions=" check the parser "), material)
    assert prompt.startswith("check the parser\n")


def test_outside_a_repository_git_targets_fail_clearly(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(ReviewTargetError, match="not inside a git repository"):
        collect_review_material(UncommittedChangesTarget(), plain)


def test_a_huge_diff_is_cut_at_file_boundaries_with_a_note(tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    (repo / "a_small.py").write_text("SMALL = 1\n")
    (repo / "b_big.py").write_text("".join(f"LINE_{i} = {i}\n" for i in range(20_000)))
    for i in range(30):
        (repo / f"c_more_{i:02}.py").write_text(f"MORE_{i} = {i}\n")

    material = collect_review_material(UncommittedChangesTarget(), repo, max_chars=20_000)

    assert len(material.diff) <= 20_000
    assert material.truncated
    assert "+SMALL = 1" in material.diff
    assert material.partial_file == "b_big.py"
    assert "c_more_29.py" in material.omitted_files
    assert "MORE_29" not in material.diff
    prompt = review_prompt(UncommittedChangesTarget(), material)
    assert "too large to show in full" in prompt
    assert "c_more_00.py" in prompt and "b_big.py stops partway" in prompt


def test_a_gigantic_tracked_diff_stops_git_early(tmp_path):
    repo = repo_with_history(tmp_path / "repo")
    # About 12 MB of changes against a 50 kB budget.
    (repo / "src/app.py").write_text("x = 1\n" * 2_000_000)

    material = collect_review_material(UncommittedChangesTarget(), repo, max_chars=50_000)

    assert material.truncated and len(material.diff) <= 50_000
    assert material.partial_file == "src/app.py"
