"""Repositories in the shared temporary folders, away from the workspace.

`/tmp` and `$TMPDIR` are writable roots of every `workspace-write` session, and they hold
other people's repositories (a clone made for a quick look, a test's checkout). A command
must not plant a hook or an fsmonitor in one of them, nor a project config or skills in its
`.codex/` or `.agents/`, for the user's next `git status` there, or the next session, to run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_lsp.protocol.core.policy import WorkspaceWrite
from codex_lsp.sandbox import _nested, wrap_command
from tests.sandbox.helpers import DENIALS, run, run_wrapped
from tests.sandbox.test_escape_basics import _python_for_nobody

# /tmp and $TMPDIR are roots, as in a default session.
DEFAULT = WorkspaceWrite()

ATTACK = (
    'for repo in "$@"; do '
    'printf "[core]\\n\\tfsmonitor = touch /tmp/pwned\\n" >> "$repo/.git/config"; '
    'echo evil > "$repo/.git/hooks/pre-commit"; '
    'mkdir -p "$repo/.agents/skills/x"; '
    'echo "model = \\"evil\\"" > "$repo/.codex/config.toml"; '
    'echo evil > "$repo/.agents/skills/x/SKILL.md"; '
    'mv "$repo/.git" "$repo/moved-git"; '
    'ln -s /etc "$repo/.codex/link"; '
    'echo fine > "$repo/code.py"; '
    "done"
)


def _repo(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    (path / ".codex").mkdir()
    (path / ".agents").mkdir()
    # Existing: with Landlock alone, a folder holding protected entries takes no new ones.
    (path / "code.py").write_text("before\n")
    return path


def _snapshot(repo: Path) -> dict[str, str]:
    return {
        str(p.relative_to(repo)): p.read_text() if p.is_file() else "<dir>"
        for p in sorted(repo.rglob("*"))
        if "code.py" not in p.name
    }


@pytest.fixture
def temp_repos() -> Iterator[tuple[Path, list[Path]]]:
    """A `$TMPDIR` (outside /tmp) and repositories in it and in /tmp, at several depths."""
    tmpdir = Path(tempfile.mkdtemp(prefix="sandbox-tmpdir-", dir="/var/tmp"))
    in_tmp = Path(tempfile.mkdtemp(prefix="sandbox-other-", dir="/tmp"))
    repos = [
        _repo(in_tmp / "clone"),
        _repo(in_tmp / "a" / "b" / "c" / "deep"),
        _repo(tmpdir / "checkout"),
        _repo(tmpdir / "x" / "y" / "project"),
    ]
    yield tmpdir, repos
    shutil.rmtree(tmpdir, ignore_errors=True)
    shutil.rmtree(in_tmp, ignore_errors=True)


def _assert_untouched(
    repos: list[Path], before: list[dict[str, str]], output: str, mode: str
) -> None:
    for repo, snap in zip(repos, before, strict=True):
        if mode == "mountns":
            # The work tree stays writable. With Landlock alone it may not be: past the rules
            # a root may spend, a crowded /tmp's folders are left read-only whole.
            assert (repo / "code.py").read_text() == "fine\n", output
        assert (repo / ".git").is_dir(), output
        assert not (repo / "moved-git").exists(), output
        assert _snapshot(repo) == snap, (repo, output)
    assert any(d in output for d in DENIALS), output


def test_repositories_in_tmp_and_tmpdir_stay_read_only(
    ws: Path, mode: str, temp_repos: tuple[Path, list[Path]]
) -> None:
    tmpdir, repos = temp_repos
    before = [_snapshot(repo) for repo in repos]
    _nested.forget()  # as a fresh session: the first command must already be covered
    result = run(
        ["bash", "-c", ATTACK, "attack", *map(str, repos)],
        ws,
        mode,
        DEFAULT,
        env={"TMPDIR": str(tmpdir)},
    )
    _assert_untouched(repos, before, result.output, mode)


def test_a_repository_that_appears_later_is_covered_from_the_next_walk(
    ws: Path, mode: str, temp_repos: tuple[Path, list[Path]]
) -> None:
    tmpdir, _ = temp_repos
    run("true", ws, mode, DEFAULT, env={"TMPDIR": str(tmpdir)})
    late = _repo(tmpdir / "x" / "late")
    before = _snapshot(late)
    deadline = time.monotonic() + 30
    while str(late / ".git") not in _nested.nested_git_dirs(str(tmpdir)):
        assert time.monotonic() < deadline, "the background walk never found the new repository"
        time.sleep(0.1)
    result = run(
        ["bash", "-c", ATTACK, "attack", str(late)],
        ws,
        mode,
        DEFAULT,
        env={"TMPDIR": str(tmpdir)},
    )
    _assert_untouched([late], [before], result.output, mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="switches to an unprivileged user")
def test_an_unprivileged_user_cannot_write_a_repository_in_tmp_either(
    ws: Path, temp_repos: tuple[Path, list[Path]]
) -> None:
    python = _python_for_nobody()
    if python is None:
        pytest.skip("no Python >= 3.11 runnable by an unprivileged user")
    tmpdir, repos = temp_repos
    for base in (ws.parent, tmpdir, repos[0].parent):
        for path in [base, *base.rglob("*")]:
            os.lchown(path, 65534, 65534)
    before = [_snapshot(repo) for repo in repos]
    for mode in ("mountns", "landlock-only"):
        _nested.forget()
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TMPDIR": str(tmpdir)}
        if mode == "landlock-only":
            env["CODEX_LSP_SANDBOX_DISABLE"] = "mountns"
        wrapped = wrap_command(["bash", "-c", ATTACK, "attack", *map(str, repos)], DEFAULT, ws, env)
        output = run_wrapped(wrapped, ws, timeout=60, python=python, nobody=True).output
        if "launcher" in output or "can't open file" in output:
            pytest.skip(f"launcher not readable by an unprivileged user: {output}")
        _assert_untouched(repos, before, f"{mode}: {output}", mode)


def test_a_crowded_folder_keeps_its_repositories_read_only(ws: Path, mode: str) -> None:
    # With Landlock alone, a folder of more entries than the rules a root may spend on its
    # way to a repository is left read-only whole, never writable.
    tmpdir = Path(tempfile.mkdtemp(prefix="sandbox-tmpdir-", dir="/var/tmp"))
    try:
        crowd = tmpdir / "crowd"
        for i in range(600):
            (crowd / f"work-{i}").mkdir(parents=True)
        repo = _repo(crowd / "work-599" / "repo")
        before = _snapshot(repo)
        _nested.forget()
        result = run(
            ["bash", "-c", ATTACK, "attack", str(repo)],
            ws,
            mode,
            DEFAULT,
            env={"TMPDIR": str(tmpdir)},
        )
        assert (repo / ".git").is_dir() and not (repo / "moved-git").exists(), result.output
        assert _snapshot(repo) == before, result.output
        wrote = (repo / "code.py").read_text() == "fine\n"
        # Both modes keep the repository; only the namespaces keep its work tree writable.
        assert wrote == (mode == "mountns"), result.output
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def test_a_repository_removed_since_the_walk_is_left_alone(ws: Path, mode: str) -> None:
    tmpdir = Path(tempfile.mkdtemp(prefix="sandbox-tmpdir-", dir="/var/tmp"))
    try:
        gone = _repo(tmpdir / "gone" / "repo")
        _nested.forget()
        assert str(gone / ".git") in _nested.nested_git_dirs(str(tmpdir))
        shutil.rmtree(tmpdir / "gone")
        # The walk is not redone yet: the command starts with the stale answer.
        result = run("echo ok > src/new.txt", ws, mode, DEFAULT, env={"TMPDIR": str(tmpdir)})
        assert not (tmpdir / "gone").exists(), "a placeholder was made for a vanished entry"
        if mode == "mountns":
            # Nothing was carved out of the roots for it: /tmp and $TMPDIR take new entries.
            shared = run(
                'echo ok > "$TMPDIR/new.txt" && echo ok > /tmp/sandbox-new-$$ && '
                "rm /tmp/sandbox-new-$$",
                ws,
                mode,
                DEFAULT,
                env={"TMPDIR": str(tmpdir)},
            )
            assert shared.code == 0, shared.output
            assert (tmpdir / "new.txt").read_text() == "ok\n"
        assert result.code == 0, result.output
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
