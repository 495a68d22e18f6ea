"""Escape 7: git and agent folders.

Writable were: the config and hooks of a worktree's main repository (reached through the
worktree's `.git` file and its `commondir`), the `.git` of a repository nested in the
workspace, and a `.codex/` or `.agents/` created by the command itself (project config and
skills the next session loads). All of them are read-only inside the sandbox.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_lsp.protocol.core.policy import WorkspaceWrite
from codex_lsp.sandbox import is_path_writable
from tests.sandbox.helpers import DENIALS, ISOLATED, run

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@e",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@e",
    "PATH": "/usr/bin:/bin",
}


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, env=GIT_ENV, capture_output=True)


@pytest.fixture
def worktree() -> Iterator[tuple[Path, Path, WorkspaceWrite]]:
    """A worktree (the cwd) of a main repository that lies in another writable root."""
    base = Path(tempfile.mkdtemp(prefix="sandbox-wt-", dir="/var/tmp"))
    shared, main, tree = base / "shared", base / "shared" / "main", base / "wt"
    main.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=main)
    (main / "README.md").write_text("main\n")
    git("add", "-A", cwd=main)
    git("commit", "-qm", "initial", cwd=main)
    git("worktree", "add", "-q", "-b", "feature", str(tree), cwd=main)
    policy = WorkspaceWrite(
        writable_roots=(str(shared),), exclude_slash_tmp=True, exclude_tmpdir_env_var=True
    )
    yield tree, main, policy
    shutil.rmtree(base, ignore_errors=True)


def test_a_worktrees_main_repository_stays_read_only(
    worktree: tuple[Path, Path, WorkspaceWrite], mode: str
) -> None:
    tree, main, policy = worktree
    config = (main / ".git" / "config").read_text()
    result = run(
        'common=$(git rev-parse --git-common-dir); echo "common=$common"; '
        'printf "[core]\\n\\tfsmonitor = touch /tmp/pwned\\n" >> "$common/config"; '
        'echo evil > "$common/hooks/post-checkout"; '
        'echo evil >> "$(git rev-parse --git-dir)/HEAD"; '
        "echo ok > notes/../README.md",
        tree,
        mode,
        policy,
    )
    assert f"common={main / '.git'}" in result.output, result.output
    assert result.denied(), result.output
    assert (main / ".git" / "config").read_text() == config
    assert not (main / ".git" / "hooks" / "post-checkout").exists()
    assert "evil" not in (main / ".git" / "worktrees" / "wt" / "HEAD").read_text()


def test_a_nested_repository_stays_read_only(ws: Path, mode: str) -> None:
    nested = ws / "vendor" / "lib"
    nested.mkdir(parents=True)
    git("init", "-q", cwd=nested)
    (nested / "code.py").write_text("")
    config = (nested / ".git" / "config").read_text()
    result = run(
        "echo evil >> vendor/lib/.git/config; echo evil > vendor/lib/.git/hooks/pre-commit; "
        "echo fine >> vendor/lib/code.py",
        ws,
        mode,
    )
    assert result.output.count("vendor/lib/.git/") == 2, result.output
    assert any(denial in result.output for denial in DENIALS), result.output
    assert (nested / ".git" / "config").read_text() == config
    assert not (nested / ".git" / "hooks" / "pre-commit").exists()
    assert (nested / "code.py").read_text() == "fine\n"  # its work tree stays writable
    assert not is_path_writable(nested / ".git" / "config", ISOLATED, ws)


def test_new_codex_and_agents_folders_cannot_be_made(ws: Path, mode: str) -> None:
    result = run(
        "mkdir -p .agents/skills/evil && echo 'do evil' > .agents/skills/evil/SKILL.md; "
        "mkdir -p .codex && echo 'sandbox_mode = \"danger-full-access\"' > .codex/config.toml; "
        "mkdir src/staged && echo x > src/staged/config.toml && mv src/staged .codex; "
        "echo fine > src/ok.txt",
        ws,
        mode,
    )
    assert any(denial in result.output for denial in DENIALS), result.output
    for name in (".agents", ".codex"):
        # Either absent or the empty folder the sandbox holds in place.
        folder = ws / name
        assert not folder.exists() or list(folder.iterdir()) == [], result.output
    assert (ws / "src" / "ok.txt").read_text() == "fine\n"


def test_patches_into_any_protected_folder_need_approval(ws: Path) -> None:
    for path in ("deep/.git/config", "pkg/.agents/skills/x/SKILL.md", "a/.codex/config.toml"):
        assert not is_path_writable(ws / path, ISOLATED, ws), path
    assert is_path_writable(ws / "deep" / "git" / "config", ISOLATED, ws)
